// SG2260 execution, the decoded fields of a TIU sliding-window command (CONV / sCONV, PorD /
// sPorD; sg2260/exec_conv.cpp) and the padded input planes its windows read
// (sg2260/exec_conv_planes.cpp). Internal to the host port.
#pragma once

#include <cstdint>
#include <string>

#include "sg2260/exec_common.hpp"
#include "sg2260/exec_conv_rq.hpp"

namespace tilefw::port::host::sg2260::exec {

// Decoded fields of one sliding-window command (operands: 0 res0, 1 opd0, 2 opd1 kernel or
// avgpool multiplier, 3 opd2 bias, 4 opd3 pad value).
struct WinParams {
  const char* cls;
  uint32_t eu;
  bool conv;
  uint64_t n, oc, oh, ow;  // res0
  uint64_t ic, ih, iw;     // opd0 (PorD: ic = oc)
  uint64_t kh, kw;
  uint32_t pad_up, pad_dn, pad_lf, pad_rt;
  uint32_t stride_h, stride_w;  // res_op_y_str, res_op_x_str
  uint32_t ins_h, ins_w;        // opd0_y_ins0, opd0_x_ins0: zeros inserted between input rows / columns
  uint32_t dil_h, dil_w;        // opd1_y_ins0 + 1, opd1_x_ins0 + 1
  uint32_t pad_mode;
  bool rotate, res_add, relu, rq;
  uint64_t addr[5];
  uint32_t prec[4];   // res0, opd0, opd1, opd2
  bool sign[4];
  bool is_const[5];   // indexes as addr (res0 unused)
  uint32_t mode[2];   // stride modes of res0, opd0
  uint64_t str[2][4];
  ConvRqFields q;     // opt_rq and its fields (CONV / sCONV; PorD: opt_rq only)
};

/// The padded input plane of channel c of image n, as the windows read it: rows 0 .. ph - 1
/// and columns 0 .. pw - 1 of the virtual input (zeros inserted between rows / columns, then
/// the pads): the pad value outside the input, 0 on inserted positions, else the element. Each
/// element is read (and logged) once; an element outside LMEM fails naming `cls`'s opd0.
Status load_plane(const WinParams& a, const TiuOperand& o, uint64_t n, uint64_t c, double pad, uint64_t ph,
                  uint64_t pw, double* plane, const std::string& cls, std::string& msg);

}  // namespace tilefw::port::host::sg2260::exec
