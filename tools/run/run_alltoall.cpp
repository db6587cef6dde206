// `tilefw run` of a whole model: a transfer step generated at run time (a manifest "alltoall"
// step, docs/whole-model.md section 3.2): the token-selective combine of an expert-parallel
// group. Every chip of the group routed every token alike and stored the top-k ids; each chip's
// control cores derive the same plan from them and generate their own CDMA port streams
// (gen::emit_a2a, the same core code a device runs), round by round within the ten ports, the
// pairs' rounds planned from the choices (gen::a2a_plan) so that each round is short.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "run/run_steps_state.hpp"
#include "tilefw/gen/alltoall.hpp"

namespace tilefw::tools {

namespace sg = chip::sg2260;

namespace {

// The control core's validation of a CDMA port stream at its submission (rt::Runtime), per
// command: measured on Cortex-M4 under QEMU's instruction count (test/control_core/
// ctl_a2a_cost.cpp: 426-431 instructions, one a cycle of the 1 GHz control core). A round's
// streams are validated when it is submitted, after the round before it ended, so this is on
// the critical path; their planning and generation (about 0.3 ms a chip for DeepSeek-V3 decode
// b32 on 32 chips) run while the engines run the experts' phase and are not charged
// (docs/whole-model.md section 3.2).
constexpr uint64_t kValidateCyclesPerCdmaCommand = 431;

uint64_t round256(uint64_t v) { return (v + 255) / 256 * 256; }

// The MoE part of layer `layer` in chip `chip`'s plan (its step of the combine), or nullptr.
const ModelStep* moe_part(const ModelRun& r, uint32_t chip, uint32_t layer) {
  for (const ModelStep& s : r.stages[r.layout.plan_of(chip)].steps) {
    if (s.kind == gen::Program::layer && s.layer == layer && s.part == gen::LayerPart::mlp && s.plan.model.moe_layer) {
      return &s;
    }
  }
  return nullptr;
}

// The group's choices ([tokens, top_k] expert ids). A functional run reads every chip's stored
// ids (f32 integers) and requires them equal: every chip routed every token, and a combine
// planned from two different routings would pair sends and recvs that do not match. A
// timing-only run takes the routing model's, the same the experts' phase counted.
int group_choices(ModelRun& r, const ManifestStep& ms, const ModelStep& s, std::vector<uint32_t>& out) {
  const ManifestAlltoall& a = *ms.alltoall;
  const gen::MoeConfig& moe = s.plan.model.moe;
  const uint64_t n = uint64_t{s.plan.inference.batch} * s.plan.inference.seq * moe.top_k;
  if (r.cli.timing_only) {
    std::string error;
    if (!step_choices(r.cli, s, a.microbatch, out, error)) return steps_usage(ms.name + ": " + error);
    return 0;
  }
  out.assign(n, 0);
  for (uint32_t i = 0; i < a.chips; ++i) {
    const uint32_t chip = a.first_chip + i;
    auto p = r.chips[chip].machine->translate(sg::kDdrWindowBase + a.per_chip[i].choices, n * 4);
    if (!p) return steps_usage(ms.name + ": chip " + std::to_string(chip) + ": the choices' address is not backed");
    for (uint64_t j = 0; j < n; ++j) {
      float v = 0;
      std::memcpy(&v, p.value() + j * 4, 4);
      // Not an expert id: left to the generator's check, which names the token and choice.
      const uint32_t id = v >= 0 && v < static_cast<float>(moe.experts) && std::floor(v) == v ? static_cast<uint32_t>(v)
                                                                                                : moe.experts;
      if (i == 0) {
        out[j] = id;
      } else if (out[j] != id) {
        std::printf("error: step %s: chip %u chose expert %u for token %llu's choice %llu, chip %u chose %u: the group's "
                    "routings differ\n",
                    ms.name.c_str(), chip, id, static_cast<unsigned long long>(j / moe.top_k),
                    static_cast<unsigned long long>(j % moe.top_k), a.first_chip, out[j]);
        return 1;
      }
    }
  }
  return 0;
}

// The manifest's group against the request's plan: each chip's rows (its MoE part's output,
// the buffer the ring would reduce) and choices (its moe_choice at the micro-batch) where the
// plan puts them, and f32 rows (the experts' partials are f32: a recv adding another format
// into them would run and be wrong). Exit 2 naming the step, chip and key.
int check_group(const ModelRun& r, const ManifestStep& ms, const ManifestAlltoall& a) {
  for (uint32_t i = 0; i < a.chips; ++i) {
    const uint32_t chip = a.first_chip + i;
    const ModelStep* s = moe_part(r, chip, a.layer);
    const std::string at = ms.name + ": alltoall.per_chip[" + std::to_string(i) + "]";
    if (s == nullptr || s->plan.parallel.own_count == 0) return steps_usage(at + ": chip " + std::to_string(chip) + " has no MoE part with owner rows in layer " + std::to_string(a.layer));
    const gen::TensorInfo& ids = s->plan.memory[gen::TensorId::moe_choice];
    if (a.per_chip[i].format != cmd::kCdmaFormatFp32) return steps_usage(at + ".format: the experts' partials are f32");
    if (a.per_chip[i].rows != s->group_buffer) return steps_usage(at + ".rows: not the plan's MoE output of chip " + std::to_string(chip));
    if (a.per_chip[i].choices != ids.device_addr + uint64_t{a.microbatch} * ids.bytes) {
      return steps_usage(at + ".choices: not the plan's moe_choice of chip " + std::to_string(chip) + " at micro-batch " +
                         std::to_string(a.microbatch));
    }
  }
  return 0;
}

int a2a_failure(const ManifestStep& ms, uint32_t chip, const gen::A2aError& e) {
  std::string at;
  if (e.token != gen::kA2aNoIndex) at += " token " + std::to_string(e.token);
  if (e.choice != gen::kA2aNoIndex) at += " choice " + std::to_string(e.choice);
  std::printf("error: step %s: chip %u: %s: %s%s (%llu)\n", ms.name.c_str(), chip, status_name(e.status), e.what,
              at.c_str(), static_cast<unsigned long long>(e.value));
  return 1;
}

// Chip `rank`'s port streams of one round, generated into its streams region (nothing else runs
// during a transfer slot) and made submissions.
int chip_round(ModelRun& r, const ManifestStep& ms, gen::A2aGroup g, uint32_t rank, Span<const uint32_t> choices,
               const gen::A2aPlan& plan, uint32_t round, std::vector<rt::CdmaSubmission>& subs, uint64_t& commands) {
  const ManifestAlltoall& a = *ms.alltoall;
  const uint32_t chip = a.first_chip + rank;
  ChipRun& ch = r.chips[chip];
  g.rank = rank;
  g.rows = a.per_chip[rank].rows;
  gen::A2aPorts ports;
  gen::A2aError e;
  if (gen::size_a2a(g, gen::A2aDirection::combine, choices, plan, round, ports, e) != Status::ok) return a2a_failure(ms, chip, e);
  ByteSpan bufs[gen::kA2aPeersPerRound];
  uint64_t at = 0;
  for (uint32_t i = 0; i < ports.count; ++i) {
    if (at + round256(ports.bytes[i]) > ch.streams_room) {
      return steps_usage(ms.name + ": chip " + std::to_string(chip) + ": the combine's streams outgrow the streams region (" +
                         std::to_string(ch.streams_room) + " bytes): a larger --max-stream-mib");
    }
    bufs[i] = ByteSpan(ch.streams + at, ports.bytes[i]);
    rt::CdmaSubmission sub = cdma_submission(r, a.first_chip + ports.peer[i]);
    sub.stream.device_addr = ch.streams_addr + at;
    sub.stream.bytes = ConstByteSpan(ch.streams + at, ports.bytes[i]);
    subs.push_back(sub);
    commands += ports.commands[i];
    at += round256(ports.bytes[i]);
  }
  gen::A2aPorts written;
  if (gen::emit_a2a(g, gen::A2aDirection::combine, choices, plan, round, Span<const ByteSpan>(bufs, ports.count), written,
                    e) != Status::ok) {
    return a2a_failure(ms, chip, e);
  }
  return 0;
}

}  // namespace

namespace {

// One group's combine, planned: its step, its group as the generator sees it, the choices and
// the pairs' rounds (the same on every chip; a chip's control cores keep it in their memory).
struct PlannedCombine {
  const ManifestStep* ms = nullptr;
  gen::A2aGroup g;
  std::vector<uint32_t> choices;
  std::unique_ptr<gen::A2aPlan> plan;
};

int plan_combine(ModelRun& r, const ManifestStep& ms, PlannedCombine& pc) {
  const ManifestAlltoall& a = *ms.alltoall;
  if (a.direction != "combine") return steps_usage(ms.name + ": alltoall.direction \"" + a.direction + "\": run generates the combine");
  if (const int rc = check_group(r, ms, a); rc != 0) return rc;
  const ModelStep& s = *moe_part(r, a.first_chip, a.layer);  // check_group found it
  if (const int rc = group_choices(r, ms, s, pc.choices); rc != 0) return rc;
  pc.ms = &ms;
  pc.g.chips = a.chips;
  pc.g.tokens = s.plan.inference.batch * s.plan.inference.seq;
  pc.g.own = s.plan.parallel.own_count;
  pc.g.experts = s.plan.model.moe.experts;
  pc.g.top_k = s.plan.model.moe.top_k;
  pc.g.hidden = s.plan.model.hidden;
  pc.g.format = a.per_chip[0].format;
  pc.plan = std::make_unique<gen::A2aPlan>();
  gen::A2aError e;
  const Span<const uint32_t> ids(pc.choices.data(), pc.choices.size());
  if (gen::a2a_plan(pc.g, ids, *pc.plan, e) != Status::ok) return a2a_failure(ms, a.first_chip, e);
  return 0;
}

}  // namespace

int run_alltoall(ModelRun& r, const std::vector<const ManifestStep*>& steps, uint64_t& cycles) {
  std::vector<PlannedCombine> all(steps.size());
  for (size_t k = 0; k < steps.size(); ++k) {
    if (const int rc = plan_combine(r, *steps[k], all[k]); rc != 0) return rc;
  }
  // Round by round, every group's ports of that round at once (their chips are disjoint).
  cycles = 0;
  for (uint32_t round = 0; round < gen::kA2aMaxRounds; ++round) {
    std::vector<std::vector<rt::CdmaSubmission>> subs(r.chips.size());
    uint64_t validate = 0;  // the slowest chip's validation before its ports start
    bool any = false;
    for (const PlannedCombine& pc : all) {
      if ((pc.plan->round_mask >> round & 1) == 0) continue;
      any = true;
      const Span<const uint32_t> ids(pc.choices.data(), pc.choices.size());
      const uint32_t first = pc.ms->alltoall->first_chip;
      for (uint32_t rank = 0; rank < pc.g.chips; ++rank) {
        uint64_t commands = 0;
        if (const int rc = chip_round(r, *pc.ms, pc.g, rank, ids, *pc.plan, round, subs[first + rank], commands); rc != 0) {
          return rc;
        }
        validate = std::max(validate, commands * kValidateCyclesPerCdmaCommand);
      }
    }
    if (!any) continue;
    uint64_t c = 0;
    if (const int rc = run_cdma(r, steps.front()->name, subs, c); rc != 0) return rc;
    cycles += c;
    r.cycles += validate;  // the schedule waits for it; counted as the control cores', not as communication
    r.control += validate;
  }
  return 0;
}

}  // namespace tilefw::tools
