// .bmodel reader: a bounds-checked FlatBuffer table reader (every offset checked before the
// read, the first violation thrown as BmodelError naming the field path) and the walk of the
// model schema described in bmodel.hpp.
#include "formats/bmodel.hpp"

#include <cstring>
#include <stdexcept>

#include "tilefw/chip/sg2260.hpp"

namespace tilefw::tools {

namespace {

constexpr uint32_t kMagic = 0xFF55AAEEu;
constexpr size_t kHeaderBytes = 64;
// Bounds that keep a hostile file from making the reader loop for long: no real model comes
// near them (the two BM1690 models have 1 net, 8 cores, 1 group per core).
constexpr uint32_t kMaxVector = 1u << 20;
// Bounds of what one model may name, so that list entries sharing one FlatBuffers object cannot
// multiply the reader's work: names, input/output tensors, nets, and the parts not run.
constexpr uint32_t kMaxString = 4096;
constexpr uint32_t kMaxTensors = 4096;
constexpr uint32_t kMaxNets = 4096;
constexpr size_t kMaxOthersListed = 64;

struct BmodelError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Names a field in an error message; the string is only built when an error is thrown, so a
/// valid model costs no string work per field read.
struct Where {
  Where(const std::string& s) : base(&s) {}  // NOLINT: a path string is a Where
  Where(const std::string& s, const char* n) : base(&s), name(n) {}
  const std::string* base;
  const char* name = nullptr;
  std::string str() const { return name == nullptr ? *base : *base + "." + name; }
};

[[noreturn]] void fail(const Where& where, const std::string& why) { throw BmodelError(where.str() + ": " + why); }
[[noreturn]] void fail(const char* where, const std::string& why) { throw BmodelError(std::string(where) + ": " + why); }

/// The FlatBuffer region; every accessor checks its bytes.
class Fb {
 public:
  explicit Fb(ConstByteSpan b) : b_(b) {}

  uint32_t u32(size_t pos, const Where& path) const {
    need(pos, 4, path);
    uint32_t v;
    std::memcpy(&v, b_.data() + pos, 4);
    return v;
  }
  uint64_t u64(size_t pos, const Where& path) const {
    need(pos, 8, path);
    uint64_t v;
    std::memcpy(&v, b_.data() + pos, 8);
    return v;
  }
  uint16_t u16(size_t pos, const Where& path) const {
    need(pos, 2, path);
    uint16_t v;
    std::memcpy(&v, b_.data() + pos, 2);
    return v;
  }
  /// Follows the uoffset stored at `pos`.
  size_t deref(size_t pos, const Where& path) const {
    const uint64_t target = uint64_t{pos} + u32(pos, path);
    if (target >= b_.size()) fail(path, "offset points outside the FlatBuffer");
    return static_cast<size_t>(target);
  }
  void need(size_t pos, size_t n, const Where& path) const {
    if (pos > b_.size() || n > b_.size() - pos) fail(path, "outside the FlatBuffer");
  }
  ConstByteSpan bytes(size_t pos, size_t n) const { return ConstByteSpan(b_.data() + pos, n); }

 private:
  ConstByteSpan b_;
};

/// One table: its position, its vtable, and typed field reads (absent field = default).
class Table {
 public:
  Table(const Fb& fb, size_t pos, std::string path) : fb_(&fb), pos_(pos), path_(std::move(path)) {
    int32_t soff;
    const uint32_t raw = fb.u32(pos, path_);
    std::memcpy(&soff, &raw, 4);
    const int64_t vt = static_cast<int64_t>(pos) - soff;
    if (vt < 0) fail(path_, "vtable offset points before the FlatBuffer");
    vt_ = static_cast<size_t>(vt);
    vlen_ = fb.u16(vt_, path_ + " (vtable)");
    tlen_ = fb.u16(vt_ + 2, path_ + " (vtable)");
    if (vlen_ < 4 || vlen_ % 2 != 0) fail(path_, "malformed vtable length");
    fb.need(vt_, vlen_, path_ + " (vtable)");
    if (tlen_ < 4) fail(path_, "malformed table length");
    fb.need(pos_, tlen_, path_);
  }
  const std::string& path() const { return path_; }
  Where at(const char* name) const { return Where(path_, name); }

