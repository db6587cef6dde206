// `tilefw gen`'s output directory: checked before the work, written as a temporary sibling and
// renamed into place at the end (a failure leaves no partial output), and the small writers
// both the one-layer and the whole-model generation use.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "formats/sg2260_manifest.hpp"
#include "gen/gen_request.hpp"

namespace tilefw::tools {

std::optional<Failure> out_path(const std::string& arg, std::filesystem::path& out);
std::optional<Failure> check_out(const GenCli& cli, const std::filesystem::path& out);
std::optional<Failure> prepare_out(const GenCli& cli, const std::filesystem::path& out, std::filesystem::path& tmp,
                                   int& slot);
std::optional<Failure> commit_out(const GenCli& cli, const std::filesystem::path& tmp, const std::filesystem::path& out);
bool write_bytes(const std::filesystem::path& p, const uint8_t* data, size_t n);
const char* json_dtype(DType d);
/// A generated tensor's manifest entry named `name`: its shape, dtype, device address and bytes
/// (its file, file offset and chip are the caller's to set).
ManifestTensor manifest_tensor(const gen::TensorInfo& t, const std::string& name);

}  // namespace tilefw::tools
