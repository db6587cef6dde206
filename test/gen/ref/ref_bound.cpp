// The bound steps (R) (M) (N) (P) (S) (V) (A) (+) derived in ref_bound.hpp.
#include "ref_bound.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace gref {

void round_model(BVec& x, const Precision& p) {
    for (std::size_t i = 0; i < x.size(); ++i) x.e[i] = std::hypot(x.e[i], p.u * std::fabs(x.v[i]) + p.eta);
}

BVec linear(const BVec& x, std::size_t rows, std::size_t in, const BVec& w, std::size_t out,
            const BVec* bias, const Precision& p) {
    BVec y(rows * out);
    const double acc = static_cast<double>(in + 1) * p.f;
    for (std::size_t r = 0; r < rows; ++r) {
        const double* xv = &x.v[r * in];
        const double* xe = &x.e[r * in];
        for (std::size_t o = 0; o < out; ++o) {
            const double* wv = &w.v[o * in];
            const double* we = &w.e[o * in];
            double dot = 0, prop = 0, mag = 0, absdot = 0;
            for (std::size_t k = 0; k < in; ++k) {
                double ax = std::fabs(xv[k]), aw = std::fabs(wv[k]);
                dot += xv[k] * wv[k];
                absdot += ax * aw;
                prop += xe[k] * aw * xe[k] * aw + ax * we[k] * ax * we[k];
                mag += (ax + xe[k]) * (aw + we[k]);
            }
            double err = std::sqrt(prop) + acc * mag;
            if (bias) {
                dot += bias->v[o];
                err = std::hypot(err, bias->e[o]) + p.f * (absdot + std::fabs(bias->v[o]));
            }
            y.v[r * out + o] = dot;
            y.e[r * out + o] = err;
        }
    }
    return y;
}

BVec rmsnorm(const BVec& x, std::size_t rows, std::size_t n, const BVec& w, double eps, const Precision& p) {
    BVec y(rows * n);
    const double dn = static_cast<double>(n);
    const double f32_rel = (dn / 2 + 4) * p.f + p.T;  // sum of squares, mean, eps, rsqrt, 2 products
    for (std::size_t r = 0; r < rows; ++r) {
        const double* xv = &x.v[r * n];
        const double* xe = &x.e[r * n];
        double ss = 0, sxe = 0;
        for (std::size_t i = 0; i < n; ++i) {
            ss += xv[i] * xv[i];
            sxe += (xv[i] * xe[i]) * (xv[i] * xe[i]);
        }
        double rr = 1.0 / std::sqrt(ss / dn + eps);
        double dr = rr * rr * rr / dn * std::sqrt(sxe);  // dr = -r^3/n sum x_j dx_j
        for (std::size_t i = 0; i < n; ++i) {
            double ax = std::fabs(xv[i]), aw = std::fabs(w.v[i]);
            double yi = xv[i] * rr * w.v[i];
            y.v[r * n + i] = yi;
            double a = aw * rr * xe[i], b = aw * ax * dr, c = ax * rr * w.e[i];
            y.e[r * n + i] = std::sqrt(a * a + b * b + c * c) + f32_rel * std::fabs(yi);
        }
    }
    return y;
}

RopeTables rope_tables(const RopeParams& r, std::size_t npos, std::size_t head_dim, bool round_tables,
                       const Precision& p) {
    RopeTables t;
    t.half = head_dim / 2;
    t.cos = BVec(npos * t.half);
    t.sin = BVec(npos * t.half);
    const double theta_rel = (std::log(r.base) + 8.0) * p.f;
    const double af = r.attention_factor;
    for (std::size_t pos = 0; pos < npos; ++pos) {
        for (std::size_t i = 0; i < t.half; ++i) {
            double th = static_cast<double>(pos) * r.inv_freq[i];
            std::size_t k = pos * t.half + i;
            t.cos.v[k] = std::cos(th) * af;
            t.sin.v[k] = std::sin(th) * af;
            double err = std::fabs(af) * (std::fabs(th) * theta_rel + p.T + 2 * p.f);
            t.cos.e[k] = err;
            t.sin.e[k] = err;
        }
    }
    if (round_tables) {
        round_model(t.cos, p);
        round_model(t.sin, p);
    }
    return t;
}