  /// Position of field `id` of `width` bytes, or 0 when absent.
  size_t field(unsigned id, size_t width, const char* name) const {
    const size_t slot = 4 + 2 * size_t{id};
    if (slot + 2 > vlen_) return 0;
    const uint16_t off = fb_->u16(vt_ + slot, path_);
    if (off == 0) return 0;
    if (size_t{off} + width > tlen_) fail(at(name), "field outside its table");
    return pos_ + off;
  }
  uint32_t u32(unsigned id, const char* name, uint32_t def = 0) const {
    const size_t p = field(id, 4, name);
    return p == 0 ? def : fb_->u32(p, at(name));
  }
  uint64_t u64(unsigned id, const char* name) const {
    const size_t p = field(id, 8, name);
    return p == 0 ? 0 : fb_->u64(p, at(name));
  }
  bool flag(unsigned id, const char* name) const {
    const size_t p = field(id, 1, name);
    if (p == 0) return false;
    fb_->need(p, 1, at(name));
    return fb_->bytes(p, 1)[0] != 0;
  }
  std::string str(unsigned id, const char* name) const {
    const size_t p = field(id, 4, name);
    if (p == 0) return "";
    const size_t s = fb_->deref(p, at(name));
    const uint32_t n = fb_->u32(s, at(name));
    // Names are short; one shared long string named by every entry of a long list would
    // otherwise be copied once per entry (a 4 MB file costing gigabytes).
    if (n > kMaxString) fail(at(name), "string of " + std::to_string(n) + " bytes (at most " + std::to_string(kMaxString) + ")");
    fb_->need(s + 4, n, at(name));
    const ConstByteSpan b = fb_->bytes(s + 4, n);
    return std::string(reinterpret_cast<const char*>(b.data()), b.size());
  }
  /// A vector field: (count, position of element 0); count 0 when absent.
  std::pair<uint32_t, size_t> vec(unsigned id, size_t elem, const char* name) const {
    const size_t p = field(id, 4, name);
    if (p == 0) return {0, 0};
    const size_t v = fb_->deref(p, at(name));
    const uint32_t n = fb_->u32(v, at(name));
    if (n > kMaxVector) fail(at(name), "vector longer than 2^20 elements");
    fb_->need(v + 4, size_t{n} * elem, at(name));
    return {n, v + 4};
  }
  /// Element i of a vector of tables.
  Table table_at(std::pair<uint32_t, size_t> v, uint32_t i, const char* name) const {
    const std::string p = at(name).str() + "[" + std::to_string(i) + "]";
    return Table(*fb_, fb_->deref(v.second + 4 * size_t{i}, p), p);
  }
  /// A sub-table field; false when absent.
  bool sub(unsigned id, const char* name, Table* out) const {
    const size_t p = field(id, 4, name);
    if (p == 0) return false;
    *out = Table(*fb_, fb_->deref(p, at(name)), at(name).str());
    return true;
  }
  const Fb& fb() const { return *fb_; }

