// Zero-copy typed views over SG2260 CDMA commands (docs/sg2260-commands.md section 13.2): one
// X-macro layout per descriptor shape, with accessors named as the register definitions name
// the fields. Included by tilefw/cmd/views.hpp (it uses that header's layout machinery).
#pragma once

#include <cstdint>

// The 16-bit header every CDMA descriptor but recv, general, sys and tcp shares (section 13.1).
#define TILEFW_CMD_CDMA_HEADER(X)                                                                  \
  X(intr_en, 0, 1) X(stride_enable, 1, 1) X(nchw_copy, 2, 1) X(breakpoint, 3, 1) X(cmd_type, 4, 4) \
  X(cmd_special_function, 8, 3) X(fill_constant_en, 11, 1) X(src_data_format, 12, 4)

// send / lossy_compress / lossy_decompress and the fakes share this body (bits 16..255).
#define TILEFW_CMD_CDMA_SEND_BODY(X)                                                               \
  X(src_start_addr_h13, 16, 13) X(src_nstride, 32, 32) X(src_cstride, 64, 32)                      \
  X(src_hstride, 96, 32) X(src_nsize, 128, 16) X(src_csize, 144, 16) X(src_hsize, 160, 32)         \
  X(src_wsize, 192, 32) X(src_start_addr_l32, 224, 32)

#define TILEFW_CMD_CDMA_SEND_FIELDS(X) \
  TILEFW_CMD_CDMA_HEADER(X) TILEFW_CMD_CDMA_SEND_BODY(X) X(psum_op, 29, 3)

// The cmodel-only fakes: no psum_op, no breakpoint, a 3-bit data format; the 4-bit destination
// chip id is split over bits 3 (bit 0), 15 (bit 1) and 30..31 (bits 3:2).
#define TILEFW_CMD_CDMA_FAKE_FIELDS(X)                                                             \
  X(intr_en, 0, 1) X(stride_enable, 1, 1) X(nchw_copy, 2, 1) X(dst_chip_id_b0, 3, 1)               \
  X(cmd_type, 4, 4) X(cmd_special_function, 8, 3) X(fill_constant_en, 11, 1)                      \
  X(src_data_format, 12, 3) X(dst_chip_id_b1, 15, 1) X(dst_chip_id_b32, 30, 2)                     \
  TILEFW_CMD_CDMA_SEND_BODY(X)

// recv: bits 11..13 are the data format and 14..15 the paired send type (0 send, 1 lossy
// compress, 2 lossy decompress), both cmodel-only, where other types have fill_constant_en and
// src_data_format; bit 2 (nchw_copy elsewhere) is reserved.
#define TILEFW_CMD_CDMA_RECV_FIELDS(X)                                                             \
  X(intr_en, 0, 1) X(stride_enable, 1, 1) X(breakpoint, 3, 1) X(cmd_type, 4, 4)                    \
  X(cmd_special_function, 8, 3) X(data_format, 11, 3) X(send_type, 14, 2)                          \
  X(dst_start_addr_h13, 16, 13) X(reduce_op, 29, 3) X(dst_nstride, 32, 32) X(dst_cstride, 64, 32)  \
  X(dst_hstride, 96, 32) X(dst_nsize, 128, 16) X(dst_csize, 144, 16) X(dst_hsize, 160, 32)         \
  X(dst_wsize, 192, 32) X(dst_start_addr_l32, 224, 32)

// general: bit 1 is rcv_intr_en, bit 2 reserved; chip ids @45/@49 (cmodel only) lie above the
// 13-bit address high parts.
#define TILEFW_CMD_CDMA_GENERAL_FIELDS(X)                                                          \
  X(intr_en, 0, 1) X(rcv_intr_en, 1, 1) X(breakpoint, 3, 1) X(cmd_type, 4, 4)                      \
  X(cmd_special_function, 8, 3) X(fill_constant_en, 11, 1) X(src_data_format, 12, 4)              \
  X(src_start_addr_h13, 16, 13) X(dst_start_addr_h13, 32, 13) X(src_chip_id, 45, 4)                \
  X(dst_chip_id, 49, 4) X(cmd_length, 64, 32) X(src_start_addr_l32, 96, 32)                        \
  X(dst_start_addr_l32, 128, 32)

// read / write (64 B): each side its own strides and sizes; chip ids @45/@49 (cmodel only; read:
// remote src, local dst; write: local src, remote dst).
#define TILEFW_CMD_CDMA_READ_WRITE_FIELDS(X)                                                       \
  TILEFW_CMD_CDMA_HEADER(X)                                                                        \
  X(src_start_addr_h13, 16, 13) X(dst_start_addr_h13, 32, 13) X(src_chip_id, 45, 4)                \
  X(dst_chip_id, 49, 4) X(src_nstride, 64, 32) X(src_cstride, 96, 32) X(src_hstride, 128, 32)      \
  X(dst_nstride, 160, 32) X(dst_cstride, 192, 32) X(dst_hstride, 224, 32) X(src_nsize, 256, 16)    \
  X(src_csize, 272, 16) X(src_hsize, 288, 32) X(src_wsize, 320, 32) X(dst_nsize, 352, 16)          \
  X(dst_csize, 368, 16) X(dst_hsize, 384, 32) X(dst_wsize, 416, 32) X(src_start_addr_l32, 448, 32) \
  X(dst_start_addr_l32, 480, 32)

