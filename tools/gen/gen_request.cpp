// A `tilefw gen` request checked and planned (gen_request.hpp).
#include "gen/gen_request.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <vector>

#include "commands.hpp"
#include "common/input_files.hpp"

namespace tilefw::tools {

namespace {
namespace fs = std::filesystem;
namespace sg = chip::sg2260;

std::optional<Failure> check_options(const GenCli& cli, const HfConfig& cfg, gen::InferenceConfig& inf) {
  if (cli.layer >= cfg.model.num_layers) {
    return Failure{2, "--layer " + std::to_string(cli.layer) + ": the model has " +
                          std::to_string(cfg.model.num_layers) + " layers (num_hidden_layers)"};
  }
  inf.phase = cli.phase == "decode" ? gen::Phase::decode : gen::Phase::prefill;
  inf.batch = cli.batch;
  inf.seq = cli.seq.value_or(inf.phase == gen::Phase::decode ? 1 : 128);
  inf.kv_len = cli.kv_len.value_or(0);
  inf.chunk = cli.chunk;
  inf.decode_chunk = cli.decode_chunk;
  if (inf.seq == 0) return Failure{2, "--seq must be >= 1"};
  if (cli.chunk != 0 && (inf.phase != gen::Phase::prefill || inf.batch != 1 || inf.seq % cli.chunk != 0)) {
    return Failure{2, "--prefill-chunk " + std::to_string(cli.chunk) + ": prefill with --batch 1 only, dividing --seq"};
  }
  if (inf.batch == 0) return Failure{2, "--batch must be >= 1"};
  if (cli.decode_chunk != 0 && (inf.phase != gen::Phase::decode || inf.batch % cli.decode_chunk != 0)) {
    return Failure{2, "--decode-chunk " + std::to_string(cli.decode_chunk) + ": decode only, dividing --batch"};
  }
  if (inf.phase == gen::Phase::decode && !cli.kv_len) return Failure{2, "--phase decode needs --kv-len K >= 1"};
  if (inf.phase == gen::Phase::decode && inf.kv_len == 0) return Failure{2, "--kv-len must be >= 1 in decode"};
  if (inf.phase == gen::Phase::decode && inf.seq != 1) return Failure{2, "--seq must be 1 in decode"};
  if (cli.cores == 0 || cli.cores > sg::kCores) return Failure{2, "--cores must be 1..8"};
  if (cli.ep > cli.cores) return Failure{2, "--ep " + std::to_string(cli.ep) + " is above --cores"};
  if (!std::isfinite(cli.capacity_factor) || cli.capacity_factor < 0) {
    return Failure{2, "--capacity-factor must be a finite number > 0"};
  }
  const uint64_t positions = uint64_t{inf.kv_len} + inf.seq;
  if (cfg.max_position_embeddings != 0 && positions > cfg.max_position_embeddings) {
    return Failure{2, "--kv-len + --seq = " + std::to_string(positions) + " exceeds max_position_embeddings"};
  }
  return std::nullopt;
}

}  // namespace

std::optional<Failure> read_request(const GenCli& cli, HfConfig& cfg, gen::InferenceConfig& inf) {
  std::string text, error;
  std::vector<uint8_t> raw;
  std::error_code ec;
  if (fs::is_directory(cli.config, ec)) return Failure{2, "--config: " + cli.config + " is a directory"};
  // Bounded: a published config.json is a few KB; the parsed tree costs ~40x the text, so an
  // unbounded read let a 90 MB file take gen past 2.5 GiB.
  if (!read_whole_file(cli.config, kMaxConfigBytes, raw, error)) return Failure{2, "--config: " + error};
  text.assign(raw.begin(), raw.end());
  std::vector<uint8_t>().swap(raw);  // one copy of the text from here on
  std::optional<DType> dt;
  if (!cli.dtype.empty()) dt = cli.dtype == "f16" ? DType::f16 : DType::bf16;
  if (!parse_hf_config(text, dt, cfg, error)) return Failure{2, cli.config + ": " + error};
  return check_options(cli, cfg, inf);
}

std::optional<Failure> generate(const GenCli& cli, gen::SizedLayer& plan, HfConfig& cfg) {
  gen::InferenceConfig inf;
  if (auto f = read_request(cli, cfg, inf)) return f;
  return size_request_layer(cli, cli.layer, cfg, inf, plan);
}

std::optional<Failure> size_request_layer(const GenCli& cli, uint32_t layer, HfConfig& cfg,
                                          const gen::InferenceConfig& inf, gen::SizedLayer& plan, gen::LayerPart part) {
  cfg.model.moe_layer = is_moe_layer(cfg, layer) && part != gen::LayerPart::attention;
  if (cfg.model.moe_layer && cli.capacity_factor > 0) {  // Rule: capacity: C = ceil(F x tokens x top_k / E)
    const double c = std::ceil(cli.capacity_factor * inf.batch * inf.seq * cfg.model.moe.top_k / cfg.model.moe.experts);
    cfg.model.moe.capacity = static_cast<uint32_t>(std::min(c, 1e9));
    if (cfg.model.moe.capacity == 0) cfg.model.moe.capacity = 1;
    cfg.model.moe.capacity_factor = cli.capacity_factor;  // C counts the request's tokens (every pass)
  }
  gen::GenError ge;
  const Status s = gen::size_layer(cfg.model, inf, gen::ParallelConfig{cli.cores, cli.tp, cli.ep, part}, plan, ge);
  if (s != Status::ok) {
    const int code = s == Status::gen_bad_config ? 2 : 1;
    const std::string key = ge.what;
    return Failure{code, (s == Status::gen_bad_config && key.rfind("tp", 0) == 0 ? "--tp " + std::to_string(cli.tp) + ": "
                                                                                   : std::string()) +
                             std::string(status_name(s)) + ": " + key + " (" + std::to_string(ge.value) + ")"};
  }
  return std::nullopt;
}

}  // namespace tilefw::tools
