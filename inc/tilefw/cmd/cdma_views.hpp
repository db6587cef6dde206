// Typed views over SG2260 CDMA commands (docs/sg2260-commands.md section 13.2), named as the
// firmware's register definitions name the fields. Included by tilefw/cmd/views.hpp, whose
// layout machinery they use; the CDMA rules are in tilefw/cmd/cdma.hpp.
#pragma once

// Bits 0..15 of send, read, write, general and the lossy sends.
#define TILEFW_CMD_CDMA_HEADER(X)                                                                  \
  X(intr_en, 0, 1) X(stride_enable, 1, 1) X(nchw_copy, 2, 1) X(breakpoint, 3, 1) X(cmd_type, 4, 4) \
  X(cmd_special_function, 8, 3) X(fill_constant_en, 11, 1) X(src_data_format, 12, 4)

#define TILEFW_CMD_CDMA_SEND_FIELDS(X)                                                             \
  TILEFW_CMD_CDMA_HEADER(X)                                                                        \
  X(src_start_addr_h13, 16, 13) X(psum_op, 29, 3) X(src_nstride, 32, 32) X(src_cstride, 64, 32)    \
  X(src_hstride, 96, 32) X(src_nsize, 128, 16) X(src_csize, 144, 16) X(src_hsize, 160, 32)         \
  X(src_wsize, 192, 32) X(src_start_addr_l32, 224, 32)

// The recv reuses bits 11..15 for the cmodel's data format and paired send type.
#define TILEFW_CMD_CDMA_RECV_FIELDS(X)                                                             \
  X(intr_en, 0, 1) X(stride_enable, 1, 1) X(nchw_copy, 2, 1) X(breakpoint, 3, 1) X(cmd_type, 4, 4) \
  X(cmd_special_function, 8, 3) X(recv_data_format, 11, 3) X(send_type, 14, 2)                     \
  X(dst_start_addr_h13, 16, 13) X(reduce_op, 29, 3) X(dst_nstride, 32, 32) X(dst_cstride, 64, 32)  \
  X(dst_hstride, 96, 32) X(dst_nsize, 128, 16) X(dst_csize, 144, 16) X(dst_hsize, 160, 32)         \
  X(dst_wsize, 192, 32) X(dst_start_addr_l32, 224, 32)

#define TILEFW_CMD_CDMA_GENERAL_FIELDS(X)                                                          \
  TILEFW_CMD_CDMA_HEADER(X)                                                                        \
  X(src_start_addr_h13, 16, 13) X(dst_start_addr_h13, 32, 13) X(src_chip_id, 45, 4)                \
  X(dst_chip_id, 49, 4) X(cmd_length, 64, 32) X(src_start_addr_l32, 96, 32)                       \
  X(dst_start_addr_l32, 128, 32)

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

// tcp_send / tcp_recv: frames of the virtual NIC; bits 8..23 are the buffer length (there is
// no cmd_special_function).
#define TILEFW_CMD_CDMA_TCP_FIELDS(X)                                                              \
  X(intr_en, 0, 1) X(own, 1, 1) X(fd, 2, 1) X(ld, 3, 1) X(cmd_type, 4, 4) X(buffer_length, 8, 16)  \
  X(breakpoint, 24, 1) X(frame_length, 32, 16) X(buffer_addr_l32, 64, 32)                          \
  X(buffer_addr_h8, 96, 8) X(cmd_id, 104, 24)

// FAKE_ALL_REDUCE / FAKE_P2P (cmodel only): the send layout without psum_op, the destination
// chip id split over bits 3, 15 and 30..31.
#define TILEFW_CMD_CDMA_FAKE_FIELDS(X)                                                             \
  X(intr_en, 0, 1) X(stride_enable, 1, 1) X(nchw_copy, 2, 1) X(dst_chip_id_b0, 3, 1)               \
  X(cmd_type, 4, 4) X(cmd_special_function, 8, 3) X(fill_constant_en, 11, 1)                       \
  X(src_data_format, 12, 3) X(dst_chip_id_b1, 15, 1) X(src_start_addr_h13, 16, 13)                 \
  X(dst_chip_id_b32, 30, 2) X(src_nstride, 32, 32) X(src_cstride, 64, 32) X(src_hstride, 96, 32)   \
  X(src_nsize, 128, 16) X(src_csize, 144, 16) X(src_hsize, 160, 32) X(src_wsize, 192, 32)          \
  X(src_start_addr_l32, 224, 32)

#define TILEFW_CMD_CDMA_SRC_ADDR                                                               \
  constexpr uint64_t src_start_addr() const noexcept {                                        \
    return (uint64_t{this->src_start_addr_h13()} << 32) | this->src_start_addr_l32();          \
  }
#define TILEFW_CMD_CDMA_DST_ADDR                                                               \
  constexpr uint64_t dst_start_addr() const noexcept {                                        \
    return (uint64_t{this->dst_start_addr_h13()} << 32) | this->dst_start_addr_l32();          \
  }

namespace tilefw::cmd {

/// send, lossy_compress, lossy_decompress (32 B).
TILEFW_CMD_DEFINE_LAYOUT(CdmaSend, TILEFW_CMD_CDMA_SEND_FIELDS, 32, TILEFW_CMD_CDMA_SRC_ADDR)
/// recv (32 B): the destination, packed into the credit the sender receives.
TILEFW_CMD_DEFINE_LAYOUT(CdmaRecv, TILEFW_CMD_CDMA_RECV_FIELDS, 32, TILEFW_CMD_CDMA_DST_ADDR)
/// general (32 B): a 1-D copy of cmd_length elements.
TILEFW_CMD_DEFINE_LAYOUT(CdmaGeneral, TILEFW_CMD_CDMA_GENERAL_FIELDS, 32, TILEFW_CMD_CDMA_SRC_ADDR
                         TILEFW_CMD_CDMA_DST_ADDR)
/// read / write (64 B): each side with its own shape and strides.
TILEFW_CMD_DEFINE_LAYOUT(CdmaReadWrite, TILEFW_CMD_CDMA_READ_WRITE_FIELDS, 64, TILEFW_CMD_CDMA_SRC_ADDR
                         TILEFW_CMD_CDMA_DST_ADDR)
/// sys (16 B). tx/rx send/wait (sp_func 3..6): msg_id = constant_value_l32[8:0], cnt = [22:16].
TILEFW_CMD_DEFINE_LAYOUT(CdmaSys, TILEFW_CMD_CDMA_SYS_FIELDS, 16,
  constexpr uint32_t msg_id() const noexcept { return this->constant_value_l32() & 0x1FF; }
  constexpr uint32_t msg_cnt() const noexcept { return (this->constant_value_l32() >> 16) & 0x7F; })
/// tcp_send / tcp_recv (16 B): the header only (the executor refuses them).
TILEFW_CMD_DEFINE_LAYOUT(CdmaTcp, TILEFW_CMD_CDMA_TCP_FIELDS, 16)
/// fake_all_reduce / fake_p2p (32 B, cmodel only).
TILEFW_CMD_DEFINE_LAYOUT(CdmaFake, TILEFW_CMD_CDMA_FAKE_FIELDS, 32, TILEFW_CMD_CDMA_SRC_ADDR
  constexpr uint32_t dst_chip_id() const noexcept {
    return this->dst_chip_id_b0() | (this->dst_chip_id_b1() << 1) | (this->dst_chip_id_b32() << 2);
  })

}  // namespace tilefw::cmd