#define TILEFW_CMD_CDMA_SYS_FIELDS(X)                                                              \
  X(intr_en, 0, 1) X(breakpoint, 3, 1) X(cmd_type, 4, 4) X(cmd_special_function, 8, 3)             \
  X(constant_value_l32, 32, 32) X(constant_value_h32, 64, 32) X(reg_sel, 96, 4)

// tcp_send / tcp_recv (virtual NIC frames): bits 8..23 are buffer_length (no sp_func); the
// high address part is 8 bits, as the driver writes it.
#define TILEFW_CMD_CDMA_TCP_FIELDS(X)                                                              \
  X(intr_en, 0, 1) X(own, 1, 1) X(FD, 2, 1) X(LD, 3, 1) X(cmd_type, 4, 4)                          \
  X(buffer_length, 8, 16) X(breakpoint, 24, 1) X(frame_length, 32, 16) X(src_chip_id, 48, 4)       \
  X(dst_chip_id, 52, 4) X(buffer_addr_l32, 64, 32) X(buffer_addr_h8, 96, 8) X(cmd_id, 104, 24)

namespace tilefw::cmd {

#define TILEFW_CMD_CDMA_SRC_ADDR                                                                   \
  constexpr uint64_t src_start_addr() const noexcept {                                            \
    return (uint64_t{this->src_start_addr_h13()} << 32) | this->src_start_addr_l32();              \
  }
#define TILEFW_CMD_CDMA_DST_ADDR                                                                   \
  constexpr uint64_t dst_start_addr() const noexcept {                                            \
    return (uint64_t{this->dst_start_addr_h13()} << 32) | this->dst_start_addr_l32();              \
  }

/// send (0), lossy_compress (5), lossy_decompress (6): the source tensor of a transfer whose
/// destination a recv on the peer gives.
TILEFW_CMD_DEFINE_LAYOUT(CdmaSend, TILEFW_CMD_CDMA_SEND_FIELDS, 32, TILEFW_CMD_CDMA_SRC_ADDR)
/// fake_all_reduce (10) / fake_p2p (11), cmodel only: the send body, the destination chip id
/// split over three places.
TILEFW_CMD_DEFINE_LAYOUT(CdmaFake, TILEFW_CMD_CDMA_FAKE_FIELDS, 32, TILEFW_CMD_CDMA_SRC_ADDR
  constexpr uint32_t dst_chip_id() const noexcept {
    return this->dst_chip_id_b0() | (this->dst_chip_id_b1() << 1) | (this->dst_chip_id_b32() << 2);
  })
/// recv (4): the destination tensor, its reduce op, and the cmodel format / paired send type.
TILEFW_CMD_DEFINE_LAYOUT(CdmaRecv, TILEFW_CMD_CDMA_RECV_FIELDS, 32, TILEFW_CMD_CDMA_DST_ADDR)
/// general (3): a 1-D copy of cmd_length elements; with fill_constant_en the source address
/// low word is the constant.
TILEFW_CMD_DEFINE_LAYOUT(CdmaGeneral, TILEFW_CMD_CDMA_GENERAL_FIELDS, 32,
  TILEFW_CMD_CDMA_SRC_ADDR TILEFW_CMD_CDMA_DST_ADDR)
/// read (1: pull from the peer) / write (2: push to the peer), 64 B; with fill_constant_en a
/// write's src_nstride is the constant.
TILEFW_CMD_DEFINE_LAYOUT(CdmaReadWrite, TILEFW_CMD_CDMA_READ_WRITE_FIELDS, 64,
  TILEFW_CMD_CDMA_SRC_ADDR TILEFW_CMD_CDMA_DST_ADDR)
/// sys (7, 16 B). tx/rx send/wait (sp_func 3..6): msg_id = l32[8:0], cnt = l32[22:16];
/// sys_tr_wr (2): the value h32:l32 into the register reg_sel names.
TILEFW_CMD_DEFINE_LAYOUT(CdmaSys, TILEFW_CMD_CDMA_SYS_FIELDS, 16,
  constexpr uint64_t constant_value() const noexcept {
    return (uint64_t{this->constant_value_h32()} << 32) | this->constant_value_l32();
  }
  constexpr uint32_t msg_id() const noexcept { return this->constant_value_l32() & 0x1FF; }
  constexpr uint32_t msg_cnt() const noexcept { return (this->constant_value_l32() >> 16) & 0x7F; })
/// tcp_send (8) / tcp_recv (9), 16 B: decoded, never executed.
TILEFW_CMD_DEFINE_LAYOUT(CdmaTcp, TILEFW_CMD_CDMA_TCP_FIELDS, 16,
  constexpr uint64_t buffer_addr() const noexcept {
    return (uint64_t{this->buffer_addr_h8()} << 32) | this->buffer_addr_l32();
  })

}  // namespace tilefw::cmd
