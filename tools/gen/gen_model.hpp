// `tilefw gen --model`: the whole model's steps, data and manifest (gen_model.cpp).
#pragma once

#include "gen/gen_request.hpp"

namespace tilefw::tools {

/// Exit code 0, 1 (cannot be mapped, or does not fit the chip's DDR) or 2 (bad option, config or
/// weights).
int run_gen_model(const GenCli& cli);

}  // namespace tilefw::tools
