// Output comparison within the derived bound (ref_compare.hpp).
#include "ref_compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gref {

namespace {

struct Worst {
    std::size_t i;
    double ratio;
};

}  // namespace

std::string index_str(std::size_t flat, const std::vector<std::int64_t>& shape) {
    std::vector<std::int64_t> idx(shape.size());
    for (std::size_t d = shape.size(); d-- > 0;) {
        idx[d] = static_cast<std::int64_t>(flat % static_cast<std::size_t>(shape[d]));
        flat /= static_cast<std::size_t>(shape[d]);
    }
    return shape_str(idx);
}

double elem_bound(const BVec& ref, std::size_t i, bool stored, DType model) {
    double b = kSafety * kLambda * ref.e[i];
    if (stored) b += half_ulp(model, std::fabs(ref.v[i]) + b);
    return b;
}

bool compare(const std::string& name, const RefOutput& ref, const std::vector<double>& got, DType model,
             bool verbose) {
    const std::size_t n = got.size();
    std::vector<double> refv = ref.value.v, bound(n);
    for (std::size_t i = 0; i < n; ++i) bound[i] = elem_bound(ref.value, i, ref.stored_in_model_dtype, model);
    std::size_t alt_used = 0;
    for (const AltRow& row : ref.alt_rows) {
        std::size_t best = 0;
        double best_ratio = INFINITY;
        for (std::size_t a = 0; a < row.alternatives.size(); ++a) {
            const BVec& alt = row.alternatives[a];
            double r = 0;
            for (std::size_t j = 0; j < alt.size(); ++j) {
                double err = std::fabs(got[row.offset + j] - alt.v[j]);
                double ratio = std::isfinite(err) ? err / elem_bound(alt, j, ref.stored_in_model_dtype, model) : INFINITY;
                r = std::max(r, ratio);
            }
            if (r < best_ratio) best_ratio = r, best = a;
        }
        if (best == 0) continue;
        ++alt_used;
        const BVec& alt = row.alternatives[best];
        for (std::size_t j = 0; j < alt.size(); ++j) {
            refv[row.offset + j] = alt.v[j];
            bound[row.offset + j] = elem_bound(alt, j, ref.stored_in_model_dtype, model);
        }
    }
    std::vector<Worst> worst;
    double max_err = 0, max_ratio = 0;
    bool ok = true;
    for (std::size_t i = 0; i < n; ++i) {
        double err = std::fabs(got[i] - refv[i]);
        double ratio = std::isfinite(err) ? err / bound[i] : INFINITY;
        if (!(ratio <= 1.0)) ok = false;
        if (std::isfinite(err)) max_err = std::max(max_err, err);
        else max_err = INFINITY;
        max_ratio = std::max(max_ratio, ratio);
        worst.push_back({i, ratio});
    }
    std::printf("%s: max_abs_err=%.6g max_err/bound=%.6g elements=%zu %s\n", name.c_str(), max_err, max_ratio, n,
                ok ? "ok" : "FAIL");
    if (!ok) {  // the element furthest outside its bound (the first of them on equal ratios)
        const Worst& w = *std::max_element(worst.begin(), worst.end(),
                                           [](const Worst& a, const Worst& b) { return a.ratio < b.ratio; });
        std::printf("  violated %s %s got=%.9g want=%.9g bound=%.6g\n", name.c_str(),
                    index_str(w.i, ref.shape).c_str(), got[w.i], refv[w.i], bound[w.i]);
    }
    if (verbose) {
        if (!ref.note.empty())
            std::printf("  %s rows_matched_by_an_alternative=%zu\n", ref.note.c_str(), alt_used);
        std::size_t k = std::min<std::size_t>(5, worst.size());
        std::partial_sort(worst.begin(), worst.begin() + static_cast<std::ptrdiff_t>(k), worst.end(),
                          [](const Worst& a, const Worst& b) { return a.ratio > b.ratio; });
        for (std::size_t j = 0; j < k; ++j) {
            std::size_t i = worst[j].i;
            std::printf("  worst %s flat=%zu %s ref=%.9g got=%.9g err=%.6g bound=%.6g ratio=%.6g\n", name.c_str(), i,
                        index_str(i, ref.shape).c_str(), refv[i], got[i], std::fabs(got[i] - refv[i]),
                        bound[i], worst[j].ratio);
        }
    }
    return ok;
}

}  // namespace gref
