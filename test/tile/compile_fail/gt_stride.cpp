// EXPECT-FAIL: Fix: GlobalTensor RowStride must be at least Cols
#include "tilefw/tile/tile.hpp"
using namespace tilefw;
using namespace tilefw::tile;
GlobalTensor<float, 4, 64, 32> g;
