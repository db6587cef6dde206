// `tilefw run --bmodel FILE`: the run input of a .bmodel, in memory. What is placed where:
// - one DDR region per tag the model uses: the context (neuron) region of ctx_addr/ctx_size,
//   the coeff region, and every other tag a GDMA/SDMA command reads or writes, each spanning
//   the furthest byte any operand reaches (cmd::dma_operands: the footprints validation checks,
//   so the run's memory-map validation holds), rounded up to 4 KiB;
// - the coeff bytes when the model ships them; otherwise the coeff tag(s) get f16 weights drawn
//   uniformly from [-0.5, 0.5) by a generator seeded with --fill-seed (default 0), said on stderr;
// - `--input NAME=FILE` at the tensor's device_addr (exit 2 when the size differs or NAME is no
//   input), every other input zero;
// - the outputs written by tensor name ('/' as '_') to --out;
// - the streams as spans of the file's bytes, each labelled by tpu-mlir op when asked (so
//   --trace, --svg and --summary name commands as bmodel_dis does).
// One walk per stream gives the DDR footprint and the op labels together; the TIU stream,
// which has no DDR operand, is walked only for its labels.
#include "run/run_bmodel.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>

#include "formats/bmodel.hpp"
#include "commands.hpp"
#include "common/input_files.hpp"
#include "tilefw/chip/sg2260.hpp"
#include "tilefw/cmd/dma_footprint.hpp"
#include "tilefw/cmd/op_names.hpp"
#include "tilefw/cmd/walker.hpp"