 private:
  const Fb* fb_;
  size_t pos_ = 0, vt_ = 0;
  uint16_t vlen_ = 0, tlen_ = 0;
  std::string path_;
};

/// Binary {u64 start, u64 size} into the blob. Size 0 = no stream (its start may equal the
/// blob size).
struct Blob {
  ConstByteSpan bytes;
  size_t file_offset = 0;
  BmodelStream stream(const Fb& fb, size_t pos, const std::string& path) const {
    const uint64_t start = fb.u64(pos, Where(path, "start"));
    const uint64_t size = fb.u64(pos + 8, Where(path, "size"));
    BmodelStream s;
    if (size == 0) return s;
    if (start > bytes.size() || size > bytes.size() - start) {
      fail(path, "Binary {start " + std::to_string(start) + ", size " + std::to_string(size) +
                     "} outside the blob of " + std::to_string(bytes.size()) + " bytes");
    }
    s.bytes = ConstByteSpan(bytes.data() + start, static_cast<size_t>(size));
    s.file_offset = file_offset + static_cast<size_t>(start);
    return s;
  }
};

BmodelCore read_group(const Table& g, const Blob& blob) {
  BmodelCore c;
  c.bdc_num = g.u32(0, "bdc_num");
  c.gdma_num = g.u32(1, "gdma_num");
  if (size_t p = g.field(2, 16, "binary_bdc")) c.tiu = blob.stream(g.fb(), p, g.at("binary_bdc").str());
  if (size_t p = g.field(3, 16, "binary_gdma")) c.gdma = blob.stream(g.fb(), p, g.at("binary_gdma").str());
  return c;
}

/// The one Binary of an engine's [Binary] vector (more than one is refused: no model has it).
BmodelStream engine_binary(const Table& cc, unsigned id, const char* name, const Blob& blob) {
  const auto v = cc.vec(id, 16, name);
  if (v.first == 0) return {};
  if (v.first > 1) fail(cc.at(name), std::to_string(v.first) + " buffers; tilefw reads one per core");
  const std::string path = cc.at(name).str() + "[0]";
  return blob.stream(cc.fb(), v.second, path);
}

/// Every Binary of an engine's [Binary] vector (CDMA: one per port the core drives, at most
/// the chip's 10 ports).
std::vector<BmodelStream> engine_binaries(const Table& cc, unsigned id, const char* name, const Blob& blob) {
  const auto v = cc.vec(id, 16, name);
  constexpr uint32_t kMaxPorts = 10;
  if (v.first > kMaxPorts) {
    fail(cc.at(name), std::to_string(v.first) + " buffers; an SG2260 has " + std::to_string(kMaxPorts) + " CDMA ports");
  }
  std::vector<BmodelStream> out;
  for (uint32_t i = 0; i < v.first; ++i) {
    const std::string path = cc.at(name).str() + "[" + std::to_string(i) + "]";
    BmodelStream s = blob.stream(cc.fb(), v.second + 16 * size_t{i}, path);
    if (s.present()) out.push_back(s);
  }
  return out;
}

BmodelTensor read_tensor(const Table& t) {
  BmodelTensor x;
  x.name = t.str(0, "name");
  x.data_type = t.u32(1, "data_type");
  x.device_addr = t.u64(3, "device_addr");
  x.size = t.u64(4, "size");
  const auto shapes = t.vec(5, 4, "shape");
  if (shapes.first > 0) {
    const Table s = t.table_at(shapes, 0, "shape");
    const auto dims = s.vec(0, 8, "dim");
    for (uint32_t i = 0; i < dims.first && i < 16; ++i) {
      x.shape.push_back(static_cast<int64_t>(t.fb().u64(dims.second + 8 * size_t{i}, s.at("dim"))));
    }
  }
  return x;
}

void read_tensors(const Table& p, unsigned id, const char* name, std::vector<BmodelTensor>& out) {
  const auto v = p.vec(id, 4, name);
  if (v.first > kMaxTensors) {
    fail(p.at(name), std::to_string(v.first) + " tensors (at most " + std::to_string(kMaxTensors) + ")");
  }
  for (uint32_t i = 0; i < v.first; ++i) out.push_back(read_tensor(p.table_at(v, i, name)));
}

void read_subnet(const Table& sn, const Blob& blob, Bmodel& m) {
  if (sn.flag(5, "is_dynamic")) fail(sn.at("is_dynamic"), "dynamic subnets are not supported");
  const auto cores = sn.vec(14, 4, "core_commands");
  if (cores.first > chip::sg2260::kCores) {
    fail(sn.at("core_commands"), std::to_string(cores.first) + " entries: an SG2260 has " +
                                     std::to_string(chip::sg2260::kCores) + " cores");
  }
  if (cores.first > 0) {
    for (uint32_t i = 0; i < cores.first; ++i) {
      const Table cc = sn.table_at(cores, i, "core_commands");
      const auto groups = cc.vec(0, 4, "gdma_tiu_commands");
      BmodelCore core;
      if (groups.first > 0) core = read_group(cc.table_at(groups, 0, "gdma_tiu_commands"), blob);
      if (groups.first > m.groups) m.groups = groups.first;
      core.sdma = engine_binary(cc, 1, "sdma_commands", blob);
      core.hau = engine_binary(cc, 2, "hau_commands", blob);
      core.cdma = engine_binaries(cc, 3, "cdma_commands", blob);
      m.cores.push_back(core);
    }
    return;
  }
  const auto groups = sn.vec(1, 4, "cmd_group");
  if (groups.first == 0) fail(sn.path(), "neither core_commands nor cmd_group");
  m.groups = groups.first;
  m.cores.push_back(read_group(sn.table_at(groups, 0, "cmd_group"), blob));
}

void read_parameter(const Table& p, const Blob& blob, Bmodel& m) {
  if (p.u32(5, "is_dynamic") != 0) fail(p.at("is_dynamic"), "dynamic models are not supported");
  m.ctx_addr = p.u64(2, "ctx_addr");
  m.ctx_size = p.u64(3, "ctx_size");
  read_tensors(p, 0, "input_tensor", m.inputs);
  read_tensors(p, 1, "output_tensor", m.outputs);
  Table coeff = p;
  if (p.sub(4, "coeff_mem", &coeff)) {
    m.has_coeff = true;
    m.coeff_addr = coeff.u64(0, "address");
    if (size_t pos = coeff.field(2, 16, "binary_coeff")) {
      const BmodelStream s = blob.stream(coeff.fb(), pos, coeff.at("binary_coeff").str());
      m.coeff = s.bytes;
      m.coeff_size = s.bytes.size();
    }
  }
  const auto subnets = p.vec(12, 4, "sub_net");
  if (subnets.first > 0) {
    read_subnet(p.table_at(subnets, 0, "sub_net"), blob, m);
    for (uint32_t j = 1; j < subnets.first && m.others.size() < kMaxOthersListed; ++j) {
      m.others.push_back(p.at("sub_net").str() + "[" + std::to_string(j) + "]");
    }
  } else {
    const auto groups = p.vec(8, 4, "cmd_group");
    if (groups.first == 0) fail(p.path(), "neither sub_net nor cmd_group");
    m.groups = groups.first;
    m.cores.push_back(read_group(p.table_at(groups, 0, "cmd_group"), blob));
  }
  const uint32_t core_num = p.u32(16, "core_num", static_cast<uint32_t>(m.cores.size()));
  if (core_num != m.cores.size()) {
    fail(p.at("core_num"), std::to_string(core_num) + " cores but " + std::to_string(m.cores.size()) +
                               " core_commands entries");
  }
}

void read_model(ConstByteSpan file, Bmodel& m) {
  if (file.size() < kHeaderBytes) fail("header", "file shorter than the 64-byte header");
  uint32_t h[4];
  std::memcpy(h, file.data(), sizeof h);
  if (h[0] != kMagic) fail("header.magic", "not 0xFF55AAEE");
  const uint64_t fb_at = h[1], fb_size = h[2], bin_size = h[3];
  if (fb_at < 16 || fb_at > file.size()) fail("header.header_size", "outside the file");
  if (fb_size > file.size() - fb_at) fail("header.flatbuffers_size", "extends past the end of the file");
  if (bin_size > file.size() - fb_at - fb_size) fail("header.binary_size", "extends past the end of the file");
  const Fb fb(ConstByteSpan(file.data() + fb_at, static_cast<size_t>(fb_size)));
  Blob blob;
  blob.file_offset = static_cast<size_t>(fb_at + fb_size);
  blob.bytes = ConstByteSpan(file.data() + blob.file_offset, static_cast<size_t>(bin_size));
  const std::string root_name = "root";
  const Table root(fb, fb.deref(0, root_name), "model");
  m.chip = root.str(3, "chip");
  if (m.chip != "BM1690" && m.chip != "SG2260") fail("model.chip", "\"" + m.chip + "\" is not BM1690/SG2260");
  m.neuron_size = root.u64(5, "neuron_size");
  const auto nets = root.vec(4, 4, "net");
  if (nets.first == 0) fail("model.net", "no net");
  if (nets.first > kMaxNets) fail("model.net", std::to_string(nets.first) + " nets (at most " + std::to_string(kMaxNets) + ")");
  for (uint32_t n = 0; n < nets.first; ++n) {
    const Table net = root.table_at(nets, n, "net");
    const std::string name = net.str(0, "name");
    const auto params = net.vec(3, 4, "parameter");
    if (n == 0) {
      if (params.first == 0) fail(net.at("parameter"), "no parameter");
      m.net_name = name;
      read_parameter(net.table_at(params, 0, "parameter"), blob, m);
    }
    for (uint32_t p = n == 0 ? 1 : 0; p < params.first; ++p) {
      if (m.others.size() < kMaxOthersListed) m.others.push_back("net " + name + " parameter " + std::to_string(p));
    }
  }
}

}  // namespace

bool looks_like_bmodel(ConstByteSpan file) {
  if (file.size() < 4) return false;
  uint32_t magic;
  std::memcpy(&magic, file.data(), 4);
  return magic == kMagic;
}

bool parse_bmodel(ConstByteSpan file, Bmodel& out, std::string& error) {
  out = Bmodel{};
  try {
    read_model(file, out);
  } catch (const BmodelError& e) {
    error = e.what();
    return false;
  } catch (const std::exception& e) {  // std::bad_alloc, std::length_error: still a clean refusal
    error = std::string("cannot read the model: ") + e.what();
    return false;
  }
  return true;
}

}  // namespace tilefw::tools

