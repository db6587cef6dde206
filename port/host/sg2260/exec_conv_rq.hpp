// SG2260 execution, the requantising CONV (opt_rq) of sg2260/exec_conv.cpp: its parameters
// (kernel zero point, multiplier, shift, output zero point or an FP32 scale per output
// channel, found through the TIU global config registers) and its result step. Facts and
// tilefw decisions: docs/sg2260-commands.md section 15, "requantising CONV".
#pragma once

#include <cstdint>
#include <string>

#include "sg2260/exec_common.hpp"

namespace tilefw::port::host::sg2260::exec {

/// The requant fields of one CONV / sCONV command.
struct ConvRqFields {
  bool on = false;           // opt_rq
  bool sym = false;          // sym_range: a signed result saturates to -max .. max
  uint32_t round = 0;        // opd2_n_str: the round mode of the right shift (integers)
  bool kzp_const = false;    // opt_opd4_const: TGCR 5 holds the kernel zero point itself
  bool param_const = false;  // opt_opd5_const: the parameters are TGCR values, not a tensor
};

/// One output channel's parameters.
struct ConvRqChannel {
  float scale = 1;  // float operands: the FP32 scale
  int64_t kzp = 0;  // integer operands: kernel zero point, multiplier, shift (> 0 left,
  int64_t multiplier = 1, zp = 0;  // < 0 right) and output zero point
  int32_t shift = 0;
};

/// TGCR indexes the requantising CONV reads (the vendor debugger's names T5 and T6).
inline constexpr uint32_t kTgcrKernelZp = 5, kTgcrRqParams = 6;

/// Refuses by name what no public source establishes. `fl`: float operands; precisions of
/// res0, opd0 and the kernel.
Status conv_rq_check(const ConvRqFields& q, bool fl, uint32_t res_prec, uint32_t in_prec, uint32_t k_prec,
                     bool res_add, const std::string& cls, std::string& msg);
/// Output channel ch's parameters, read (and logged) from the tensors the TGCRs address.
Status conv_rq_channel(const Ctx& x, const ConvRqFields& q, bool fl, uint64_t ch, ConvRqChannel& k,
                       const std::string& cls, std::string& msg);
/// Float result: `v` = the FP32 sum plus bias, relu applied; times the scale in FP32, then
/// rounded once to res0 (FP8 saturating to its largest finite value).
void conv_rq_store_float(uint8_t* d, uint32_t prec, bool sign, float v, const ConvRqChannel& k);
/// Integer result: `acc` = the exact sum (kernel minus zero point) plus bias.
void conv_rq_store_int(uint8_t* d, uint32_t esize, bool sign, const ConvRqFields& q, bool relu, int64_t acc,
                       const ConvRqChannel& k);

}  // namespace tilefw::port::host::sg2260::exec
