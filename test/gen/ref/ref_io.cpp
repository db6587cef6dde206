#include "ref_io.hpp"

#include <fstream>
#include <iterator>
#include <sstream>

namespace gref {

using nlohmann::json;

std::size_t TensorDesc::elements() const {
    std::size_t n = 1;
    for (auto d : shape) n *= static_cast<std::size_t>(d);
    return n;
}

std::string shape_str(const std::vector<std::int64_t>& s) {
    std::ostringstream o;
    o << '[';
    for (std::size_t i = 0; i < s.size(); ++i) o << (i ? ", " : "") << s[i];
    o << ']';
    return o.str();
}

json read_json(const std::string& path) {
    std::ifstream f(path);
    if (!f) throw UsageError("cannot open " + path);
    try {
        return json::parse(f);
    } catch (const json::exception& e) {
        throw UsageError(path + ": not valid JSON (" + e.what() + ")");
    }
}

namespace {

const json& need(const json& j, const std::string& key, const std::string& where) {
    if (!j.is_object() || !j.contains(key) || j.at(key).is_null())
        throw UsageError(where + ": missing key '" + key + "'");
    return j.at(key);
}

TensorDesc parse_desc(const json& j, const std::string& where) {
    TensorDesc t;
    try {
        t.name = need(j, "name", where).get<std::string>();
        std::string w = where + " '" + t.name + "'";
        t.shape = need(j, "shape", w).get<std::vector<std::int64_t>>();
        t.dtype = parse_dtype(need(j, "dtype", w).get<std::string>(), w + ".dtype");
        if (j.contains("file") && !j.at("file").is_null()) t.file = j.at("file").get<std::string>();
        if (j.contains("file_offset")) t.offset = j.at("file_offset").get<std::uint64_t>();
        t.bytes = need(j, "bytes", w).get<std::uint64_t>();
    } catch (const json::exception& e) {
        throw UsageError(where + " '" + t.name + "': bad field type (" + e.what() + ")");
    }
    return t;
}

RunReport parse_report(const json& m) {
    const json& r = need(m, "report", "manifest.json");
    RunReport rep;
    try {
        rep.model_type = need(r, "model_type", "report").get<std::string>();
        if (r.contains("kind") && !r.at("kind").is_null()) rep.kind = r.at("kind").get<std::string>();
        // A whole-model manifest has no `layer` (ignored if present) but `num_layers`.
        if (rep.kind == "model") rep.num_layers = need(r, "num_layers", "report").get<int>();
        else rep.layer = need(r, "layer", "report").get<int>();
        rep.phase = need(r, "phase", "report").get<std::string>();
        rep.batch = need(r, "batch", "report").get<int>();
        rep.seq = need(r, "seq", "report").get<int>();
        rep.kv_len = need(r, "kv_len", "report").get<int>();
        rep.dtype = parse_dtype(need(r, "dtype", "report").get<std::string>(), "report.dtype");
        if (r.contains("capacity") && !r.at("capacity").is_null()) {
            if (!r.at("capacity").is_number_integer() || r.at("capacity").get<long long>() < 0)
                throw UsageError("report.capacity: expected a non-negative integer");
            rep.capacity = r.at("capacity").get<long long>();
        }
        if (r.contains("chunks")) rep.chunks = r.at("chunks").get<int>();
    } catch (const json::exception& e) {
        throw UsageError(std::string("report: bad field type (") + e.what() + ")");
    }
    if (rep.dtype == DType::f32 || rep.dtype == DType::i32) throw UsageError("report.dtype: expected bf16 or f16");
    if (rep.kind == "model" && rep.num_layers < 1) throw UsageError("report.num_layers: expected >= 1");
    if (rep.batch < 1 || rep.seq < 1 || rep.kv_len < 0)
        throw UsageError("report: batch/seq must be >= 1 and kv_len >= 0");
    if (rep.chunks < 1 || (static_cast<long long>(rep.batch) * rep.seq) % rep.chunks != 0)
        throw UsageError("report.chunks: expected a divisor of batch x seq");
    return rep;
}

std::vector<unsigned char> read_bytes(const std::string& path, std::uint64_t off, std::uint64_t n,
                                      const std::string& what) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw UsageError(what + ": cannot open " + path);
    f.seekg(0, std::ios::end);
    auto size = static_cast<std::uint64_t>(f.tellg());
    if (off + n > size)
        throw UsageError(what + ": " + path + " has " + std::to_string(size) + " bytes, need " +
                         std::to_string(off + n));
    std::vector<unsigned char> buf(n);
    f.seekg(static_cast<std::streamoff>(off));
    f.read(reinterpret_cast<char*>(buf.data()), static_cast<std::streamsize>(n));
    if (!f) throw UsageError(what + ": read error in " + path);
    return buf;
}

std::vector<double> decode_all(const TensorDesc& t, const std::vector<unsigned char>& buf) {
    std::vector<double> v(t.elements());
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = decode_at(t.dtype, buf.data(), i);
    return v;
}

}  // namespace

Manifest load_manifest(const std::string& dir) {
    Manifest m;
    m.dir = dir;
    json j = read_json(dir + "/manifest.json");
    m.report = parse_report(j);
    auto list = [&](const char* key) -> const json& {
        const json& a = need(j, key, "manifest.json");
        if (!a.is_array()) throw UsageError(std::string("manifest.json: '") + key + "' is not an array");
        return a;
    };
    for (const auto& w : list("weights")) {
        TensorDesc t = parse_desc(w, "weights[]");
        m.weights[t.name] = t;
    }
    for (const auto& w : list("inputs")) {
        TensorDesc t = parse_desc(w, "inputs[]");
        m.inputs[t.name] = t;
    }
    for (const auto& w : list("outputs")) m.outputs.push_back(parse_desc(w, "outputs[]"));
    return m;
}

std::vector<double> read_tensor(const std::string& dir, const TensorDesc& t) {
    std::string what = "tensor '" + t.name + "'";
    if (t.file.empty()) throw UsageError(what + ": no 'file' (a --timing-only manifest has no data)");
    std::uint64_t want = t.elements() * dtype_bytes(t.dtype);
    if (t.bytes != want)
        throw UsageError(what + ": bytes " + std::to_string(t.bytes) + " != " + std::to_string(want) +
                         " for shape " + shape_str(t.shape) + " " + dtype_name(t.dtype));
    return decode_all(t, read_bytes(dir + "/" + t.file, t.offset, t.bytes, what));
}

std::vector<double> read_output(const std::string& run_dir, const TensorDesc& t) {
    std::string path = run_dir + "/" + t.name + ".dat";
    std::string what = "output '" + t.name + "'";
    std::uint64_t want = t.elements() * dtype_bytes(t.dtype);
    std::ifstream f(path, std::ios::binary | std::ios::ate);
    if (!f) throw UsageError(what + ": cannot open " + path);
    auto size = static_cast<std::uint64_t>(f.tellg());
    if (size != want)
        throw UsageError(what + ": " + path + " has " + std::to_string(size) + " bytes, expected " +
                         std::to_string(want) + " (" + shape_str(t.shape) + " " + dtype_name(t.dtype) + ")");
    return decode_all(t, read_bytes(path, 0, want, what));
}

}  // namespace gref
