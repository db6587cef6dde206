// Comparing one output of a run with the reference within its bound (shared by gen_ref_check
// and model_ref_check).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ref_layer.hpp"

namespace gref {

// "[i, j, ...]" of flat index `flat` in a row-major tensor of `shape`.
std::string index_str(std::size_t flat, const std::vector<std::int64_t>& shape);

// The allowed |got - ref| of element i: kSafety kLambda e (ref_bound.hpp), plus half an ulp of
// the model dtype when the output is stored in it.
double elem_bound(const BVec& ref, std::size_t i, bool stored, DType model);

// Compares output `name`; prints its summary line, the worst element when it fails (index,
// got, want, bound) and, with verbose, the five worst elements. Rows listed in ref.alt_rows
// (MoE tokens whose routing or capacity is ambiguous) pass when within the bound of any one
// of their alternatives (all elements of the row against the same one).
bool compare(const std::string& name, const RefOutput& ref, const std::vector<double>& got, DType model,
             bool verbose);

}  // namespace gref
