// What `tilefw gen --model` builds while it writes (gen_model.cpp: the schedule and its
// streams; gen_model_data.cpp: the plans, the data, the capacity check and the manifest).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <vector>

#include "formats/chip_config.hpp"
#include "formats/sg2260_manifest.hpp"
#include "gen/model_plan.hpp"

namespace tilefw::tools {

struct StepSizes {
  uint64_t bytes[gen::kMaxCores][3] = {};
  uint32_t commands[gen::kMaxCores][3] = {};
};

struct Writer {
  Writer(const GenCli& c, const std::filesystem::path& d) : cli(c), dir(d) {}
  const GenCli& cli;
  const std::filesystem::path& dir;
  std::vector<ModelPlan> stages;  // one plan per pipeline stage (replicas share it)
  ModelLayout layout;
  ChipWhatIf chip;  // --chip-config (the profile's figures otherwise)
  Manifest m;
  uint64_t commands = 0, stream_bytes = 0;
  std::vector<uint64_t> chip_streams;  // stream bytes per chip (size_schedule)
  std::map<const ModelStep*, StepSizes> sizes;  // each stage step's streams (every micro-batch's alike)
  bool many() const { return layout.chips > 1 || layout.microbatches > 1; }
  /// Steps whose plans are equal in everything the streams follow (plan_key in gen_model.cpp:
  /// the chips of a replica or of an expert-parallel group after its first) share one set of
  /// stream files: the first such step's cores.
  std::map<std::string, std::vector<ManifestCore>> written;
};

/// Every stage planned (the request checked: exit 2 or 1 naming what failed).
std::optional<Failure> plan_stages(Writer& w);
/// The layout again, with the system of chips (--system) it needs.
std::optional<Failure> model_layout_checked(Writer& w);
/// Exact stream sizes of a step (a MoE layer in two phases: its routing phase).
std::optional<Failure> size_step(const ModelStep& s, StepSizes& out);
/// Everything a step's streams follow (its plan's config, passes, parallel config, tensor
/// addresses and sizes): steps with equal keys emit equal bytes. step_key leaves out which
/// experts a chip holds for a MoE layer's routing phase (it runs none).
std::string plan_key(const ModelStep& s, const gen::SizedLayer& p);
std::string step_key(const ModelStep& s, const gen::SizedLayer& plan);
/// Every stage step sized, and each chip's stream bytes (gen_model.cpp).
std::optional<Failure> size_schedule(Writer& w);
/// The steps, slot by slot, with the pipeline's transfers (gen_model.cpp).
std::optional<Failure> write_schedule(Writer& w);
/// Each chip's DDR: weights, caches, activations, scratch and its streams.
uint64_t chip_ddr_bytes(const Writer& w, uint32_t chip);
/// exit 1 naming the first chip whose DDR cannot hold its share.
std::optional<Failure> check_capacity(const Writer& w);
/// Weights, inputs, regions and the tensor lists of the manifest.
std::optional<Failure> write_data(Writer& w);
/// The manifest (model object, report, system) written.
std::optional<Failure> write_manifest_file(Writer& w);

}  // namespace tilefw::tools
