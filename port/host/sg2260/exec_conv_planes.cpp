// SG2260 execution, the padded input planes of the sliding-window classes
// (sg2260/exec_conv_window.hpp): a row whose elements lie contiguously is read and converted
// as one run, any other element by element.
#include <algorithm>

#include "sg2260/exec_conv_window.hpp"
#include "sg2260/exec_convert.hpp"

namespace tilefw::port::host::sg2260::exec {

namespace {

// One padded plane row with no zeros inserted between columns whose input elements lie
// contiguously (w stride 1) inside LMEM: the pads, then the row's elements read and logged as
// one range. False when the row does not qualify (the element loop then reads it).
bool input_row_fast(const WinParams& a, const TiuOperand& o, uint64_t n, uint64_t c, double pad, uint64_t y,
                    uint64_t pw, uint64_t vh, uint64_t vw, double* row) {
  if (a.ins_w != 0 || o.ws != 1) return false;
  const bool row_inside = y >= a.pad_up && y - a.pad_up < vh && (y - a.pad_up) % (a.ins_h + 1) == 0;
  if (!row_inside) return false;
  const uint64_t x0 = a.pad_lf, x1 = std::min<uint64_t>(pw, a.pad_lf + vw);  // input columns [x0, x1)
  if (x0 >= x1) return false;
  const uint64_t iy = (y - a.pad_up) / (a.ins_h + 1);
  const uint8_t* p = element(o.side, n, c, iy, 0, o.ns, o.cs, o.hs, o.ws, o.esize);
  if (p == nullptr || element(o.side, n, c, iy, x1 - x0 - 1, o.ns, o.cs, o.hs, o.ws, o.esize) == nullptr) return false;
  for (uint64_t x = 0; x < x0; ++x) row[x] = pad;
  for (uint64_t x = x1; x < pw; ++x) row[x] = pad;
  note_read(o.side, p, (x1 - x0) * o.esize);
  if (o.prec == 1) {
    halves_to_doubles(p, row + x0, x1 - x0);
    return true;
  }
  for (uint64_t x = x0; x < x1; ++x, p += o.esize) row[x] = read_value(p, o.prec, o.sign);
  return true;
}

}  // namespace

Status load_plane(const WinParams& a, const TiuOperand& o, uint64_t n, uint64_t c, double pad, uint64_t ph,
                  uint64_t pw, double* plane, const std::string& cls, std::string& msg) {
  const uint64_t vh = (a.ih - 1) * (a.ins_h + 1) + 1, vw = (a.iw - 1) * (a.ins_w + 1) + 1;
  for (uint64_t y = 0; y < ph; ++y) {
    if (input_row_fast(a, o, n, c, pad, y, pw, vh, vw, plane + y * pw)) continue;
    for (uint64_t x = 0; x < pw; ++x) {
      double& v = plane[y * pw + x];
      const bool inside = y >= a.pad_up && x >= a.pad_lf && y - a.pad_up < vh && x - a.pad_lf < vw;
      if (!inside) {
        v = pad;
        continue;
      }
      const uint64_t iy = y - a.pad_up, ix = x - a.pad_lf;
      if (iy % (a.ins_h + 1) != 0 || ix % (a.ins_w + 1) != 0) {
        v = 0;
        continue;
      }
      const uint8_t* p = element(o.side, n, c, iy / (a.ins_h + 1), ix / (a.ins_w + 1), o.ns, o.cs, o.hs, o.ws, o.esize);
      if (p == nullptr) return fail(msg, Status::cmd_footprint_out_of_range, cls + ": opd0 outside LMEM");
      note_read(o.side, p, o.esize);
      v = read_value(p, o.prec, o.sign);
    }
  }
  return Status::ok;
}

}  // namespace tilefw::port::host::sg2260::exec
