// Zero-copy typed views over SG2260 command bytes: one layout per class with accessors named as
// docs/sg2260-commands.md sections 4 and 6 name the fields (Rule: BM1690 field widths).
#pragma once

#include <cstdint>
#include <type_traits>

#include "tilefw/base/span.hpp"
#include "tilefw/cmd/bits.hpp"
#include "tilefw/cmd/classes.hpp"

// Each layout is an X-macro list of (name, bit, width). From one list come: a view template
// `<Name>T<B>` with a getter per field (and, for mutable bytes, `set_<field>`), the aliases
// `<Name>View` (const bytes) and `<Name>Ref` (mutable bytes, used by the builders), and the
// table `k<Name>Fields` used by dump, round trips and the random-command tests. Every table is
// checked at compile time: inside the command, inside one 64-bit word, no overlaps.
// Reserved bits are not listed; a command with a reserved bit set does not round-trip through
// the field tables (the real buffers have none).

#define TILEFW_CMD_TIU_SHORT_HEADER(X) \
  X(cmd_short, 0, 1) X(cmd_id_dep, 17, 23) X(dbg_mode, 40, 1) X(tsk_typ, 41, 4) X(tsk_eu_typ, 45, 5)

#define TILEFW_CMD_TIU_LONG_FIELDS(X)                                                              \
  X(cmd_short, 0, 1) X(op_code, 1, 16) X(cmd_id_dep, 17, 23) X(dbg_mode, 40, 1) X(tsk_typ, 41, 4)  \
  X(tsk_eu_typ, 45, 5) X(opt_rq, 50, 1) X(tsk_opd_num, 51, 2) X(pad_mode, 53, 2)                   \
  X(opt_res0_sign, 55, 1) X(pwr_step, 59, 4) X(intr_en, 63, 1)                                     \
  X(opt_res_add, 64, 1) X(opt_relu, 65, 1) X(opt_left_tran, 66, 1) X(opt_opd4_const, 67, 1)        \
  X(opt_kernel_rotate, 68, 1) X(opt_opd0_sign, 69, 1) X(opt_opd1_sign, 70, 1)                      \
  X(opt_opd2_sign, 71, 1) X(opt_res0_prec, 72, 3) X(opt_opd0_prec, 75, 3) X(opt_opd1_prec, 78, 3)  \
  X(opt_opd2_prec, 81, 3) X(opt_opd0_const, 84, 1) X(opt_opd1_const, 85, 1)                        \
  X(opt_opd2_const, 86, 1) X(short_res0_str, 87, 3) X(short_opd0_str, 90, 3)                      \
  X(short_opd1_str, 93, 3) X(short_opd2_str, 96, 3) X(opt_res_add_sign, 99, 1)                     \
  X(sym_range, 125, 1) X(opt_opd3_const, 126, 1) X(opt_opd5_const, 127, 1)                         \
  X(opd0_x_ins0, 128, 4) X(opd0_y_ins0, 132, 4) X(opd1_x_ins0, 136, 4) X(opd1_y_ins0, 140, 4)      \
  X(opd0_up_pad, 144, 4) X(opd0_dn_pad, 148, 4) X(opd0_lf_pad, 152, 4) X(opd0_rt_pad, 156, 4)      \
  X(res_op_x_str, 160, 4) X(res_op_y_str, 164, 4) X(res0_h_shift, 168, 4) X(res0_w_shift, 172, 4)  \
  X(opd0_h_shift, 176, 4) X(opd0_w_shift, 180, 4) X(opd1_h_shift, 184, 4) X(opd1_w_shift, 188, 4)  \
  X(tsk_lane_num, 192, 64)                                                                         \
  X(res0_n, 256, 16) X(res0_c, 272, 16) X(res0_h, 288, 16) X(res0_w, 304, 16)                      \
  X(opd0_n, 320, 16) X(opd0_c, 336, 16) X(opd0_h, 352, 16) X(opd0_w, 368, 16)                      \
  X(opd1_n, 384, 16) X(opd1_c, 400, 16) X(opd1_h, 416, 16) X(opd1_w, 432, 16)                      \
  X(res0_n_str, 448, 16) X(res0_c_str, 464, 16) X(opd0_n_str, 480, 16) X(opd0_c_str, 496, 16)      \
  X(opd1_n_str, 512, 16) X(opd1_c_str, 528, 16) X(opd2_n_str, 544, 16) X(opd2_c_str, 560, 16)      \
  X(res0_addr, 576, 32) X(opd0_addr, 608, 32) X(opd1_addr, 640, 32) X(opd2_addr, 672, 32)          \
  X(res0_h_str, 704, 32) X(res0_w_str, 736, 32) X(opd0_h_str, 768, 32) X(opd0_w_str, 800, 32)      \
  X(opd1_h_str, 832, 32) X(opd1_w_str, 864, 32) X(opd2_h_str, 896, 32) X(opd2_w_str, 928, 32)      \
  X(res1_addr, 960, 32) X(opd3_addr, 992, 32)

