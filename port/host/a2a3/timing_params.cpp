// The a2a3 timing model's parameter table: every number the model uses, with its source.
// Sources: "fit" = fitted to the profiled single-instruction silicon cases in
// test/data/a2a3-cycles (by scripts/fit_a2a3_cycles.py, one value per op class, never per
// case); "doc" = a public figure; "decision" = tilefw's choice where no data exists.
#include "a2a3/timing.hpp"

namespace tilefw::port::host::timing {

const std::array<ParamRow, kParamCount>& param_table() noexcept {
  static const std::array<ParamRow, kParamCount> kTable = {{
      {"v_start_binary", 0.000, "fit", "start-up latency of a binary issue (one value shared by binary, div, reduce and copy)"},
      {"v_start_div", 0.000, "fit", "start-up latency of a div issue (one value shared by binary, div, reduce and copy)"},
      {"v_start_scalar", 9.922, "fit", "start-up latency of a scalar-operand issue (its own: the scalar register read)"},
      {"v_start_unary", 3.314, "fit", "start-up latency of a unary issue (its own: the simple unary unit)"},
      {"v_start_math", 30.254, "fit", "start-up latency of a math issue (its own: the transcendental unit)"},
      {"v_start_reduce", 0.000, "fit", "start-up latency of a reduce issue (one value shared by binary, div, reduce and copy)"},
      {"v_start_copy", 0.000, "fit", "start-up latency of a copy issue (one value shared by binary, div, reduce and copy)"},
      {"v_start_dup", 1.985, "fit", "start-up latency of a dup issue (its own: the broadcast path)"},
      {"v_start_cvt", 0.913, "fit", "start-up latency of a cvt issue (its own: the convert unit)"},
      {"v_f32_binary", 0.0, "decision", "no extra f32 latency for the binary class (its f32 silicon cases cost as the others, or it has none)"},
      {"v_f32_div", 16.798, "fit", "extra latency (shared by the float classes) of an f32 div issue"},
      {"v_f32_scalar", 16.798, "fit", "extra latency (shared by the float classes) of an f32 scalar issue"},
      {"v_f32_unary", 0.0, "decision", "no extra f32 latency for the unary class (its f32 silicon cases cost as the others, or it has none)"},
      {"v_f32_math", 0.0, "decision", "no extra f32 latency for the math class (the transcendental unit's start-up is the same for f16 and f32: the TEXP cases of both lie on one line)"},
      {"v_f32_reduce", 0.0, "decision", "no extra f32 latency for the reduce class (its f32 silicon cases cost as the others, or it has none)"},
      {"v_f32_copy", 0.0, "decision", "no extra f32 latency for the copy class (its f32 silicon cases cost as the others, or it has none)"},
      {"v_f32_dup", 0.0, "decision", "no extra f32 latency for the dup class (its f32 silicon cases cost as the others, or it has none)"},
      {"v_f32_cvt", 16.798, "fit", "extra latency (shared by the float classes) of an f32 cvt issue"},
      {"v_binary", 2.491, "fit", "per repeat: vadd vsub vmul vmax vmin"},
      {"v_div", 4.238, "fit", "per repeat: vdiv"},
      {"v_scalar", 0.929, "fit", "per repeat: vadds vmuls vmaxs vmins"},
      {"v_unary", 1.000, "fit", "per repeat: vabs vrelu"},
      {"v_math", 2.005, "fit", "per repeat: vexp vln vsqrt vrsqrt vrec"},
      {"v_reduce", 7.533, "fit", "per repeat: vcadd vcgadd vcpadd vcmax vcmin"},
      {"v_copy", 1.0, "decision", "per 32 B block: copy_ubuf_to_ubuf, one UB block a cycle (the in-sample fit gives 1.006)"},
      {"v_dup", 1.985, "fit", "per repeat: vector_dup, vbrcb"},
      {"v_cvt", 3.651, "fit", "per repeat: vconv"},
      {"v_issue", 0.686, "fit", "per vector issue (decode, register read)"},
      {"v_barrier", 0.000, "fit", "pipe_barrier: cycles after the pipe drained"},
      {"sync_flag", 3.969, "fit", "set_flag/wait_flag pair between two pipes"},
      {"s_read", 1.985, "fit", "scalar load of one UB element"},
      {"mte2_startup", 265.000, "fit", "GM -> UB/L1 DMA latency per move"},
      {"mte2_block", 0.248, "fit", "GM -> UB/L1 cycles per 32 B block"},
      {"mte_startup", 30.0, "decision", "MTE1/MTE3/FIX latency per move (no silicon case)"},
      {"mte_block", 0.25, "decision", "MTE1/MTE3/FIX cycles per 32 B block (as MTE2)"},
      {"m_startup", 30.0, "decision", "cube latency per matmul (no silicon case)"},
      {"m_fractal", 1.0, "decision", "cube cycles per 16x16x16 fractal step"},
  }};
  return kTable;
}

}  // namespace tilefw::port::host::timing