namespace tilefw::tools {

std::vector<BmodelUnit> bmodel_units(const Bmodel& m) {
  std::vector<BmodelUnit> u;
  for (size_t i = 0; i < m.cores.size(); ++i) {
    const BmodelCore& c = m.cores[i];
    const uint32_t core = static_cast<uint32_t>(i);
    if (c.tiu.present()) u.push_back({core, "tiu", c.tiu});
    if (c.gdma.present()) u.push_back({core, "gdma", c.gdma});
    if (c.sdma.present()) u.push_back({core, "sdma", c.sdma});
    if (c.hau.present()) u.push_back({core, "hau", c.hau});
    for (uint32_t i = 0; i < c.cdma.size(); ++i) u.push_back({core, "cdma", c.cdma[i], i});
  }
  return u;
}

}  // namespace tilefw::tools

namespace tilefw::tools {

std::string bmodel_contents(const Bmodel& m) {
  size_t n[5] = {};
  for (const BmodelCore& c : m.cores) {
    n[0] += c.tiu.present(), n[1] += c.gdma.present(), n[2] += c.sdma.present(), n[3] += c.hau.present();
    n[4] += c.cdma.size();
  }
  return std::to_string(m.cores.size()) + (m.cores.size() == 1 ? " core" : " cores") + "; streams: " +
         std::to_string(n[0]) + " tiu, " + std::to_string(n[1]) + " gdma, " + std::to_string(n[2]) + " sdma, " +
         std::to_string(n[3]) + " hau, " + std::to_string(n[4]) + " cdma";
}

}  // namespace tilefw::tools
