// `tilefw run --bmodel FILE`: turns a .bmodel into the manifest `tilefw run --manifest` reads
// (spec/conformance.md), in a fresh temporary directory, runs it through the same path and
// removes the directory. What is placed where:
// - one DDR region per tag the model uses: the context (neuron) region of ctx_addr/ctx_size,
//   the coeff region, and every other tag a GDMA/SDMA command reads or writes, each spanning
//   the furthest byte any command's footprint reaches (so the run's memory-map validation holds);
// - the coeff bytes when the model ships them; otherwise the coeff tag(s) get f16 weights drawn
//   uniformly from [-0.5, 0.5) by a generator seeded with --fill-seed (default 0), said on stderr;
// - `--input NAME=FILE` at the tensor's device_addr (exit 2 when the size differs or NAME is no
//   input), every other input zero;
// - the outputs written by tensor name to --out (like manifest outputs[]).
#include "run_bmodel.hpp"

#include "input_files.hpp"
#include "signal_cleanup.hpp"

#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>

#include "bmodel.hpp"
#include "commands.hpp"
#include "op_labels.hpp"
#include "tilefw/cmd/op_names.hpp"
#include "tilefw/base/float16.hpp"
#include "tilefw/chip/sg2260.hpp"
#include "tilefw/cmd/walker.hpp"