void rope_apply(double* v, double* e, const RopeTables& t, std::size_t pos) {
    const std::size_t h = t.half;
    std::vector<double> nv(2 * h), ne(2 * h);
    const double f = 0x1p-24;
    for (std::size_t i = 0; i < 2 * h; ++i) {
        std::size_t k = pos * h + (i % h);
        std::size_t partner = i < h ? i + h : i - h;
        double sign = i < h ? -1.0 : 1.0;  // rotate_half: [-x2, x1]
        double c = t.cos.v[k], ce = t.cos.e[k], s = t.sin.v[k], se = t.sin.e[k];
        double xi = v[i], xp = v[partner];
        nv[i] = xi * c + sign * xp * s;
        double t1 = e[i] * std::fabs(c), t2 = std::fabs(xi) * ce, t3 = e[partner] * std::fabs(s), t4 = std::fabs(xp) * se;
        ne[i] = std::sqrt(t1 * t1 + t2 * t2 + t3 * t3 + t4 * t4) + 2 * f * (std::fabs(xi * c) + std::fabs(xp * s));
    }
    std::copy(nv.begin(), nv.end(), v);
    std::copy(ne.begin(), ne.end(), e);
}

namespace {

// Scores z_j = scale q.k_j with their bounds (M), plus the optional rounding (R).
void scores(const double* q, const double* qe, const KV& kv, std::size_t d, double scale,
            const RoundPolicy& pol, const Precision& p, std::vector<double>& z, std::vector<double>& ze) {
    const std::size_t L = kv.kv.size();
    const double acc = static_cast<double>(d + 2) * p.f;
    for (std::size_t j = 0; j < L; ++j) {
        const double* k = kv.kv[j];
        const double* ke = kv.ke[j];
        double dot = 0, prop = 0, mag = 0;
        for (std::size_t i = 0; i < d; ++i) {
            double aq = std::fabs(q[i]), ak = std::fabs(k[i]);
            dot += q[i] * k[i];
            prop += qe[i] * ak * qe[i] * ak + aq * ke[i] * aq * ke[i];
            mag += (aq + qe[i]) * (ak + ke[i]);
        }
        z[j] = scale * dot;
        ze[j] = scale * (std::sqrt(prop) + acc * mag);
        if (pol.scores) ze[j] = std::hypot(ze[j], p.u * std::fabs(z[j]) + p.eta);
    }
}

}  // namespace

// (S): probabilities and their bounds from the scores' bounds (first order, RSS).
void softmax_row(const std::vector<double>& z, const std::vector<double>& ze, double shift_round,
                 const Precision& p, std::vector<double>& pr, std::vector<double>& pe, std::vector<double>* Eout) {
    const std::size_t L = z.size();
    pr.assign(L, 0.0);
    pe.assign(L, 0.0);
    double m = *std::max_element(z.begin(), z.end());
    double sum = 0;
    for (std::size_t j = 0; j < L; ++j) sum += (pr[j] = std::exp(z[j] - m));
    std::vector<double> E(L);
    double common = 0;  // sum_l (p_l E_l)^2: the normalisation's share
    for (std::size_t j = 0; j < L; ++j) {
        pr[j] /= sum;
        E[j] = std::hypot(ze[j], shift_round) + p.f * std::fabs(z[j] - m) + p.T;
        common += (pr[j] * E[j]) * (pr[j] * E[j]);
    }
    const double f32_rel = static_cast<double>(3 * L + 2) * p.f;
    for (std::size_t j = 0; j < L; ++j) pe[j] = pr[j] * (std::sqrt(E[j] * E[j] + common) + f32_rel);
    if (Eout) *Eout = std::move(E);
}

void renormalized_weights(const std::vector<double>& pr, const std::vector<double>& E,
                          const std::vector<int>& chosen, const Precision& p, std::vector<double>& w,
                          std::vector<double>& we) {
    const std::size_t k = chosen.size();
    double sum = 0, common = 0;
    for (int e : chosen) sum += pr[static_cast<std::size_t>(e)];
    w.assign(k, 0.0);
    we.assign(k, 0.0);
    for (std::size_t j = 0; j < k; ++j) {
        auto e = static_cast<std::size_t>(chosen[j]);
        w[j] = pr[e] / sum;
        common += (w[j] * E[e]) * (w[j] * E[e]);
    }
    const double f32_rel = static_cast<double>(3 * pr.size() + 3 * k + 2) * p.f;
    for (std::size_t j = 0; j < k; ++j) {
        double Ee = E[static_cast<std::size_t>(chosen[j])];
        we[j] = w[j] * (std::sqrt(Ee * Ee + common) + f32_rel);
    }
}