namespace tilefw::tools {

namespace {
namespace sg = chip::sg2260;

constexpr uint64_t kMaxRegionBytes = uint64_t{4} << 30;
constexpr uint64_t kPage = 4096;

int refuse(const BmodelRunOptions& o, const std::string& what) {
  std::fprintf(stderr, "tilefw run: %s: %s\n", o.bmodel.c_str(), what.c_str());
  return 2;
}

// Furthest byte (offset within its tag) of every DDR tag.
using TagEnds = std::map<uint32_t, uint64_t>;

void reach(TagEnds& end, uint64_t addr, uint64_t bytes) {
  const uint32_t tag = sg::dma_tag(addr);
  if (tag == 0 || tag > sg::kMaxDdrTag) return;  // local memory, L2, or no region (validation says)
  uint64_t& e = end[tag];
  e = std::max(e, sg::dma_offset(addr) + std::max<uint64_t>(bytes, 1));  // a start-only operand: its first byte
}

// One walk of each stream: the DDR bytes its DMA operands reach and, with `ops`, every
// command's op.
void walk_streams(const Bmodel& m, TagEnds& end, OpLabels* ops) {
  for (size_t i = 0; i < m.cores.size(); ++i) {
    const BmodelStream* s[3] = {&m.cores[i].tiu, &m.cores[i].gdma, &m.cores[i].sdma};
    for (uint32_t e = ops == nullptr ? 1 : 0; e < 3; ++e) {
      cmd::Walker w(static_cast<cmd::Engine>(e), s[e]->bytes);
      cmd::Command c;
      while (w.next(c)) {
        if (ops != nullptr) ops->add(static_cast<uint32_t>(i), e, c.id, cmd::op_name(c.cls, c.eu));
        if (e == 0) continue;
        const cmd::DmaOperands d = cmd::dma_operands(c);
        for (const cmd::DmaOperand* x : {&d.src, &d.dst, &d.extra}) {
          if (x->used) reach(end, x->addr, x->bytes);
        }
      }
    }
  }
}

uint64_t page_round(uint64_t bytes) { return (std::min(bytes, kMaxRegionBytes + 1) + kPage - 1) / kPage * kPage; }

// The DDR regions and their first bytes. 0 or exit 2.
int plan_regions(const Bmodel& m, const BmodelRunOptions& o, TagEnds& end, RunInput& in) {
  const uint32_t ctx_tag = sg::dma_tag(m.ctx_addr);
  const auto grow = [&end](uint64_t addr, uint64_t bytes) {
    uint64_t& e = end[sg::dma_tag(addr)];
    e = std::max(e, sg::dma_offset(addr) + bytes);
  };
  grow(m.ctx_addr, std::max(m.ctx_size, m.neuron_size));
  if (m.has_coeff) grow(m.coeff_addr, m.coeff_size);
  for (const auto* list : {&m.inputs, &m.outputs}) {
    for (const BmodelTensor& t : *list) grow(t.device_addr, t.size);
  }
  // The limit a functional run applies, before anything is placed (a 14 KB bmodel could
  // otherwise ask for 4 GiB of drawn weights).
  uint64_t total = 0;
  for (const auto& [tag, bytes] : end) {
    if (tag != 0 && tag <= sg::kMaxDdrTag) total += page_round(bytes);
  }
  if (!o.timing_only && o.max_ddr_bytes != 0 && total > o.max_ddr_bytes) {
    return refuse(o, "its DDR regions take " + std::to_string(total) + " bytes in total, above the " +
                         std::to_string(o.max_ddr_bytes >> 20) +
                         " MiB a functional run may back (--max-ddr-mib raises it; --timing-only needs none)");
  }
  for (const auto& [tag, bytes] : end) {
    if (tag == 0 || tag > sg::kMaxDdrTag) continue;
    RunRegion r = run_region(tag, sg::make_dma_address(tag, 0), page_round(bytes));
    if (r.bytes > kMaxRegionBytes) {
      return refuse(o, "DDR tag " + std::to_string(tag) + " spans " + std::to_string(r.bytes) + " bytes (more than 4 GiB)");
    }
    const bool coeff_tag = m.has_coeff && sg::dma_tag(m.coeff_addr) == tag && !m.coeff.empty();
    if (!o.timing_only && coeff_tag) {
      r.init.kind = ByteSource::Kind::memory;
      r.init.bytes = m.coeff;
      r.init.at = sg::dma_offset(m.coeff_addr);
    } else if (!o.timing_only && !m.has_coeff && tag != ctx_tag) {
      std::fprintf(stderr,
                   "tilefw run: %s ships no coeff: DDR tag %u (%" PRIu64 " bytes) holds f16 weights drawn from "
                   "[-0.5, 0.5) with --fill-seed %" PRIu64 "\n",
                   o.bmodel.c_str(), tag, r.bytes, o.fill_seed);
      r.init.kind = ByteSource::Kind::drawn_f16;
    }
    in.regions.push_back(r);
  }
  in.fill_seed = o.fill_seed;
  return 0;
}

// The DDR region holding [addr, addr + bytes), or nullptr.
const RunRegion* region_of(const RunInput& in, uint64_t addr, uint64_t bytes) {
  for (const RunRegion& r : in.regions) {
    if (addr >= r.device_addr && addr - r.device_addr <= r.bytes && bytes <= r.bytes - (addr - r.device_addr)) return &r;
  }
  return nullptr;
}

std::vector<uint64_t> shape_of(const BmodelTensor& t) {
  std::vector<uint64_t> dims;
  for (const int64_t d : t.shape) dims.push_back(d < 0 ? 0 : static_cast<uint64_t>(d));  // dynamic: unknown
  return dims;
}

// Inputs given with --input (size checked, read at load), outputs by name. 0 or exit 2.
int plan_tensors(const Bmodel& m, const BmodelRunOptions& o, RunInput& in) {
  std::map<std::string, std::string> given;
  for (const std::string& kv : o.inputs) {
    const size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      std::fprintf(stderr, "tilefw run: --input %s: expected NAME=FILE\n", kv.c_str());
      return 2;
    }
    given[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  for (const BmodelTensor& t : m.inputs) {
    const auto g = given.find(t.name);
    if (g == given.end()) continue;  // zeros: the context region starts zeroed
    uint64_t size = 0;
    std::string why;
    if (!regular_file_size(g->second, size, why)) {
      std::fprintf(stderr, "tilefw run: input %s: %s\n", t.name.c_str(), why.c_str());
      return 2;
    }
    if (size != t.size) {
      std::fprintf(stderr, "tilefw run: input %s: %s holds %" PRIu64 " bytes, the tensor %" PRIu64 "\n", t.name.c_str(),
                   g->second.c_str(), size, t.size);
      return 2;
    }
    RunTensor x = run_tensor(t.name, t.device_addr, t.size, shape_of(t));
    x.init.kind = ByteSource::Kind::file;
    x.init.file = g->second;
    in.inputs.push_back(std::move(x));
    given.erase(g);
  }
  if (!given.empty()) {
    std::fprintf(stderr, "tilefw run: --input %s: the model has no input of that name\n", given.begin()->first.c_str());
    return 2;
  }
  for (const BmodelTensor& t : m.outputs) {
    std::string name = t.name;
    std::replace(name.begin(), name.end(), '/', '_');
    for (const RunTensor& other : in.outputs) {
      if (other.name == name) return refuse(o, "output \"" + escape_line(name) + "\" names two outputs");
    }
    if (!plain_file_name(name)) {
      return refuse(o, "output \"" + escape_line(name) + "\" is not a plain file name (the output is <--out>/<name>.dat)");
    }
    in.outputs.push_back(run_tensor(name, t.device_addr, t.size, shape_of(t)));
  }
  for (const auto* list : {&in.inputs, &in.outputs}) {
    for (const RunTensor& t : *list) {
      if (region_of(in, t.device_addr, t.bytes) == nullptr) {
        return refuse(o, "tensor " + escape_line(t.name) + ": bytes [" + std::to_string(t.device_addr) + ", +" +
                             std::to_string(t.bytes) + ") lie in no DDR region (tag 1..29)");
      }
    }
  }
  return 0;
}

// Every core's streams as spans of the file. 0 or exit 2.
int plan_streams(const Bmodel& m, const BmodelRunOptions& o, RunInput& in) {
  for (size_t i = 0; i < m.cores.size(); ++i) {
    const BmodelCore& c = m.cores[i];
    RunCore rc;
    rc.core = static_cast<uint32_t>(i);
    // The HAU stream takes part in the barriers (cnt 32 = 8 cores x 4 engines).
    const BmodelStream* s[kManifestEngines] = {&c.tiu, &c.gdma, &c.sdma, &c.hau};
    for (int e = 0; e < kManifestEngines; ++e) {
      if (!s[e]->present()) {
        if (e < 2) return refuse(o, "core " + std::to_string(i) + " has no " + kManifestEngineNames[e] + " stream");
        continue;
      }
      RunStream& st = rc.stream[e];
      st.given = true;
      st.bytes = s[e]->bytes;
      st.shown = o.bmodel + ": core" + std::to_string(i) + "." + kManifestEngineNames[e] + ".bin";
    }
    in.cores.push_back(std::move(rc));
  }
  return 0;
}
}  // namespace

int bmodel_run_input(const BmodelRunOptions& o, bool with_ops, RunInput& in) {
  in = RunInput{};
  in.source = o.bmodel;
  in.from_bmodel = true;
  std::string why;
  if (!read_input(o.bmodel, in.held, why)) return refuse(o, why);
  Bmodel m;
  if (!parse_bmodel(ConstByteSpan(in.held.data(), in.held.size()), m, why)) return refuse(o, "corrupt bmodel: " + why);
  if (m.groups > 1) return refuse(o, std::to_string(m.groups) + " command groups per core; run supports one");
  if (m.cores.size() > sg::kCores) {
    return refuse(o, std::to_string(m.cores.size()) + " cores; the chip has " + std::to_string(sg::kCores));
  }
  for (const std::string& x : m.others) std::fprintf(stderr, "tilefw run: %s: not run: %s\n", o.bmodel.c_str(), x.c_str());
  TagEnds end;
  walk_streams(m, end, with_ops ? &in.ops : nullptr);
  int rc = plan_regions(m, o, end, in);
  if (rc == 0) rc = plan_tensors(m, o, in);
  if (rc == 0) rc = plan_streams(m, o, in);
  return rc;
}

}  // namespace tilefw::tools
