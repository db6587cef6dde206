// A MoE layer in two phases on the host (moe_phases.hpp).
#include "run/moe_phases.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>

#include "common/input_files.hpp"
#include "common/splitmix.hpp"

namespace tilefw::tools {

namespace {

// The control core (docs/moe-phases.md): at the 1 GHz device clock, one instruction per cycle
// (tilefw decisions). Its costs are what test/control_core/ctl_gen_cost.cpp measures on
// Cortex-M4 under QEMU's instruction count (-Os, the firmware build): building DeepSeek-V3 layer
// 3's experts' phase for decode batch 1 (1174 commands) takes 1539 instructions per command and
// validating it 1367; a command copied from an earlier expert block of the same shape (two more
// experts of one row on a core, four -> six) 420 to copy and 477 to validate (most copies are
// marked checked and skip their operand checks). Reading one count is a DDR load and a compare:
// 40 cycles (a tilefw decision).
constexpr uint64_t kControlCyclesPerCount = 40;
constexpr uint64_t kControlCyclesPerBuiltCommand = 1539;
constexpr uint64_t kControlCyclesPerValidatedCommand = 1367;
constexpr uint64_t kControlCyclesPerCopiedCommand = 420;
constexpr uint64_t kControlCyclesPerValidatedCopy = 477;

using Rng = SplitMix64;  // the draws are part of a routing model's definition

uint64_t request_tokens(const gen::SizedLayer& p) { return uint64_t{p.inference.batch} * p.inference.seq; }

// The routing models draw per token: token t's top_k experts land in choices[t k .. t k + k),
// in the order drawn, and the counts are their histogram (routing_counts).

void balanced_choices(const gen::SizedLayer& p, std::vector<uint32_t>& choices) {
  // Slot t k + j is expert (t k + j) mod E: the slots 0 .. T k - 1 go round the experts, so
  // every expert gets floor(T k / E) and the first (T k mod E) one more; a token's k slots are
  // consecutive, hence distinct experts as k <= E.
  const uint32_t E = p.model.moe.experts;
  for (uint64_t i = 0; i < choices.size(); ++i) choices[i] = static_cast<uint32_t>(i % E);
}

void uniform_choices(const gen::SizedLayer& p, uint64_t seed, std::vector<uint32_t>& choices) {
  const gen::MoeConfig& m = p.model.moe;
  const bool grouped = m.routing == gen::Routing::sigmoid_grouped && m.n_group > 1;
  const uint32_t E = m.experts, G = grouped ? m.n_group : 1, per = E / G, keep = grouped ? m.topk_group : 1;
  Rng rng{seed};
  std::vector<uint32_t> groups(G), pool;
  for (uint64_t t = 0; t < request_tokens(p); ++t) {
    std::iota(groups.begin(), groups.end(), 0u);
    for (uint32_t i = 0; i < keep; ++i) std::swap(groups[i], groups[i + rng.below(G - i)]);  // partial shuffle
    pool.clear();
    for (uint32_t i = 0; i < keep; ++i) {
      for (uint32_t e = 0; e < per; ++e) pool.push_back(groups[i] * per + e);
    }
    for (uint32_t k = 0; k < m.top_k; ++k) {
      const uint32_t j = k + rng.below(static_cast<uint32_t>(pool.size()) - k);
      std::swap(pool[k], pool[j]);
      choices[t * m.top_k + k] = pool[k];
    }
  }
}

void zipf_choices(const gen::SizedLayer& p, double s, uint64_t seed, std::vector<uint32_t>& choices) {
  const uint32_t E = p.model.moe.experts;
  Rng rng{seed};
  std::vector<uint32_t> order(E);  // order[r]: the expert of rank r
  std::iota(order.begin(), order.end(), 0u);
  for (uint32_t i = E; i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
  std::vector<double> w(E), left;
  for (uint32_t r = 0; r < E; ++r) w[order[r]] = std::pow(static_cast<double>(r + 1), -s);
  for (uint64_t t = 0; t < request_tokens(p); ++t) {
    left = w;
    double total = std::accumulate(left.begin(), left.end(), 0.0);
    for (uint32_t k = 0; k < p.model.moe.top_k; ++k) {
      double x = rng.unit() * total;
      uint32_t e = 0;
      while (e + 1 < E && (left[e] == 0 || x >= left[e])) {
        x -= left[e];
        ++e;
      }
      while (left[e] == 0) e = (e + E - 1) % E;  // rounding at the end: the last expert left
      choices[t * p.model.moe.top_k + k] = e;
      total -= left[e];
      left[e] = 0;
    }
  }
}

bool file_counts(const std::string& path, const gen::SizedLayer& p, std::vector<uint32_t>& counts, std::string& error) {
  std::vector<uint8_t> raw;
  if (!read_whole_file(path, uint64_t{1} << 20, raw, error)) return false;
  nlohmann::json j = nlohmann::json::parse(raw.begin(), raw.end(), nullptr, false);
  const uint32_t E = p.model.moe.experts;
  const uint64_t T = request_tokens(p);
  if (j.is_discarded()) return error = path + ": not JSON", false;
  if (!j.is_array()) return error = path + ": not a JSON list of per-expert counts", false;
  if (j.size() != E) {
    return error = path + ": " + std::to_string(j.size()) + " counts, the layer has " + std::to_string(E) + " experts", false;
  }
  uint64_t sum = 0;
  for (size_t e = 0; e < j.size(); ++e) {
    const nlohmann::json& v = j[e];
    if (!v.is_number_integer() && !(v.is_number_float() && std::floor(v.get<double>()) == v.get<double>())) {
      return error = path + ": count of expert " + std::to_string(e) + " is not an integer", false;
    }
    const double d = v.get<double>();
    if (d < 0) return error = path + ": count of expert " + std::to_string(e) + " is negative", false;
    if (d > static_cast<double>(T)) {
      return error = path + ": count of expert " + std::to_string(e) + " exceeds the request's " + std::to_string(T) + " tokens", false;
    }
    counts[e] = static_cast<uint32_t>(d);
    sum += counts[e];
  }
  if (sum != T * p.model.moe.top_k) {
    return error = path + ": counts sum to " + std::to_string(sum) + ", not tokens x top_k = " +
                   std::to_string(T * p.model.moe.top_k), false;
  }
  return true;
}

// A counts file names no tokens: its expert slots are dealt expert-major (expert 0's count,
// then expert 1's, ...), slot i to token i mod T as that token's choice i / T. Each token gets
// exactly k slots (the counts sum to T k), and an expert's slots are consecutive and at most T,
// so they land on distinct tokens.
void dealt_choices(const std::vector<uint32_t>& counts, uint64_t T, uint32_t k, std::vector<uint32_t>& choices) {
  uint64_t i = 0;
  for (uint32_t e = 0; e < counts.size(); ++e) {
    for (uint32_t c = 0; c < counts[e]; ++c, ++i) choices[(i % T) * k + i / T] = e;
  }
}

// "S:SEED" of zipf: S a finite number >= 0.
bool zipf_args(const std::string& rest, double& s, uint64_t& seed) {
  const size_t colon = rest.find(':');
  if (colon == std::string::npos || colon == 0) return false;
  const std::string a = rest.substr(0, colon);
  char* end = nullptr;
  s = std::strtod(a.c_str(), &end);
  return end == a.c_str() + a.size() && std::isfinite(s) && s >= 0 && s <= 100 && parse_decimal_u64(rest.substr(colon + 1), seed);
}

}  // namespace

nlohmann::json moe_phases_entry(const GenCli& cli, const std::string& config_file) {
  nlohmann::json g{{"config", config_file}, {"layer", cli.layer}, {"phase", cli.phase}, {"batch", cli.batch},
                   {"cores", cli.cores}, {"tp", cli.tp}, {"ep", cli.ep}, {"prefill_chunk", cli.chunk},
                   {"decode_chunk", cli.decode_chunk}, {"capacity_factor", cli.capacity_factor},
                   {"dtype", cli.dtype}};
  if (cli.seq) g["seq"] = *cli.seq;
  if (cli.kv_len) g["kv_len"] = *cli.kv_len;
  return nlohmann::json{{"generator", g}, {"counts", "expert_tokens"}};
}

bool request_from_json(const nlohmann::json& g, const std::string& config, GenCli& cli, std::string& error) {
  if (!g.is_object()) return error = "moe_phases.generator: not an object", false;
  cli.config = config;
  auto u32 = [&](const char* k, uint32_t& v) {
    if (!g.contains(k)) return true;
    if (!g.at(k).is_number_unsigned() || g.at(k).get<uint64_t>() > UINT32_MAX) {
      error = std::string("moe_phases.generator.") + k + ": not an integer 0..2^32-1";
      return false;
    }
    v = g.at(k).get<uint32_t>();
    return true;
  };
  uint32_t seq = 0, kv = 0;
  if (!u32("layer", cli.layer) || !u32("batch", cli.batch) || !u32("cores", cli.cores) || !u32("tp", cli.tp) ||
      !u32("ep", cli.ep) || !u32("prefill_chunk", cli.chunk) || !u32("decode_chunk", cli.decode_chunk) ||
      !u32("seq", seq) || !u32("kv_len", kv) || !u32("chips", cli.chips) || !u32("pp", cli.pp) || !u32("dp", cli.dp) ||
      !u32("microbatches", cli.microbatches)) {
    return false;
  }
  if (g.contains("seq")) cli.seq = seq;
  if (g.contains("kv_len")) cli.kv_len = kv;
  for (const char* k : {"phase", "dtype"}) {
    if (g.contains(k) && !g.at(k).is_string()) return error = std::string("moe_phases.generator.") + k + ": not a string", false;
  }
  cli.phase = g.value("phase", std::string("prefill"));
  cli.dtype = g.value("dtype", std::string());
  if (cli.phase != "prefill" && cli.phase != "decode") return error = "moe_phases.generator.phase: prefill or decode", false;
  if (!cli.dtype.empty() && cli.dtype != "f16" && cli.dtype != "bf16") return error = "moe_phases.generator.dtype: f16 or bf16", false;
  if (g.contains("capacity_factor")) {
    if (!g.at("capacity_factor").is_number()) return error = "moe_phases.generator.capacity_factor: not a number", false;
    cli.capacity_factor = g.at("capacity_factor").get<double>();
  }
  return true;
}

bool layer_from_manifest(const nlohmann::json& moe_phases, const std::string& config, gen::SizedLayer& plan,
                        std::string& error) {
  GenCli cli;
  if (!request_from_json(moe_phases.at("generator"), config, cli, error)) return false;
  HfConfig cfg;
  if (auto f = generate(cli, plan, cfg)) return error = "moe_phases.generator: " + f->message, false;
  if (!plan.model.moe_layer) return error = "moe_phases: the layer the request names has no routed experts", false;
  return true;
}

bool routing_choices(const std::string& spec, const gen::SizedLayer& p, std::vector<uint32_t>& choices,
                     std::string& error) {
  const gen::MoeConfig& m = p.model.moe;
  const uint32_t E = m.experts, k = m.top_k;
  const uint64_t T = request_tokens(p);
  choices.clear();
  if (k == 0 || k > E) return error = "--routing " + spec + ": the layer's top_k " + std::to_string(k) + " is not 1.." + std::to_string(E), false;
  if (T > (uint64_t{1} << 32) / k) return error = "--routing " + spec + ": tokens x top_k exceeds 2^32", false;
  uint64_t seed = 0;
  double s = 0;
  std::vector<uint32_t> counts;
  if (spec == "balanced") {
    choices.assign(T * k, 0);
    balanced_choices(p, choices);
  } else if (spec.rfind("uniform:", 0) == 0) {
    if (!parse_decimal_u64(spec.substr(8), seed)) return error = "--routing " + spec + ": uniform:SEED with SEED 0..2^64-1", false;
    const bool grouped = m.routing == gen::Routing::sigmoid_grouped && m.n_group > 1;
    if (grouped && uint64_t{m.topk_group} * (E / m.n_group) < k) {
      return error = "--routing " + spec + ": topk_group x experts per group is below top_k", false;
    }
    choices.assign(T * k, 0);
    uniform_choices(p, seed, choices);
  } else if (spec.rfind("zipf:", 0) == 0) {
    if (!zipf_args(spec.substr(5), s, seed)) return error = "--routing " + spec + ": zipf:S:SEED with 0 <= S <= 100", false;
    choices.assign(T * k, 0);
    zipf_choices(p, s, seed, choices);
  } else {
    counts.assign(E, 0);
    if (!file_counts(spec, p, counts, error)) {
      error = "--routing: " + error;
      return false;
    }
    choices.assign(T * k, 0);
    dealt_choices(counts, T, k, choices);
  }
  return true;
}

bool routing_counts(const std::string& spec, const gen::SizedLayer& p, std::vector<uint32_t>& counts, std::string& error) {
  std::vector<uint32_t> choices;
  if (!routing_choices(spec, p, choices, error)) return false;
  counts.assign(p.model.moe.experts, 0);
  for (uint32_t e : choices) ++counts[e];
  return true;
}

std::vector<ControlSpan> control_spans(uint64_t start, uint64_t counts, const uint32_t* core_commands,
                                       const gen::PhaseStats* copies, uint32_t cores, uint32_t control_cores) {
  if (control_cores == 0) control_cores = 1;
  std::vector<ControlSpan> spans;
  for (uint32_t k = 0; k < control_cores && k < cores; ++k) {
    ControlSpan s;
    for (uint32_t c = k; c < cores; c += control_cores) {
      s.commands += core_commands[c];
      if (copies != nullptr) {
        s.copied += copies[c].commands_copied;
      }
    }
    s.start = start;
    const uint64_t built = s.commands - s.copied;
    s.end = start + counts * kControlCyclesPerCount +
            built * (kControlCyclesPerBuiltCommand + kControlCyclesPerValidatedCommand) +
            s.copied * (kControlCyclesPerCopiedCommand + kControlCyclesPerValidatedCopy);
    spans.push_back(s);
  }
  return spans;
}

std::string with_control_rows(std::string trace, const std::vector<ControlSpan>& spans) {
  const size_t close = trace.rfind("]}");
  if (close == std::string::npos || spans.empty()) return trace;
  constexpr unsigned kPid = 100;  // after the 8 cores
  std::string add = ",\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":100,\"args\":{\"name\":\"ctl\"}}";
  char line[320];
  for (size_t k = 0; k < spans.size(); ++k) {
    std::snprintf(line, sizeof line,
                  ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%u,\"tid\":%zu,\"args\":{\"name\":\"control core %zu\"}}"
                  ",\n{\"ph\":\"X\",\"name\":\"generate experts' phase\",\"cat\":\"ctl\",\"pid\":%u,\"tid\":%zu,"
                  "\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"commands\":%llu,\"start_cycle\":%llu,\"end_cycle\":%llu}}",
                  kPid, k, k, kPid, k, static_cast<double>(spans[k].start) / 1000.0,
                  static_cast<double>(spans[k].end - spans[k].start) / 1000.0,
                  static_cast<unsigned long long>(spans[k].commands), static_cast<unsigned long long>(spans[k].start),
                  static_cast<unsigned long long>(spans[k].end));
    add += line;
  }
  // Before the closing "]}" (after the last event; the list is never empty here: phase 1 ran).
  size_t at = close;
  while (at > 0 && (trace[at - 1] == '\n' || trace[at - 1] == ' ')) --at;
  trace.insert(at, add);
  return trace;
}

void routed_figures(const gen::SizedLayer& p, const std::vector<uint32_t>& counts, double& flops, double& bytes_ddr) {
  const gen::MoeConfig& m = p.model.moe;
  const double H = p.model.hidden, I = m.expert_intermediate, es = static_cast<double>(dtype_size(p.model.dtype));
  const double T = static_cast<double>(request_tokens(p));
  double rows = 0, idle = 0;
  for (uint32_t e = 0; e < m.experts && e < counts.size(); ++e) {
    rows += std::min(counts[e], p.capacity == 0 ? counts[e] : p.capacity);
    if (counts[e] == 0) ++idle;
  }
  // The static figures count top_k rows per token and every expert's three matrices.
  flops = static_cast<double>(p.flops) - 2.0 * 3.0 * H * I * (T * m.top_k - rows);
  bytes_ddr = static_cast<double>(p.bytes_ddr) - idle * 3.0 * H * I * es;
}

}  // namespace tilefw::tools