#define TILEFW_CMD_SCONV_FIELDS(X)                                                                 \
  TILEFW_CMD_TIU_SHORT_HEADER(X)                                                                   \
  X(sym_range, 1, 1) X(opt_opd4_const, 2, 1) X(opt_opd5_const, 3, 1) X(opt_relu, 4, 1)             \
  X(opt_rq, 5, 1) X(opd2_n_str, 6, 3) X(opt_opd1_prec, 9, 3) X(op_code, 12, 5)                     \
  X(opt_opd0_sign, 50, 1) X(opt_opd1_sign, 51, 1) X(opt_opd2_sign, 52, 1) X(pad_mode, 53, 2)       \
  X(opt_res0_sign, 55, 1) X(opt_opd2_prec, 56, 3) X(pwr_step, 59, 4) X(opt_res_add, 63, 1)         \
  X(opt_kernel_rotate, 64, 1) X(opt_res0_prec, 65, 3) X(opt_opd0_prec, 68, 3)                      \
  X(opt_opd1_const, 71, 1) X(opt_opd2_const, 72, 1) X(opd0_up_pad, 73, 4) X(opd0_dn_pad, 77, 4)    \
  X(opd0_lf_pad, 81, 4) X(opd0_rt_pad, 85, 4) X(res_op_x_str, 89, 4) X(res_op_y_str, 93, 4)        \
  X(opt_opd3_const, 97, 1) X(short_opd0_str, 98, 3) X(res0_addr, 101, 26) X(intr_en, 127, 1)       \
  X(opd0_x_ins0, 128, 4) X(opd0_y_ins0, 132, 4) X(opd1_x_ins0, 136, 4) X(opd1_y_ins0, 140, 4)      \
  X(opd0_n_str, 144, 16) X(res0_n, 160, 16) X(res0_c, 176, 16) X(res0_h, 192, 16)                  \
  X(res0_w, 208, 16) X(opd0_c, 224, 16) X(opd0_h, 240, 16) X(opd0_w, 256, 16) X(opd1_h, 272, 16)   \
  X(opd1_w, 288, 16) X(opd0_c_str, 304, 16) X(opd0_addr, 320, 32) X(opd1_addr, 352, 32)            \
  X(opd2_addr, 384, 32) X(res1_addr, 416, 32) X(opd3_addr, 448, 32) X(opd0_h_str, 480, 16)         \
  X(opd0_w_str, 496, 16)

#define TILEFW_CMD_SMM_FIELDS(X)                                                                   \
  TILEFW_CMD_TIU_SHORT_HEADER(X)                                                                   \
  X(opt_relu, 4, 1) X(opt_rq, 5, 1) X(opt_res_add, 50, 1) X(opt_left_tran, 51, 1)                  \
  X(opt_opd0_const, 52, 1) X(opt_opd2_const, 53, 1) X(opt_res0_sign, 55, 1) X(intr_en, 63, 1)      \
  X(opt_opd0_sign, 64, 1) X(opt_opd1_sign, 65, 1) X(opt_opd2_sign, 66, 1) X(opt_res0_prec, 67, 3)  \
  X(opt_opd0_prec, 70, 3) X(opd2_n_str, 73, 3) X(res0_c, 112, 16) X(res0_w, 128, 16)               \
  X(opd0_n, 144, 16) X(opd0_c, 160, 16) X(opd0_w, 176, 16) X(opd1_w, 208, 16)                      \
  X(res0_addr, 224, 32) X(opd0_addr, 256, 32) X(opd1_addr, 288, 32) X(opd2_addr, 320, 32)

