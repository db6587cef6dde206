// tpu-mlir bmodel_dis names of every SG2260 command (see op_names.hpp). Tables are indexed by
// eu; nullptr = not defined for the class.

#include "tilefw/cmd/op_names.hpp"

#include <cstddef>

namespace tilefw::cmd {

namespace {
template <size_t N>
const char* pick(const char* const (&t)[N], uint32_t eu) noexcept {
  return eu < N && t[eu] != nullptr ? t[eu] : "unknown";
}

constexpr const char* kConv[] = {"conv.normal", "conv.bw", "conv.tf32", nullptr, "conv.bw.tf32"};
constexpr const char* kPorD[] = {"pord.depthwise",      "pord.avgpooling",     nullptr,
                                 "pord.minpooling",     "pord.maxpooling",     "pord.roi_depthwise",
                                 "pord.roi_avgpooling", "pord.roi_maxpooling", "pord.roi_minpooling"};
constexpr const char* kMm[] = {nullptr, "mm.normal", nullptr, nullptr, "mm2.nn", "mm2.nt", "mm2.tt", "mm2.tf32"};
constexpr const char* kAr[] = {
    "arith.mul",        "arith.not",         "arith.add",         "arith.sub",          "arith.max",
    "arith.min",        "arith.logic_shift", "arith.and",         "arith.or",           "arith.xor",
    "arith.select_great", "arith.select_equal", "arith.div",      "arith.select_less",  "arith.cast",
    "arith.add_satu",   "arith.sub_satu",    nullptr,             "arith.mac",          "arith.copy",
    "arith.mul_satu",   "arith.arith_shift", "arith.rotate_shift", "arith.mulDHR",      nullptr,
    nullptr,            "arith.abs",         "arith.fsub_abs",    "arith.copy_mb"};
constexpr const char* kRqDq[] = {"quant.rq0", "quant.rq1", nullptr, "quant.dq0", "quant.dq1"};
constexpr const char* kCwBc[] = {"tsbc.cw_ts", "tsbc.wc_ts", "tsbc.l_copy", "tsbc.l_bc", "tsbc.s_bc", "tsbc.s_distribute"};
constexpr const char* kSg[] = {
    "sg.pl_gather_d1coor", "sg.pl_gather_d2coor", nullptr, "sg.pl_scatter_d1coor", "sg.pl_scatter_d2coor",
    "sg.pe_s_gather_d1coor", "sg.pe_s_scatter_d1coor", nullptr, "sg.pe_s_mask_select", "sg.pe_s_nonzero",
    nullptr, nullptr, nullptr, "sg.pe_s_gather_hzd", "sg.pe_s_scatter_hzd", "sg.pe_s_mask_selhzd",
    "sg.pe_s_nonzero_hzd", "sgl.pe_s_gather_line", "sgl.pe_s_scatter_line"};
constexpr const char* kLar[] = {
    "lar.mul", "lar.not", "lar.add", "lar.sub", "lar.max", "lar.min", "lar.logic_shift",
    "lar.and", "lar.or", "lar.xor", "lar.select_gt", "lar.select_eq", "lar.div", "lar.select_lt",
    "lar.data_convert", "lar.add_satu", "lar.sub_satu", "lar.clamp", "lar.mac"};
constexpr const char* kRand[] = {"rand.prng", "rand.prng_with_intial_seed", "rand.prng_with_loaded_states"};
constexpr const char* kSfu[] = {nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                                nullptr, nullptr, nullptr, nullptr, "sfu.taylor_4x", "sfu.taylor", nullptr,
                                "sfu.normalize", nullptr, "sfu.rsqrt"};
constexpr const char* kLin[] = {nullptr, "lin.mac", nullptr, nullptr, nullptr, nullptr, nullptr,
                                nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                                nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                                "lin.square_sum", "lin.square_diff"};
constexpr const char* kCmp[] = {nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                                nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                                nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                                "cmp.gt_and_sel_gt", "cmp.sel_gt", "cmp.sel_eq", "cmp.lt_and_sel_lt",
                                "cmp.sel_lt", "cmp.srch_bin"};
constexpr const char* kVc[] = {
    "vc.mul", nullptr, "vc.add", "vc.sub", "vc.max", "vc.min", nullptr, "vc.and", "vc.or", "vc.xor",
    "vc.select_gt", "vc.select_eq", "vc.div", "vc.select_lt", nullptr, "vc.add_satu", "vc.sub_satu",
    nullptr, nullptr, nullptr, "vc.mul_satu", nullptr, nullptr, "vc.mulDHR"};
constexpr const char* kSys[] = {
    "system.intr_barrier", "system.spb", "system.swr", "system.swr_from_lmm",
    "system.swr_collect_from_lmm", "system.data_barrier", nullptr, nullptr, "system.send_msg",
    "system.wait_msg", "system.fork", "system.join", "system.exit", nullptr, nullptr, nullptr,
    nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
    nullptr, nullptr, nullptr, nullptr, "system.nop", "system.end"};
constexpr const char* kDmaTensor[] = {"dma.tensor", "dma.tensor.transpose", "dma.tensor.collect",
                                      "dma.tensor.broadcast", "dma.tensor.distribute"};
constexpr const char* kDmaMatrix[] = {"dma.matrix", "dma.matrix.transpose"};
constexpr const char* kDmaMaskedSelect[] = {"dma.masked_select", "dma.masked_select.ncw"};
constexpr const char* kDmaGeneral[] = {"dma.general", "dma.general.broadcast"};
constexpr const char* kDmaSys[] = {"dma.sys.chain_end", "dma.sys.nop", "dma.sys.sys_tr_wr", "dma.sys.sys_send",
                                   "dma.sys.sys_wait", "dma.sys_fork", "dma.sys_join", "dma.sys_exit"};
constexpr const char* kDmaScatter[] = {"dma.scatter.inplace", "dma.scatter.add"};
constexpr const char* kDmaReverse[] = {"dma.reverse.w", "dma.reverse.h", "dma.reverse.c", "dma.reverse.n"};
constexpr const char* kDmaCompress[] = {"dma.compress.non_random_access", "dma.compress.random_access"};
constexpr const char* kDmaDecompress[] = {"dma.decompress.non_random_access", "dma.decompress.random_access"};
constexpr const char* kDmaLossyCompress[] = {"dma.lossy_compress.non_random_access",
                                             "dma.lossy_compress.random_access"};
constexpr const char* kDmaLossyDecompress[] = {"dma.lossy_decompress.non_random_access",
                                               "dma.lossy_decompress.random_access"};
constexpr const char* kDmaRandmask[] = {"dma.randmask",           "dma.randmask.transpose",
                                        "dma.randmask.collect",   "dma.randmask.broadcast",
                                        "dma.randmask.distribute", "dma.randmask.lmem_4bank_cp",
                                        "dma.randmask.lmem_4bank_bc"};
// CDMA, in the BM1690 debugger's style (class "CDMA_<type>", sys "sCDMA_sys.<sub-type>");
// the classes it does not list (lossy, tcp, the cmodel fakes) follow the same pattern.
constexpr const char* kCdmaSys[] = {"sCDMA_sys.chain_end",   "sCDMA_sys.nop",         "sCDMA_sys.sys_tr_wr",
                                    "sCDMA_sys.tx_send_msg", "sCDMA_sys.tx_wait_msg", "sCDMA_sys.rx_send_msg",
                                    "sCDMA_sys.rx_wait_msg"};
const char* cdma_op_name(CmdClass c, uint32_t eu) noexcept {
  if (c == CmdClass::cdma_sys) return pick(kCdmaSys, eu);
  if (c == CmdClass::cdma_tcp_send) return "CDMA_tcp_send";  // bits 8..10: buffer_length
  if (c == CmdClass::cdma_tcp_recv) return "CDMA_tcp_recv";
  if (eu != 0) return "unknown";
  switch (c) {
    case CmdClass::cdma_send: return "CDMA_send";
    case CmdClass::cdma_read: return "CDMA_read";
    case CmdClass::cdma_write: return "CDMA_write";
    case CmdClass::cdma_general: return "CDMA_general";
    case CmdClass::cdma_recv: return "CDMA_receive";
    case CmdClass::cdma_lossy_compress: return "CDMA_lossy_compress";
    case CmdClass::cdma_lossy_decompress: return "CDMA_lossy_decompress";
    case CmdClass::cdma_fake_all_reduce: return "CDMA_fake_all_reduce";
    case CmdClass::cdma_fake_p2p: return "CDMA_fake_p2p";
    default: return "unknown";
  }
}
}  // namespace

const char* op_name(CmdClass c, uint32_t eu) noexcept {
  switch (c) {
    case CmdClass::CONV: case CmdClass::CONV_BW: case CmdClass::sCONV: return pick(kConv, eu);
    case CmdClass::PorD: case CmdClass::sPorD: return pick(kPorD, eu);
    case CmdClass::MM: case CmdClass::MM2: case CmdClass::sMM: case CmdClass::sMM2: return pick(kMm, eu);
    case CmdClass::AR: case CmdClass::sAR: return pick(kAr, eu);
    case CmdClass::RQ_DQ: case CmdClass::sRQ_sDQ: return pick(kRqDq, eu);
    case CmdClass::CW_BC: case CmdClass::sCW_sBC: return pick(kCwBc, eu);
    case CmdClass::SG: case CmdClass::SGL: case CmdClass::sSG: case CmdClass::sSGL: return pick(kSg, eu);
    case CmdClass::LAR: return pick(kLar, eu);
    case CmdClass::RAND: return pick(kRand, eu);
    case CmdClass::SFU: case CmdClass::sSFU: return pick(kSfu, eu);
    case CmdClass::LIN: case CmdClass::sLIN: return pick(kLin, eu);
    case CmdClass::CMP: case CmdClass::sCMP: return pick(kCmp, eu);
    case CmdClass::VC: case CmdClass::sVC: return pick(kVc, eu);
    case CmdClass::SYS_TR_ACC: return eu == 0 ? "system_tr_wr.wr_imm" : "unknown";
    case CmdClass::SYS: return pick(kSys, eu);
    case CmdClass::dma_tensor: return pick(kDmaTensor, eu);
    case CmdClass::dma_matrix: return pick(kDmaMatrix, eu);
    case CmdClass::dma_masked_select: return pick(kDmaMaskedSelect, eu);
    case CmdClass::dma_general: return pick(kDmaGeneral, eu);
    case CmdClass::dma_cw_transpose: return eu == 0 ? "dma.cw_transpose" : "unknown";
    case CmdClass::dma_nonzero: return eu == 0 ? "dma.nonzero" : "unknown";
    case CmdClass::dma_sys: return pick(kDmaSys, eu);
    case CmdClass::dma_gather: return eu == 0 ? "gdma.gather" : "unknown";
    case CmdClass::dma_scatter: return pick(kDmaScatter, eu);
    case CmdClass::dma_reverse: return pick(kDmaReverse, eu);
    case CmdClass::dma_compress: return pick(kDmaCompress, eu);
    case CmdClass::dma_decompress: return pick(kDmaDecompress, eu);
    case CmdClass::dma_lossy_compress: return pick(kDmaLossyCompress, eu);
    case CmdClass::dma_lossy_decompress: return pick(kDmaLossyDecompress, eu);
    case CmdClass::dma_randmask: return pick(kDmaRandmask, eu);
    case CmdClass::dma_transfer: return eu == 0 ? "dma.transfer" : "unknown";
    case CmdClass::cdma_send: case CmdClass::cdma_read: case CmdClass::cdma_write:
    case CmdClass::cdma_general: case CmdClass::cdma_recv: case CmdClass::cdma_lossy_compress:
    case CmdClass::cdma_lossy_decompress: case CmdClass::cdma_sys: case CmdClass::cdma_tcp_send:
    case CmdClass::cdma_tcp_recv: case CmdClass::cdma_fake_all_reduce:
    case CmdClass::cdma_fake_p2p: return cdma_op_name(c, eu);
    case CmdClass::none: return "unknown";
  }
  return "unknown";
}

}  // namespace tilefw::cmd
