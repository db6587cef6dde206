// Reading what `tilefw gen` writes (DIR/manifest.json: report, weights[], inputs[], outputs[])
// and what `tilefw run` writes (DIR2/<output name>.dat), as the contract
// (docs/generator.md section 2.1, and docs/cli.md section 5) describes them.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ref_numeric.hpp"

namespace gref {

struct TensorDesc {
    std::string name;
    std::vector<std::int64_t> shape;
    DType dtype = DType::f32;
    std::string file;        // path relative to the manifest's folder
    std::uint64_t offset = 0;
    std::uint64_t bytes = 0;
    std::size_t elements() const;
};

struct RunReport {
    std::string model_type;
    std::string kind = "layer";  // "model": a whole-model manifest (report.kind), layer unused
    int layer = 0;
    int num_layers = 0;          // kind "model": report.num_layers
    std::string phase;
    int batch = 1, seq = 1, kv_len = 0;
    DType dtype = DType::bf16;
    // MoE expert capacity (report.capacity, written with --capacity-factor): -1 = none (every
    // routed token kept, Rule: capacity's default C = tokens).
    long long capacity = -1;
    // Passes the layer ran in (report.chunks: a prefill in chunks of tokens, a decode batch in
    // passes of rows; each pass is a contiguous run of the batch-major tokens). The capacity
    // holds per pass: every pass's tokens compete for their own C slots.
    int chunks = 1;
};

struct Manifest {
    std::string dir;
    RunReport report;
    std::map<std::string, TensorDesc> weights;
    std::map<std::string, TensorDesc> inputs;
    std::vector<TensorDesc> outputs;
};

Manifest load_manifest(const std::string& dir);

// The tensor's elements in double; checks bytes == elements * dtype size and the file extent.
std::vector<double> read_tensor(const std::string& dir, const TensorDesc& t);

// Output `t` of a run: DIR2/<name>.dat holding the whole tensor (offset 0, exact size).
std::vector<double> read_output(const std::string& run_dir, const TensorDesc& t);

// The config.json (any JSON file) or exit-2 error naming it.
nlohmann::json read_json(const std::string& path);

std::string shape_str(const std::vector<std::int64_t>& s);

}  // namespace gref
