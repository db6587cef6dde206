// Llama-3-8B's layer as the generator benchmarks use it: test/data/models/llama-3-8b.json
// filled by hand (hidden 4096, 32 heads, 8 kv heads, head_dim 128, intermediate 14336, bf16,
// silu, rms_norm_eps 1e-5).
#pragma once

#include "tilefw/gen/generator.hpp"

namespace tilefw::bench {

inline gen::ModelConfig llama3_8b() {
  gen::ModelConfig m;
  m.type = gen::ModelType::llama;
  m.hidden = 4096;
  m.heads = 32;
  m.kv_heads = 8;
  m.head_dim = 128;
  m.intermediate = 14336;
  m.num_layers = 32;
  m.rms_eps = 1e-5f;
  m.act = gen::Activation::silu;
  m.dtype = DType::bf16;
  return m;
}

}  // namespace tilefw::bench