#define TILEFW_CMD_SMM2_FIELDS(X)                                                                  \
  TILEFW_CMD_TIU_SHORT_HEADER(X)                                                                   \
  X(opt_opd4_const, 2, 1) X(opt_opd5_const, 3, 1) X(opt_relu, 4, 1) X(opt_rq, 5, 1)                \
  X(opt_opd2_prec, 6, 3) X(opt_opd1_prec, 9, 3) X(opt_opd2_sign, 14, 1) X(op_code, 15, 2)          \
  X(opt_opd0_sign, 50, 1) X(opt_opd1_sign, 51, 1) X(opt_res0_prec, 52, 3) X(opt_res0_sign, 55, 1)  \
  X(opd2_n_str, 56, 3) X(opt_opd2_const, 63, 1) X(res0_c, 64, 16) X(res0_w, 80, 16)                \
  X(opd1_c, 96, 16) X(opd1_w, 112, 16) X(opt_opd0_prec, 128, 3) X(opt_opd0_const, 131, 1)          \
  X(opt_opd1_const, 132, 1) X(opt_res_add, 133, 1) X(res0_addr, 134, 25) X(intr_en, 159, 1)        \
  X(opd0_addr, 160, 32) X(opd1_addr, 192, 32) X(opd2_addr, 224, 32)

#define TILEFW_CMD_SAR_FIELDS(X)                                                                   \
  TILEFW_CMD_TIU_SHORT_HEADER(X)                                                                   \
  X(opt_opd0_const, 50, 1) X(opt_opd1_const, 51, 1) X(opt_opd2_const, 52, 1)                       \
  X(tsk_opd_num, 53, 2) X(sym_range, 55, 1) X(opt_res0_prec, 64, 3) X(opt_opd0_prec, 67, 3)        \
  X(opt_opd1_prec, 70, 3) X(opt_opd2_prec, 73, 3) X(opt_opd0_sign, 76, 1) X(opt_opd1_sign, 77, 1)  \
  X(short_res0_str, 78, 3) X(short_opd0_str, 81, 3) X(short_opd1_str, 84, 3) X(opd2_n_str, 87, 3)  \
  X(res0_n, 96, 16) X(res0_c, 112, 16) X(res0_h, 128, 16) X(res0_w, 144, 16)                       \
  X(res0_addr, 160, 32) X(opd0_addr, 192, 32) X(opd1_addr, 224, 32) X(opd2_addr, 256, 32)          \
  X(res0_n_str, 288, 16) X(res0_c_str, 304, 16) X(opd0_n_str, 320, 16) X(opd0_c_str, 336, 16)      \
  X(opd1_n_str, 352, 16) X(opd1_c_str, 368, 16) X(res0_h_str, 384, 20) X(res0_w_str, 404, 20)      \
  X(opd0_h_str, 424, 20) X(opt_opd2_sign, 444, 1) X(opd0_w_str, 448, 20) X(opd1_h_str, 468, 20)    \
  X(opd1_w_str, 488, 20)

// The spec lists sPorD bits 72..111 as "ins0/pad/str nibbles"; they are named here in the
// long form's order (x/y ins0 of opd0 and opd1, four pads, res_op x/y strides), 10 nibbles.
#define TILEFW_CMD_SPORD_FIELDS(X)                                                                 \
  TILEFW_CMD_TIU_SHORT_HEADER(X)                                                                   \
  X(op_code, 6, 11) X(opt_kernel_rotate, 50, 1) X(opt_opd0_sign, 51, 1) X(opt_opd1_sign, 52, 1)    \
  X(pad_mode, 53, 2) X(opt_res0_sign, 55, 1) X(opt_opd2_prec, 56, 3) X(opt_opd1_const, 63, 1)      \
  X(opt_opd2_const, 64, 1) X(opt_opd3_const, 65, 1) X(opt_res0_prec, 66, 3)                        \
  X(opt_opd0_prec, 69, 3) X(opd0_x_ins0, 72, 4) X(opd0_y_ins0, 76, 4) X(opd1_x_ins0, 80, 4)        \
  X(opd1_y_ins0, 84, 4) X(opd0_up_pad, 88, 4) X(opd0_dn_pad, 92, 4) X(opd0_lf_pad, 96, 4)          \
  X(opd0_rt_pad, 100, 4) X(res_op_x_str, 104, 4) X(res_op_y_str, 108, 4) X(opd2_n_str, 112, 3)     \
  X(opt_opd2_sign, 126, 1) X(intr_en, 127, 1) X(res0_n, 128, 16) X(res0_c, 144, 16)                \
  X(res0_h, 160, 16) X(res0_w, 176, 16) X(opd0_h, 192, 16) X(opd0_w, 208, 16) X(opd1_h, 224, 16)   \
  X(opd1_w, 240, 16) X(res0_addr, 256, 32) X(opd0_addr, 288, 32) X(opd1_addr, 320, 32)             \
  X(opd2_addr, 352, 32) X(res1_addr, 384, 32) X(opd3_addr, 416, 32)