BVec weighted_sum(const std::vector<double>& w, const std::vector<double>& we,
                  const std::vector<const BVec*>& y, std::size_t n, const Precision& p) {
    BVec o(n);
    const double acc = static_cast<double>(w.size() + 1) * p.f;
    for (std::size_t i = 0; i < n; ++i) {
        double sum = 0, prop = 0, mag = 0;
        for (std::size_t j = 0; j < w.size(); ++j) {
            double yv = y[j]->v[i], ye = y[j]->e[i], ay = std::fabs(yv);
            sum += w[j] * yv;
            prop += (we[j] * ay) * (we[j] * ay) + (w[j] * ye) * (w[j] * ye);
            mag += (std::fabs(w[j]) + we[j]) * (ay + ye);
        }
        o.v[i] = sum;
        o.e[i] = std::sqrt(prop) + acc * mag;
    }
    return o;
}

void attend_row(const double* q, const double* qe, const KV& kv, std::size_t d, double scale,
                const RoundPolicy& pol, const Precision& p, double* o, double* oe) {
    attend_row(q, qe, kv, d, d, scale, pol, p, o, oe);
}

void attend_row(const double* q, const double* qe, const KV& kv, std::size_t dk, std::size_t dv, double scale,
                const RoundPolicy& pol, const Precision& p, double* o, double* oe) {
    const std::size_t L = kv.kv.size();
    std::vector<double> z(L), ze(L), pr(L), pe(L);
    scores(q, qe, kv, dk, scale, pol, p, z, ze);
    softmax_row(z, ze, pol.mm_inputs ? p.u : 0.0, p, pr, pe);
    const double acc = static_cast<double>(L + 1) * p.f;
    for (std::size_t i = 0; i < dv; ++i) {
        double sum = 0, prop = 0, mag = 0;
        for (std::size_t j = 0; j < L; ++j) {
            double av = std::fabs(kv.vv[j][i]), ve = kv.ve[j][i];
            sum += pr[j] * kv.vv[j][i];
            prop += pe[j] * av * pe[j] * av + pr[j] * ve * pr[j] * ve;
            mag += (pr[j] + pe[j]) * (av + ve);
        }
        o[i] = sum;
        oe[i] = std::sqrt(prop) + acc * mag;
    }
}

namespace {

struct ActEval {
    double value, deriv, m2;
};

ActEval act_eval(Act a, double x) {
    if (a == Act::silu) {
        double s = 1.0 / (1.0 + std::exp(-x));
        return {x * s, s * (1.0 + x * (1.0 - s)), 0.5};
    }
    if (a == Act::gelu_erf) {
        double cdf = 0.5 * (1.0 + std::erf(x / std::numbers::sqrt2));
        double pdf = std::exp(-0.5 * x * x) / std::sqrt(2.0 * std::numbers::pi);
        return {x * cdf, cdf + x * pdf, 0.8};
    }
    const double c = std::sqrt(2.0 / std::numbers::pi), k = 0.044715;
    double inner = c * (x + k * x * x * x);
    double t = std::tanh(inner);
    double d = 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * c * (1.0 + 3.0 * k * x * x);
    return {0.5 * x * (1.0 + t), d, 1.0};
}

}  // namespace

BVec act_mul(const BVec& g, const BVec& up, Act act, const Precision& p) {
    BVec m(g.size());
    for (std::size_t i = 0; i < g.size(); ++i) {
        ActEval a = act_eval(act, g.v[i]);
        double E = g.e[i];
        double ae = (std::fabs(a.deriv) + a.m2 * E) * E + (p.T + 4 * p.f) * (std::fabs(a.value) + std::fabs(g.v[i]));
        double u = up.v[i], ue = up.e[i];
        m.v[i] = a.value * u;
        m.e[i] = std::hypot(ae * std::fabs(u), std::fabs(a.value) * ue) + ae * ue + p.f * std::fabs(m.v[i]);
    }
    return m;
}

BVec add(const BVec& a, const BVec& b, const Precision& p) {
    BVec s(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        s.v[i] = a.v[i] + b.v[i];
        s.e[i] = std::hypot(a.e[i], b.e[i]) + p.f * (std::fabs(a.v[i]) + std::fabs(b.v[i]) + a.e[i] + b.e[i]);
    }
    return s;
}

}  // namespace gref
