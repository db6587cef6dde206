// SG2260 execution, the TIU global config registers (TGCR) and SYS_TR_ACC, the command that
// writes them. The requantising CONV reads its kernel zero point (T5) and its requant
// parameter address (T6) there (docs/sg2260-commands.md section 15, "requantising CONV").
//
// The registers are state of the core's TIU that outlives one command, and execute_command
// only gets the machine: they live in a register window of their own that the simulator adds
// to the machine on first use (one block of kTgcrWords 32-bit words per core, outside every
// memory region and the chip's register space, so no DMA or engine register reaches them).
// Registers never written read 0 (a tilefw decision: no source gives their reset value).
#include <string>

#include "sg2260/exec_common.hpp"
#include "tilefw/cmd/views.hpp"

namespace tilefw::port::host::sg2260::exec {

namespace {

// reg_idx fields are 8 bits wide.
constexpr uint32_t kTgcrWords = 256;
constexpr uint64_t kTgcrWindowBase = 0x7200'0000'0000ull;  // between the SMEM windows and DDR
constexpr chip::RegisterWindow kTgcrWindow{"sg2260-tgcr", kTgcrWindowBase, sg::kCores * kTgcrWords * 4};

uint64_t tgcr_address(uint32_t core, uint32_t idx) {
  return kTgcrWindowBase + (uint64_t{core} * kTgcrWords + (idx % kTgcrWords)) * 4;
}

// Adds the window once; later calls find it there (add_register_window refuses an overlap).
void ensure_window(Machine& m) { (void)m.add_register_window(kTgcrWindow); }

}  // namespace

uint32_t tgcr_read(const Ctx& x, uint32_t idx) {
  ensure_window(x.m);
  return x.m.read32(tgcr_address(x.core, idx));
}

void tgcr_write(const Ctx& x, uint32_t idx, uint32_t value) {
  ensure_window(x.m);
  x.m.write32(tgcr_address(x.core, idx), value);
}

// SYS_TR_ACC eu 0 (wr_imm): TGCR[reg_idx0] = imm0, TGCR[reg_idx1] = the high 32 bits of imm1,
// TGCR[reg_idx2] = its low 32 bits (the vendor debugger's reading of the command). Real
// commands name register 127 for the values they do not mean to write; it is written like
// any other (nothing reads it).
Status exec_sys_tr_acc(const Ctx& x, uint32_t eu, const uint8_t* data, std::string& msg) {
  if (eu != 0) return unsupported(msg, "SYS_TR_ACC eu " + std::to_string(eu) + " (only wr_imm, 0, is defined)");
  const cmd::SysTrAccView v(data);
  const uint64_t imm1 = v.imm1();
  tgcr_write(x, static_cast<uint32_t>(v.reg_idx0()), static_cast<uint32_t>(v.imm0()));
  tgcr_write(x, static_cast<uint32_t>(v.reg_idx1()), static_cast<uint32_t>(imm1 >> 32));
  tgcr_write(x, static_cast<uint32_t>(v.reg_idx2()), static_cast<uint32_t>(imm1));
  return Status::ok;
}

}  // namespace tilefw::port::host::sg2260::exec
