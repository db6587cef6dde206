// Reader of tpu-mlir `.bmodel` files (host only, untrusted input).
//
// Container: a 64-byte header (u32 magic 0xFF55AAEE, u32 header_size, u32 flatbuffers_size,
// u32 binary_size, reserved), a FlatBuffer of libsophon's model schema at header_size, then the
// blob every `Binary {u64 start, u64 size}` points into. The schema facts this reader relies on
// (field ids checked against the two real BM1690 models in vectors/sg2260-tdb):
//   Model        0 type, 1 version, 2 time, 3 chip (strings), 4 net [Net], 5 neuron_size u64
//   Net          0 name, 3 parameter [NetParameter]
//   NetParameter 0 input_tensor, 1 output_tensor [Tensor], 2 ctx_addr u64, 3 ctx_size u64,
//                4 coeff_mem CoeffMem, 5 is_dynamic u32, 8 cmd_group [CmdGroup],
//                12 sub_net [SubNet], 16 core_num u32
//   SubNet       1 cmd_group [CmdGroup], 5 is_dynamic bool, 9 id i32, 14 core_commands [CoreCommands]
//   CoreCommands 0 gdma_tiu_commands [CmdGroup], 1 sdma_commands, 2 hau_commands,
//                3 cdma_commands ([Binary])
//   CmdGroup     0 bdc_num u32, 1 gdma_num u32, 2 binary_bdc Binary, 3 binary_gdma Binary
//   CoeffMem     0 address u64, 2 binary_coeff Binary
//   Tensor       0 name, 1 data_type u32, 3 device_addr u64, 4 size u64, 5 shape [Shape]
//   Shape        0 dim [i64]
// Every table, vtable, vector, string and Binary is checked against the bytes before use; the
// first violation stops the read with a message naming the field (e.g.
// "net[0].parameter[0].sub_net[0].core_commands[3].hau_commands[0]: Binary outside the blob").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tilefw/base/span.hpp"

namespace tilefw::tools {

/// One command stream of one core: its bytes inside the file and where they start.
struct BmodelStream {
  ConstByteSpan bytes;
  size_t file_offset = 0;  // offset of the first byte in the .bmodel file
  bool present() const { return !bytes.empty(); }
};

/// The streams of one core (one command group). Absent engines have empty bytes.
struct BmodelCore {
  BmodelStream tiu, gdma, sdma, hau;
  /// `cdma_commands`: every CDMA port stream the core's group carries, in file order. A
  /// bmodel does not say which peer chip a port talks to, so these are read, dumped and
  /// validated per stream (no pairing) but never run.
  std::vector<BmodelStream> cdma;
  uint32_t bdc_num = 0, gdma_num = 0;  // counts the model declares (informative)
};

struct BmodelTensor {
  std::string name;
  uint32_t data_type = 0;  // bmodel data type code (0 f32, 1 f16, 2 i8, 3 u8, 4 i16, 5 u16, 6 i32, 7 u32, 8 bf16)
  uint64_t device_addr = 0;
  uint64_t size = 0;
  std::vector<int64_t> shape;
};

/// What `tilefw` needs of a bmodel: the first net's first parameter and its first subnet.
struct Bmodel {
  std::string chip;
  std::string net_name;
  /// Every (net, parameter, subnet) beyond the one read, as "net <name> parameter <i> subnet <j>".
  std::vector<std::string> others;
  uint64_t neuron_size = 0, ctx_addr = 0, ctx_size = 0;
  bool has_coeff = false;
  uint64_t coeff_addr = 0;
  ConstByteSpan coeff;  // empty when the model ships no weights
  uint64_t coeff_size = 0;  // bytes the coeff region spans (the Binary's size)
  std::vector<BmodelTensor> inputs, outputs;
  std::vector<BmodelCore> cores;  // one per core; single-core cmd_group layouts give one
  uint32_t groups = 1;  // command groups per core (only 1 can be run)
};

/// Parses `file` (the whole .bmodel). False with `error` naming the field on any violation;
/// `out` is then unspecified. Never reads outside `file`.
bool parse_bmodel(ConstByteSpan file, Bmodel& out, std::string& error);

/// True when the bytes start with the bmodel magic (used to tell a .bmodel from a raw buffer).
bool looks_like_bmodel(ConstByteSpan file);

}  // namespace tilefw::tools

namespace tilefw::tools {

/// One stream of a model as dump/validate list it: per core, tiu, gdma, sdma, hau, then each
/// cdma stream (engines without a stream are left out).
struct BmodelUnit {
  uint32_t core = 0;
  const char* engine = "";  // "tiu", "gdma", "sdma", "hau", "cdma"
  BmodelStream stream;
  uint32_t index = 0;  // cdma: the position in cdma_commands
};
std::vector<BmodelUnit> bmodel_units(const Bmodel& m);
/// What the model holds, for dump and validate to say: "8 cores; streams: 8 tiu, 8 gdma, 8
/// sdma, 8 hau, 0 cdma" (CDMA streams are read, dumped and validated, never skipped).
std::string bmodel_contents(const Bmodel& m);

}  // namespace tilefw::tools