#define TILEFW_CMD_SCMP_FIELDS(X)                                                                  \
  TILEFW_CMD_TIU_SHORT_HEADER(X)                                                                   \
  X(opt_opd0_const, 50, 1) X(opt_opd1_const, 51, 1) X(opt_opd2_const, 52, 1)                       \
  X(opt_opd3_const, 53, 1) X(opt_opd0_prec, 64, 3) X(opt_opd2_prec, 67, 3)                         \
  X(short_opd0_str, 70, 3) X(short_opd1_str, 73, 3) X(opt_opd2_sign, 126, 1)                       \
  X(opt_opd0_sign, 127, 1) X(res0_n, 128, 16) X(res0_c, 144, 16) X(res0_h, 160, 16)                \
  X(res0_w, 176, 16) X(res0_addr, 192, 32) X(res1_addr, 224, 32) X(opd0_addr, 256, 32)             \
  X(opd1_addr, 288, 32) X(opd2_addr, 320, 32) X(opd3_addr, 352, 32)

#define TILEFW_CMD_SSFU_FIELDS(X)                                                                  \
  TILEFW_CMD_TIU_SHORT_HEADER(X)                                                                   \
  X(opt_res0_prec, 64, 3) X(opt_opd0_prec, 67, 3) X(opd2_n_str, 70, 2) X(res0_n, 80, 16)           \
  X(res0_c, 96, 16) X(res0_h, 112, 16) X(res0_w, 128, 16) X(opd1_n, 144, 16)                       \
  X(res0_addr, 160, 32) X(opd0_addr, 192, 32) X(opd1_addr, 224, 32)

#define TILEFW_CMD_SVC_FIELDS(X)                                                                   \
  TILEFW_CMD_TIU_SHORT_HEADER(X)                                                                   \
  X(opt_opd0_sign, 50, 1) X(opt_opd1_sign, 51, 1) X(opd2_n_str, 52, 3) X(opt_res0_prec, 64, 3)     \
  X(opt_opd0_prec, 67, 3) X(opt_opd1_prec, 70, 3) X(res0_addr, 73, 32) X(opd0_addr, 128, 32)       \
  X(res0_c, 176, 16) X(res0_w, 192, 16) X(opd0_c, 208, 16) X(opd0_w, 224, 16) X(opd1_w, 240, 16)   \
  X(opd1_addr, 256, 32) X(opd2_addr, 288, 32)

#define TILEFW_CMD_SLIN_FIELDS(X)                                                                  \
  TILEFW_CMD_TIU_SHORT_HEADER(X)                                                                   \
  X(opt_opd1_const, 50, 1) X(opt_opd2_const, 51, 1) X(opt_res0_prec, 52, 3)                        \
  X(opt_opd0_sign, 55, 1) X(opt_opd1_sign, 56, 1) X(opt_opd2_sign, 57, 1) X(opt_res0_sign, 58, 1)  \
  X(res0_n, 64, 16) X(res0_c, 80, 16) X(res0_h, 96, 16) X(res0_w, 112, 16) X(res0_addr, 128, 32)   \
  X(opd0_addr, 160, 32) X(opd1_addr, 192, 32) X(opd2_addr, 224, 32)

#define TILEFW_CMD_SRQDQ_FIELDS(X)                                                                 \
  TILEFW_CMD_TIU_SHORT_HEADER(X)                                                                   \
  X(sym_range, 1, 1) X(op_code, 2, 15) X(opt_opd0_sign, 50, 1) X(opt_opd2_sign, 51, 1)             \
  X(opt_res0_prec, 52, 3) X(opt_opd1_const, 63, 1) X(opt_opd0_prec, 64, 3) X(opd2_n_str, 67, 6)    \
  X(res0_addr, 74, 26) X(opd0_addr, 100, 27) X(intr_en, 127, 1) X(res0_n, 128, 16)                 \
  X(res0_c, 144, 16) X(res0_h, 160, 16) X(res0_w, 176, 16) X(opd1_addr, 192, 32)                   \
  X(opd2_addr, 224, 32)

