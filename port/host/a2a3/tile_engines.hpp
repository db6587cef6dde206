// The a2a3 simulator's engines beside the vector unit: the tile-move DMAs of MTE2/MTE1/MTE3/
// FIX and the cube unit (pipe M), each decoding its register window on a doorbell, checking
// it with its own rules (a2a3/tile_check.hpp: raw register writes can bypass the core, and the
// simulator must not share the core's validator) and executing bit-exactly. Host-only.
//
// Numeric choices (no public source gives the cube's internal order; tilefw's, documented):
// - Cube, float types: C[i][j] = init, then for kk = 0 .. k-1 in order
//   C = fl32(C + fl32(A[i][kk] * B[kk][j])), round to nearest even, IEEE inf/NaN. f16 and bf16
//   products are exact in f32, so only the additions round. init is +0 (TMATMUL), the C element
//   (TMATMUL_ACC) or bias[j] (TMATMUL_BIAS). NaN results are the canonical quiet NaN.
// - Cube, (i32, i8, i8): exact products, two's-complement wrap-around sums.
// - FIX conversions: f32 -> f16 and f32 -> bf16 round to nearest even (overflow to inf, NaN to
//   the canonical quiet NaN); f32 -> f32 and i32 -> i32 copy bits.
#pragma once

#include <cstdint>

#include "a2a3/pipes.hpp"
#include "a2a3/timing.hpp"
#include "machine.hpp"
#include "tilefw/base/status.hpp"
#include "tilefw/chip/a2a3_engines.hpp"
#include "tilefw/desc/data/matmul_desc.hpp"
#include "tilefw/desc/data/tile_move_desc.hpp"
#include "tilefw/desc/data/vector_desc.hpp"

namespace tilefw::port::host {

/// One move pipe's DMA (chip::a2a3::dreg map) at that pipe's register window.
class A2a3MoveEngine {
 public:
  /// Hooks the DOORBELL of `pipe`'s window on `machine`; `pipes` (optional) counts its
  /// instructions and checks its reads. Neither copyable nor movable.
  A2a3MoveEngine(Machine& machine, chip::a2a3::Pipe pipe, PipeTracker* pipes = nullptr);
  A2a3MoveEngine(const A2a3MoveEngine&) = delete;
  A2a3MoveEngine& operator=(const A2a3MoveEngine&) = delete;

  Status last_status() const noexcept { return status_; }
  const desc::DescReport& last_report() const noexcept { return report_; }
  uint64_t moves() const noexcept { return moves_; }
  /// Times every move on `timer` (optional). Timing never changes a result.
  void set_timer(timing::PipeTimer* timer) noexcept { timer_ = timer; }

 private:
  void on_doorbell() noexcept;
  Machine& machine_;
  chip::a2a3::Pipe pipe_;
  uint64_t base_;
  PipeTracker* pipes_;
  Status status_ = Status::ok;
  desc::DescReport report_{};
  uint64_t moves_ = 0;
  timing::PipeTimer* timer_ = nullptr;
};

/// The cube unit (chip::a2a3::creg map).
class A2a3Cube {
 public:
  explicit A2a3Cube(Machine& machine, PipeTracker* pipes = nullptr);
  A2a3Cube(const A2a3Cube&) = delete;
  A2a3Cube& operator=(const A2a3Cube&) = delete;

  Status last_status() const noexcept { return status_; }
  const desc::DescReport& last_report() const noexcept { return report_; }
  uint64_t matmuls() const noexcept { return matmuls_; }
  /// Times every matmul on `timer` (optional).
  void set_timer(timing::PipeTimer* timer) noexcept { timer_ = timer; }

 private:
  void on_doorbell() noexcept;
  Machine& machine_;
  uint64_t base_;
  PipeTracker* pipes_;
  Status status_ = Status::ok;
  desc::DescReport report_{};
  uint64_t matmuls_ = 0;
  timing::PipeTimer* timer_ = nullptr;
};

}  // namespace tilefw::port::host