namespace tilefw::tools {

namespace {
namespace fs = std::filesystem;
namespace sg = chip::sg2260;

constexpr uint64_t kMaxRegionBytes = uint64_t{4} << 30;

uint32_t esize_of(uint32_t format) {
  constexpr uint8_t k[10] = {1, 2, 4, 2, 4, 2, 0, 1, 0, 4};
  return format < 10 && k[format] != 0 ? k[format] : 1;
}

uint64_t span_elems(uint64_t n, uint64_t c, uint64_t h, uint64_t w, uint64_t ns, uint64_t cs, uint64_t hs,
                    uint64_t ws) {
  if (n == 0 || c == 0 || h == 0 || w == 0) return 0;
  return (n - 1) * ns + (c - 1) * cs + (h - 1) * hs + (w - 1) * ws + 1;
}

/// Furthest DDR byte (offset within its tag) each tag's commands touch.
void dma_extents(ConstByteSpan stream, cmd::Engine e, std::map<uint32_t, uint64_t>& end) {
  cmd::Walker w(e, stream);
  cmd::Command c;
  while (w.next(c)) {
    if (c.cls != cmd::CmdClass::dma_tensor && c.cls != cmd::CmdClass::dma_matrix &&
        c.cls != cmd::CmdClass::dma_general) {
      continue;
    }
    const cmd::DmaCommonView v = c.as<cmd::DmaCommonView>();
    const uint64_t es = esize_of(v.src_data_format());
    const bool nchw = v.nchw_copy() != 0;
    uint64_t src = span_elems(v.src_nsize(), v.src_csize(), v.src_hsize(), v.src_wsize(), v.src_nstride(),
                              v.src_cstride(), v.src_hstride(), v.src_wstride());
    uint64_t dst = nchw ? span_elems(v.src_nsize(), v.src_csize(), v.src_hsize(), v.src_wsize(), v.dst_nstride(),
                                     v.dst_cstride(), v.dst_hstride(), v.dst_wstride())
                        : span_elems(v.dst_nsize(), v.dst_csize(), v.dst_hsize(), v.dst_wsize(), v.dst_nstride(),
                                     v.dst_cstride(), v.dst_hstride(), v.dst_wstride());
    if (c.cls == cmd::CmdClass::dma_matrix) {  // global side: H rows of W with row stride hstride
      src = v.src_hsize() == 0 ? 0 : (uint64_t{v.src_hsize()} - 1) * v.src_hstride() + v.src_wsize();
      dst = v.dst_hsize() == 0 ? 0 : (uint64_t{v.dst_hsize()} - 1) * v.dst_hstride() + v.dst_wsize();
    } else if (c.cls == cmd::CmdClass::dma_general) {
      src = dst = v.src_cstride();
    }
    const std::pair<uint64_t, uint64_t> sides[2] = {{v.src_start_addr(), src}, {v.dst_start_addr(), dst}};
    for (const auto& [addr, elems] : sides) {
      const uint32_t tag = sg::dma_tag(addr);
      if (tag == 0 || tag > sg::kMaxDdrTag) continue;
      uint64_t& e_ = end[tag];
      e_ = std::max(e_, sg::dma_offset(addr) + std::max<uint64_t>(elems, 1) * es);
    }
  }
}

bool write_bytes(const fs::path& p, const uint8_t* data, size_t n) {
  std::ofstream o(p, std::ios::binary);
  o.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(n));
  return static_cast<bool>(o);
}

std::string file_name(const std::string& tensor) {
  std::string s = tensor;
  std::replace(s.begin(), s.end(), '/', '_');
  return s;
}

struct Plan {
  const Bmodel& m;
  const BmodelRunOptions& o;
  fs::path dir;
  nlohmann::json manifest;
};

// DDR regions (0 or exit 2).
int plan_regions(Plan& p) {
  std::map<uint32_t, uint64_t> end;
  for (const BmodelCore& c : p.m.cores) {
    dma_extents(c.gdma.bytes, cmd::Engine::gdma, end);
    dma_extents(c.sdma.bytes, cmd::Engine::sdma, end);
  }
  const uint32_t ctx_tag = sg::dma_tag(p.m.ctx_addr);
  auto grow = [&end](uint64_t addr, uint64_t bytes) {
    uint64_t& e = end[sg::dma_tag(addr)];
    e = std::max(e, sg::dma_offset(addr) + bytes);
  };
  grow(p.m.ctx_addr, std::max(p.m.ctx_size, p.m.neuron_size));
  if (p.m.has_coeff) grow(p.m.coeff_addr, p.m.coeff_size);
  for (const auto* list : {&p.m.inputs, &p.m.outputs}) {
    for (const BmodelTensor& t : *list) grow(t.device_addr, t.size);
  }
  // Weights: a 16-bit draw per element picks (k + 0.5) / 65536 - 0.5 rounded to f16, through a
  // table of the 65536 conversions, so tens of MB fill fast also in sanitizer builds.
  std::vector<uint16_t> weights(65536);
  for (uint32_t k = 0; k < weights.size(); ++k) {
    weights[k] = to_half((static_cast<float>(k) + 0.5f) / 65536.0f - 0.5f).bits;
  }
  std::mt19937_64 rng(p.o.fill_seed);
  // The limit a functional run applies to the manifest, applied before anything is built (a 14 KB
  // bmodel could otherwise have 4 GiB of weights drawn first).
  uint64_t total = 0;
  for (const auto& [tag, bytes] : end) {
    if (tag != 0 && tag <= sg::kMaxDdrTag) total += (std::min(bytes, kMaxRegionBytes + 1) + 4095) / 4096 * 4096;
  }
  if (!p.o.timing_only && p.o.max_ddr_bytes != 0 && total > p.o.max_ddr_bytes) {
    std::fprintf(stderr,
                 "tilefw run: %s: its DDR regions take %" PRIu64 " bytes in total, above the %" PRIu64
                 " MiB a functional run may back (--max-ddr-mib raises it; --timing-only needs none)\n",
                 p.o.bmodel.c_str(), total, p.o.max_ddr_bytes >> 20);
    return 2;
  }
  nlohmann::json regions = nlohmann::json::array();
  for (const auto& [tag, bytes] : end) {
    if (tag == 0 || tag > sg::kMaxDdrTag) continue;
    const uint64_t size = (bytes + 4095) / 4096 * 4096;
    if (size > kMaxRegionBytes) {
      std::fprintf(stderr, "tilefw run: %s: DDR tag %u spans %" PRIu64 " bytes (more than 4 GiB)\n", p.o.bmodel.c_str(),
                   tag, size);
      return 2;
    }
    nlohmann::json r = {{"tag", tag}, {"device_addr", sg::make_dma_address(tag, 0)}, {"bytes", size}};
    const bool coeff_tag = p.m.has_coeff && sg::dma_tag(p.m.coeff_addr) == tag && !p.m.coeff.empty();
    if (!p.o.timing_only && coeff_tag) {
      std::vector<uint8_t> init(sg::dma_offset(p.m.coeff_addr), 0);
      init.insert(init.end(), p.m.coeff.begin(), p.m.coeff.end());
      const std::string name = "ddr" + std::to_string(tag) + ".bin";
      if (!write_bytes(p.dir / name, init.data(), init.size())) return 2;
      r["init_file"] = name;
    } else if (!p.o.timing_only && !p.m.has_coeff && tag != ctx_tag) {
      std::fprintf(stderr,
                   "tilefw run: %s ships no coeff: DDR tag %u (%" PRIu64 " bytes) holds f16 weights drawn from "
                   "[-0.5, 0.5) with --fill-seed %" PRIu64 "\n",
                   p.o.bmodel.c_str(), tag, size, p.o.fill_seed);
      // Drawn and written 1 MiB at a time: the memory held does not grow with the region.
      const std::string name = "ddr" + std::to_string(tag) + ".bin";
      std::ofstream o(p.dir / name, std::ios::binary);
      std::vector<uint8_t> chunk(uint64_t{1} << 20);
      for (uint64_t done = 0; done < size && o; done += chunk.size()) {
        const size_t n = static_cast<size_t>(std::min<uint64_t>(chunk.size(), size - done));
        for (size_t i = 0; i + 7 < n; i += 8) {  // four weights per 64-bit draw
          const uint64_t r = rng();
          for (int k = 0; k < 4; ++k) {
            const uint16_t h = weights[(r >> (16 * k)) & 0xFFFF];
            chunk[i + 2 * k] = static_cast<uint8_t>(h);
            chunk[i + 2 * k + 1] = static_cast<uint8_t>(h >> 8);
          }
        }
        o.write(reinterpret_cast<const char*>(chunk.data()), static_cast<std::streamsize>(n));
      }
      if (!o) return 2;
      r["init_file"] = name;
    }
    regions.push_back(r);
  }
  p.manifest["memory"]["ddr_regions"] = regions;
  return 0;
}

// Inputs given with --input (size checked), outputs by name, and the cores' streams.
int plan_tensors_and_streams(Plan& p) {
  std::map<std::string, std::string> given;
  for (const std::string& kv : p.o.inputs) {
    const size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      std::fprintf(stderr, "tilefw run: --input %s: expected NAME=FILE\n", kv.c_str());
      return 2;
    }
    given[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  nlohmann::json inputs = nlohmann::json::array();
  for (const BmodelTensor& t : p.m.inputs) {
    const auto g = given.find(t.name);
    if (g == given.end()) continue;  // zeros: the context region starts zeroed
    // Only its size is checked here (the run reads the bytes straight into simulated DDR).
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
    given.erase(g);
    inputs.push_back({{"name", t.name}, {"device_addr", t.device_addr}, {"bytes", t.size},
                      {"file", fs::absolute(g->second).string()}});
  }
  if (!given.empty()) {
    std::fprintf(stderr, "tilefw run: --input %s: the model has no input of that name\n", given.begin()->first.c_str());
    return 2;
  }
  nlohmann::json outputs = nlohmann::json::array();
  for (const BmodelTensor& t : p.m.outputs) {
    outputs.push_back({{"name", file_name(t.name)}, {"device_addr", t.device_addr}, {"bytes", t.size}});
  }
  nlohmann::json cores = nlohmann::json::array();
  for (size_t i = 0; i < p.m.cores.size(); ++i) {
    const BmodelCore& c = p.m.cores[i];
    nlohmann::json core = {{"core", i}};
    // The HAU stream takes part in the barriers (cnt 32 = 8 cores x 4 engines).
    const std::pair<const char*, const BmodelStream*> engines[] = {
        {"tiu", &c.tiu}, {"gdma", &c.gdma}, {"sdma", &c.sdma}, {"hau", &c.hau}};
    for (const auto& [name, s] : engines) {
      if (!s->present()) continue;
      const std::string file = "core" + std::to_string(i) + "." + name + ".bin";
      if (!write_bytes(p.dir / file, s->bytes.data(), s->bytes.size())) return 2;
      core[name] = {{"file", file}};
    }
    cores.push_back(core);
  }
  p.manifest["inputs"] = inputs;
  p.manifest["outputs"] = outputs;
  p.manifest["cores"] = cores;
  return 0;
}

// ops.json next to the manifest: every TIU/GDMA/SDMA command labelled with its tpu-mlir op name
// (`conv.normal`, `dma.tensor`, ...), so --trace, --svg and --summary's time-per-op table name
// them as bmodel_dis does (HAU syncs are "hau.sync" there). 0 or exit 2.
int write_op_labels(const Plan& p) {
  OpLabels labels;
  for (size_t i = 0; i < p.m.cores.size(); ++i) {
    const BmodelStream* s[3] = {&p.m.cores[i].tiu, &p.m.cores[i].gdma, &p.m.cores[i].sdma};
    for (uint32_t e = 0; e < 3; ++e) {
      cmd::Walker w(static_cast<cmd::Engine>(e), s[e]->bytes);
      cmd::Command c;
      while (w.next(c)) labels.add(static_cast<uint32_t>(i), e, c.id, cmd::op_name(c.cls, c.eu));
    }
  }
  std::string error;
  if (labels.write_json((fs::path(p.dir) / "ops.json").string(), error)) return 0;
  std::fprintf(stderr, "tilefw run: %s\n", error.c_str());
  return 2;
}

// The model as a manifest in a new temporary directory. 0 or exit 2.
int bmodel_manifest(const BmodelRunOptions& o, const std::string& dir, std::string& manifest) {
  std::vector<uint8_t> file;
  std::string why;
  if (!read_input(o.bmodel, file, why)) {
    std::fprintf(stderr, "tilefw run: %s: %s\n", o.bmodel.c_str(), why.c_str());
    return 2;
  }
  Bmodel m;
  if (!parse_bmodel(ConstByteSpan(file.data(), file.size()), m, why)) {
    std::fprintf(stderr, "tilefw run: %s: corrupt bmodel: %s\n", o.bmodel.c_str(), why.c_str());
    return 2;
  }
  if (m.groups > 1) {
    std::fprintf(stderr, "tilefw run: %s: %u command groups per core; run supports one\n", o.bmodel.c_str(), m.groups);
    return 2;
  }
  if (m.cores.size() > sg::kCores) {
    std::fprintf(stderr, "tilefw run: %s: %zu cores; the chip has %u\n", o.bmodel.c_str(), m.cores.size(), sg::kCores);
    return 2;
  }
  for (const std::string& x : m.others) {
    std::fprintf(stderr, "tilefw run: %s: not run: %s\n", o.bmodel.c_str(), x.c_str());
  }
  Plan p{m, o, dir, nlohmann::json::object()};
  p.manifest["model"] = m.net_name;
  int rc = plan_regions(p);
  if (rc == 0) rc = plan_tensors_and_streams(p);
  if (rc == 0) rc = write_op_labels(p);
  if (rc != 0) return rc;
  manifest = (fs::path(dir) / "manifest.json").string();
  std::ofstream out(manifest);
  out << p.manifest.dump(1) << "\n";
  return out ? 0 : 2;
}
}  // namespace

int run_model_source(const std::string& manifest, const BmodelRunOptions& o,
                     const std::function<int(const std::string&)>& run_manifest) {
  if (!manifest.empty() && !o.bmodel.empty()) {
    std::fprintf(stderr, "tilefw run: give --manifest or --bmodel, not both\n");
    return 2;
  }
  if (manifest.empty() && o.bmodel.empty()) {
    std::fprintf(stderr, "tilefw run: --manifest FILE or --bmodel FILE is required\n");
    return 2;
  }
  if (!manifest.empty()) {
    if (!o.inputs.empty()) {
      std::fprintf(stderr, "tilefw run: --input needs --bmodel (a manifest names its inputs)\n");
      return 2;
    }
    return run_manifest(manifest);
  }
  std::string tmpl = (fs::temp_directory_path() / "tilefw-bmodel-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) {
    std::fprintf(stderr, "tilefw run: cannot create a temporary directory\n");
    return 2;
  }
  const signal_cleanup::Registered registered(signal_cleanup::add_dir(tmpl));  // gone on SIGINT too
  std::string path;
  int rc = bmodel_manifest(o, tmpl, path);
  if (rc == 0) rc = run_manifest(path);
  std::error_code ec;
  fs::remove_all(tmpl, ec);
  return rc;
}

}  // namespace tilefw::tools