#define TILEFW_CMD_SSG_FIELDS(X)                                                                   \
  TILEFW_CMD_TIU_SHORT_HEADER(X)                                                                   \
  X(opt_opd3_const, 50, 1) X(intr_en, 51, 1) X(short_opd0_str, 52, 3) X(opt_opd2_const, 63, 1)     \
  X(res0_n, 64, 16) X(res0_c, 80, 16) X(res0_h, 96, 16) X(res0_w, 112, 16) X(opd0_h, 128, 16)      \
  X(opd0_w, 144, 16) X(opd1_c, 160, 16) X(opd1_w, 176, 16) X(opt_res0_prec, 192, 3)                \
  X(res0_addr, 195, 29) X(opt_opd0_prec, 224, 3) X(opd0_addr, 227, 29) X(opt_opd1_prec, 256, 3)    \
  X(opd1_addr, 259, 29) X(opd2_addr, 288, 32) X(res1_addr, 320, 32) X(opd3_addr, 352, 32)

#define TILEFW_CMD_SSGL_FIELDS(X)                                                                  \
  TILEFW_CMD_TIU_SHORT_HEADER(X)                                                                   \
  X(opt_opd3_const, 53, 1) X(intr_en, 54, 1) X(opt_opd2_const, 63, 1) X(opt_res0_prec, 64, 3)      \
  X(opt_opd1_prec, 67, 3) X(short_opd0_str, 70, 3) X(res0_n, 80, 16) X(res0_c, 96, 16)             \
  X(res0_h, 112, 16) X(res0_w, 128, 16) X(opd0_h, 144, 16) X(res0_addr, 160, 32)                   \
  X(opd0_addr, 192, 32) X(opd1_addr, 224, 32) X(opd2_addr, 256, 32) X(res1_addr, 288, 32)

#define TILEFW_CMD_SCWBC_FIELDS(X)                                                                 \
  TILEFW_CMD_TIU_SHORT_HEADER(X)                                                                   \
  X(opt_res0_prec, 50, 3) X(intr_en, 63, 1) X(res0_n, 64, 16) X(res0_c, 80, 16) X(res0_h, 96, 16)  \
  X(res0_w, 112, 16) X(opd0_c, 128, 16) X(opd0_w, 144, 16) X(res0_addr, 192, 32)                   \
  X(opd0_addr, 224, 32)

#define TILEFW_CMD_LAR_FIELDS(X)                                                                   \
  X(opd0_w_str, 0, 1) X(opd1_w_str, 1, 1) X(opt_opd2_const, 2, 1) X(opt_res0_prec, 3, 3)           \
  X(opt_opd0_prec, 6, 3) X(opt_opd1_prec, 9, 3) X(opd2_n_str, 12, 3) X(opt_opd0_sign, 15, 1)       \
  X(opt_opd1_sign, 16, 1) X(start_tid, 17, 6) X(res0_c, 23, 8) X(res0_w, 31, 8) X(tsk_typ, 41, 4)  \
  X(tsk_eu_typ, 45, 5) X(tsk_opd_num, 51, 2) X(pwr_step, 59, 4) X(res0_addr, 64, 16)               \
  X(opd0_addr, 80, 16) X(opd1_addr, 96, 16) X(opd2_addr, 112, 16)

#define TILEFW_CMD_SYS_TR_ACC_FIELDS(X)                                                            \
  X(imm0, 0, 32) X(reg_idx0, 32, 8) X(intr_en, 40, 1) X(tsk_typ, 41, 4) X(tsk_eu_typ, 45, 3)       \
  X(reg_idx1, 48, 8) X(reg_idx2, 56, 8) X(imm1, 64, 64)

// Bit 0 is reserved on SYS ("both values are accepted"); it is listed so it round-trips.
#define TILEFW_CMD_SYS_FIELDS(X)                                                                   \
  X(cmd_short, 0, 1) X(cmd_id_dep, 17, 23) X(dbg_mode, 40, 1) X(tsk_typ, 41, 4)                    \
  X(tsk_eu_typ, 45, 5) X(reg_vld, 50, 2) X(reg_idx, 52, 7) X(pwr_step, 59, 4) X(intr_en, 63, 1)    \
  X(imm, 64, 64)

#define TILEFW_CMD_DMA_HEADER(X)                                                                   \
  X(intr_en, 0, 1) X(stride_enable, 1, 1) X(nchw_copy, 2, 1) X(cmd_short, 3, 1) X(cache_en, 4, 1)  \
  X(cache_flush, 5, 1) X(cmd_type, 32, 5) X(cmd_special_function, 37, 3)                           \
  X(fill_constant_en, 40, 1) X(src_data_format, 41, 4) X(cmd_id_dep, 64, 21)                       \
  X(break_point, 87, 1) X(constant_value, 96, 32)

#define TILEFW_CMD_DMA_BODY(X)                                                                     \
  X(src_nstride, 128, 32) X(src_cstride, 160, 32) X(src_hstride, 192, 32) X(src_wstride, 224, 32)  \
  X(dst_nstride, 256, 32) X(dst_cstride, 288, 32) X(dst_hstride, 320, 32) X(dst_wstride, 352, 32)  \
  X(src_nsize, 384, 16) X(src_csize, 400, 16) X(src_hsize, 416, 16) X(src_wsize, 432, 16)          \
  X(dst_nsize, 448, 16) X(dst_csize, 464, 16) X(dst_hsize, 480, 16) X(dst_wsize, 496, 16)          \
  X(src_start_addr_l32, 512, 32) X(src_start_addr_h13, 544, 13) X(dst_start_addr_l32, 576, 32)     \
  X(dst_start_addr_h13, 608, 13) X(localmem_mask_l32, 704, 32) X(localmem_mask_h32, 736, 32)

#define TILEFW_CMD_DMA_COMMON_FIELDS(X) TILEFW_CMD_DMA_HEADER(X) TILEFW_CMD_DMA_BODY(X)
#define TILEFW_CMD_DMA_TENSOR_FIELDS(X) \
  TILEFW_CMD_DMA_HEADER(X) TILEFW_CMD_DMA_BODY(X) X(all_reduce_code, 640, 16)
#define TILEFW_CMD_DMA_MASKED_SELECT_FIELDS(X)                                           \
  TILEFW_CMD_DMA_HEADER(X) TILEFW_CMD_DMA_BODY(X) X(mask_data_format, 45, 4)             \
  X(mask_start_addr_l32, 640, 32) X(mask_start_addr_h13, 672, 13)
#define TILEFW_CMD_DMA_NONZERO_FIELDS(X) \
  TILEFW_CMD_DMA_HEADER(X) TILEFW_CMD_DMA_BODY(X) X(index_data_format, 45, 4)

// gather / scatter, BM1690 variant (start_pos@288, localmem_mask@704).
#define TILEFW_CMD_DMA_GATHER_SCATTER_FIELDS(X)                                                    \
  TILEFW_CMD_DMA_HEADER(X)                                                                         \
  X(src_cstride, 128, 32) X(src_hstride, 160, 32) X(dst_cstride, 192, 32) X(dst_hstride, 224, 32)  \
  X(index_cstride, 256, 32) X(start_pos, 288, 32) X(src_csize, 336, 16) X(src_hsize, 352, 32)      \
  X(src_wsize, 384, 16) X(dst_csize, 400, 16) X(dst_hsize, 416, 32) X(dst_wsize, 448, 16)          \
  X(index_csize, 464, 16) X(index_hsize, 480, 32) X(src_start_addr_l32, 512, 32)                   \
  X(src_start_addr_h13, 544, 13) X(dst_start_addr_l32, 576, 32) X(dst_start_addr_h13, 608, 13)     \
  X(index_start_addr_l32, 640, 32) X(index_start_addr_h13, 672, 13)                                \
  X(localmem_mask_l32, 704, 32) X(localmem_mask_h32, 736, 32)

// compress / decompress / lossy_*: only the header is decoded (Rule: closed class lists: opaque
// body).
#define TILEFW_CMD_DMA_OPAQUE_FIELDS(X) TILEFW_CMD_DMA_HEADER(X)

#define TILEFW_CMD_DMA_SYS_FIELDS(X)                                                               \
  X(intr_en, 0, 1) X(cmd_short, 3, 1) X(cmd_type, 32, 5) X(cmd_special_function, 37, 3)            \
  X(cmd_id_dep, 64, 21) X(break_point, 87, 1) X(index, 88, 8) X(constant_value, 96, 32)

namespace tilefw::cmd {

namespace detail {
/// Shared base of every view: a pointer to the first byte of one command.
template <typename B, uint32_t Bytes>
class FieldAccess {
 public:
  static constexpr uint32_t kBytes = Bytes;
  constexpr explicit FieldAccess(B* p) noexcept : p_(p) {}
  constexpr B* data() const noexcept { return p_; }
  constexpr uint64_t get(unsigned bit, unsigned width) const noexcept {
    return read_field(p_, bit, width);
  }
  constexpr void put(unsigned bit, unsigned width, uint64_t v) const noexcept
    requires(!std::is_const_v<B>)
  {
    write_field(p_, bit, width, v);
  }

 protected:
  B* p_;
};
}  // namespace detail

#define TILEFW_CMD_GETTER(n, b, w)                               \
  constexpr detail::UInt<w> n() const noexcept {                 \
    return static_cast<detail::UInt<w>>(this->get((b), (w)));    \
  }
#define TILEFW_CMD_SETTER(n, b, w) \
  constexpr void set_##n(uint64_t v) const noexcept requires(!std::is_const_v<B>) { this->put((b), (w), v); }
#define TILEFW_CMD_DESC(n, b, w) FieldDesc{#n, (b), (w)},

#define TILEFW_CMD_DEFINE_LAYOUT(Name, LIST, BYTES, ...)                                       \
  template <typename B>                                                                        \
  class Name##T : public detail::FieldAccess<B, BYTES> {                                       \
   public:                                                                                     \
    constexpr explicit Name##T(B* p) noexcept : detail::FieldAccess<B, BYTES>(p) {}            \
    LIST(TILEFW_CMD_GETTER)                                                                    \
    LIST(TILEFW_CMD_SETTER)                                                                    \
    __VA_ARGS__                                                                                \
  };                                                                                           \
  using Name##View = Name##T<const uint8_t>;                                                   \
  using Name##Ref = Name##T<uint8_t>;                                                          \
  inline constexpr FieldDesc k##Name##Fields[] = {LIST(TILEFW_CMD_DESC)};                      \
  static_assert(layout_is_sound(k##Name##Fields, BYTES), "bad layout table " #Name);

// Derived accessors shared by the DMA moves: 45-bit addresses (tag in bits 44:40), lane mask.
#define TILEFW_CMD_DMA_ADDRS                                                                   \
  constexpr uint64_t src_start_addr() const noexcept {                                        \
    return (uint64_t{this->src_start_addr_h13()} << 32) | this->src_start_addr_l32();          \
  }                                                                                            \
  constexpr uint64_t dst_start_addr() const noexcept {                                        \
    return (uint64_t{this->dst_start_addr_h13()} << 32) | this->dst_start_addr_l32();          \
  }                                                                                            \
  constexpr uint64_t localmem_mask() const noexcept {                                         \
    return (uint64_t{this->localmem_mask_h32()} << 32) | this->localmem_mask_l32();            \
  }

/// TIU 1024-bit long form (CONV, CONV_BW, PorD, MM, MM2, AR, RQ&DQ, CW&BC, SG, SGL, RAND, SFU,
/// LIN, CMP, VC).
TILEFW_CMD_DEFINE_LAYOUT(TiuLong, TILEFW_CMD_TIU_LONG_FIELDS, 128)
TILEFW_CMD_DEFINE_LAYOUT(SConv, TILEFW_CMD_SCONV_FIELDS, 64)
TILEFW_CMD_DEFINE_LAYOUT(SMm, TILEFW_CMD_SMM_FIELDS, 48)
/// sMM2: M = res0_c, N = res0_w, K = opd1_c (nn).
TILEFW_CMD_DEFINE_LAYOUT(SMm2, TILEFW_CMD_SMM2_FIELDS, 32)
TILEFW_CMD_DEFINE_LAYOUT(SAr, TILEFW_CMD_SAR_FIELDS, 64)
TILEFW_CMD_DEFINE_LAYOUT(SPorD, TILEFW_CMD_SPORD_FIELDS, 64)
TILEFW_CMD_DEFINE_LAYOUT(SCmp, TILEFW_CMD_SCMP_FIELDS, 48)
TILEFW_CMD_DEFINE_LAYOUT(SSfu, TILEFW_CMD_SSFU_FIELDS, 32)
TILEFW_CMD_DEFINE_LAYOUT(SVc, TILEFW_CMD_SVC_FIELDS, 48)
TILEFW_CMD_DEFINE_LAYOUT(SLin, TILEFW_CMD_SLIN_FIELDS, 32)
TILEFW_CMD_DEFINE_LAYOUT(SRqDq, TILEFW_CMD_SRQDQ_FIELDS, 32)
TILEFW_CMD_DEFINE_LAYOUT(SSg, TILEFW_CMD_SSG_FIELDS, 48)
TILEFW_CMD_DEFINE_LAYOUT(SSgl, TILEFW_CMD_SSGL_FIELDS, 48)
TILEFW_CMD_DEFINE_LAYOUT(SCwBc, TILEFW_CMD_SCWBC_FIELDS, 32)
/// LAR (tsk_typ 7): 16 B, no cmd_short and no cmd_id_dep.
TILEFW_CMD_DEFINE_LAYOUT(Lar, TILEFW_CMD_LAR_FIELDS, 16)
/// SYS_TR_ACC (tsk_typ 12): writes TIU global config registers; 3-bit tsk_eu_typ.
TILEFW_CMD_DEFINE_LAYOUT(SysTrAcc, TILEFW_CMD_SYS_TR_ACC_FIELDS, 16)
/// SYS (tsk_typ 15). send_msg/wait_msg (eu 8/9): msg_id = imm[8:0], cnt = imm[22:16].
TILEFW_CMD_DEFINE_LAYOUT(Sys, TILEFW_CMD_SYS_FIELDS, 16,
  constexpr uint32_t msg_id() const noexcept { return static_cast<uint32_t>(this->imm() & 0x1FF); }
  constexpr uint32_t msg_cnt() const noexcept { return static_cast<uint32_t>((this->imm() >> 16) & 0x7F); })
/// DMA 768-bit common layout: matrix, general, cw_transpose, reverse, randmask, transfer.
TILEFW_CMD_DEFINE_LAYOUT(DmaCommon, TILEFW_CMD_DMA_COMMON_FIELDS, 96, TILEFW_CMD_DMA_ADDRS)
/// DMA tensor (cmd_type 0): the common layout plus all_reduce_code.
TILEFW_CMD_DEFINE_LAYOUT(DmaTensor, TILEFW_CMD_DMA_TENSOR_FIELDS, 96, TILEFW_CMD_DMA_ADDRS)
TILEFW_CMD_DEFINE_LAYOUT(DmaMaskedSelect, TILEFW_CMD_DMA_MASKED_SELECT_FIELDS, 96,
  TILEFW_CMD_DMA_ADDRS
  constexpr uint64_t mask_start_addr() const noexcept {
    return (uint64_t{this->mask_start_addr_h13()} << 32) | this->mask_start_addr_l32();
  })
TILEFW_CMD_DEFINE_LAYOUT(DmaNonzero, TILEFW_CMD_DMA_NONZERO_FIELDS, 96, TILEFW_CMD_DMA_ADDRS)
/// DMA gather (7) / scatter (8): no n dimension, index tensor (BM1690 variant).
TILEFW_CMD_DEFINE_LAYOUT(DmaGatherScatter, TILEFW_CMD_DMA_GATHER_SCATTER_FIELDS, 96,
  TILEFW_CMD_DMA_ADDRS
  constexpr uint64_t index_start_addr() const noexcept {
    return (uint64_t{this->index_start_addr_h13()} << 32) | this->index_start_addr_l32();
  })
/// DMA compress/decompress/lossy_*: header only.
TILEFW_CMD_DEFINE_LAYOUT(DmaOpaque, TILEFW_CMD_DMA_OPAQUE_FIELDS, 96)
/// DMA sys (cmd_type 6, 16 B). send/wait (sp_func 3/4): msg_id = const[8:0], cnt = const[15:9].
TILEFW_CMD_DEFINE_LAYOUT(DmaSys, TILEFW_CMD_DMA_SYS_FIELDS, 16,
  constexpr uint32_t msg_id() const noexcept { return this->constant_value() & 0x1FF; }
  constexpr uint32_t msg_cnt() const noexcept { return (this->constant_value() >> 9) & 0x7F; })

/// Aliases by class, for readers who grep for the class name.
using DmaMatrixView = DmaCommonView;
using DmaGeneralView = DmaCommonView;

/// The field table of a class's layout (empty for CmdClass::none; CDMA tables: cdma_views.hpp).
Span<const FieldDesc> fields_of(CmdClass c) noexcept;

}  // namespace tilefw::cmd

// The CDMA layouts use the machinery above.
#include "tilefw/cmd/cdma_views.hpp"  // IWYU pragma: export
