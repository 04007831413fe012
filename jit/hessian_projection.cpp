#include "jit/hessian_projection.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

#include "dsl/mode.h"

namespace dualjit::jit {

std::string_view projection_kind_name(ProjectionKind k) {
  switch (k) {
    case ProjectionKind::None:
      return "none";
    case ProjectionKind::Clamp:
      return "clamp";
    case ProjectionKind::Abs:
      return "abs";
  }
  return "?";
}

ProjectionKind parse_projection_kind(std::string_view name) {
  for (ProjectionKind k : {ProjectionKind::None, ProjectionKind::Clamp, ProjectionKind::Abs}) {
    if (projection_kind_name(k) == name) return k;
  }
  throw std::invalid_argument("unknown Hessian projection '" + std::string(name) +
                              "' (none, clamp, abs)");
}

std::string HessianProjection::suffix() const {
  switch (kind) {
    case ProjectionKind::None:
      return "";
    case ProjectionKind::Clamp:
      return "_pdc";
    case ProjectionKind::Abs:
      return "_pda";
  }
  return "";
}

std::string HessianProjection::describe() const {
  if (!active()) return "none";
  char eps[32];
  std::snprintf(eps, sizeof eps, "%g", epsilon);
  return std::string(projection_kind_name(kind)) + " (eps " + eps + ")";
}

std::string emit_projection_function(const std::string& name, int n, const HessianProjection& p) {
  if (n < 1)
    throw std::invalid_argument(name + ": projection of a " + std::to_string(n) + "x" +
                                std::to_string(n) + " Hessian");
  if (!p.active()) throw std::invalid_argument(name + ": no projection asked for");
  if (!(p.epsilon >= 0) || !std::isfinite(p.epsilon)) {
    throw std::invalid_argument(name + ": projection epsilon must be finite and >= 0");
  }
  char eps[40];
  std::snprintf(eps, sizeof eps, "%.17g", p.epsilon);
  const std::string N = std::to_string(n);
  std::ostringstream os;
  os << "DJ_FN void " << name << "(double* d2) {\n"
     << "  double A[" << N << "][" << N << "], V[" << N << "][" << N << "], l[" << N << "];\n";
  // Unpack with constant indices (the packed layout is dsl/mode.h's).
  for (int i = 0; i < n; ++i) {
    for (int j = i; j < n; ++j) {
      const size_t q = packed_upper_index(n, i, j);
      os << "  A[" << i << "][" << j << "] = d2[" << q << "];";
      if (i != j) os << " A[" << j << "][" << i << "] = d2[" << q << "];";
      os << "\n";
    }
  }
  // Cyclic Jacobi (Golub & Van Loan 8.5): each rotation zeroes A[p][q]; V accumulates them.
  os << "#pragma unroll\n"
     << "  for (int i = 0; i < " << N << "; ++i) {\n"
     << "#pragma unroll\n"
     << "    for (int j = 0; j < " << N << "; ++j) V[i][j] = i == j ? 1.0 : 0.0;\n  }\n"
     << "  for (int sweep = 0; sweep < 40; ++sweep) {\n"
     << "    double off = 0.0, diag = 0.0;\n"
     << "#pragma unroll\n"
     << "    for (int i = 0; i < " << N << "; ++i) {\n"
     << "      diag += A[i][i] * A[i][i];\n"
     << "#pragma unroll\n"
     << "      for (int j = i + 1; j < " << N << "; ++j) off += A[i][j] * A[i][j];\n    }\n"
     << "    if (!(off > 1e-30 * diag)) break;\n"
     << "#pragma unroll\n"
     << "    for (int p = 0; p < " << n - 1 << "; ++p) {\n"
     << "#pragma unroll\n"
     << "      for (int q = p + 1; q < " << N << "; ++q) {\n"
     << "        const double apq = A[p][q];\n"
     << "        if (apq == 0.0) continue;\n"
     << "        const double theta = (A[q][q] - A[p][p]) / (2.0 * apq);\n"
     << "        const double t = (theta >= 0.0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * "
        "theta + 1.0));\n"
     << "        const double c = 1.0 / sqrt(t * t + 1.0), s = t * c;\n"
     << "#pragma unroll\n"
     << "        for (int k = 0; k < " << N << "; ++k) {\n"
     << "          const double akp = A[k][p], akq = A[k][q];\n"
     << "          A[k][p] = c * akp - s * akq; A[k][q] = s * akp + c * akq;\n        }\n"
     << "#pragma unroll\n"
     << "        for (int k = 0; k < " << N << "; ++k) {\n"
     << "          const double apk = A[p][k], aqk = A[q][k];\n"
     << "          A[p][k] = c * apk - s * aqk; A[q][k] = s * apk + c * aqk;\n"
     << "          const double vkp = V[k][p], vkq = V[k][q];\n"
     << "          V[k][p] = c * vkp - s * vkq; V[k][q] = s * vkp + c * vkq;\n        }\n"
     << "      }\n    }\n  }\n"
     << "  bool changed = false;\n"
     << "#pragma unroll\n"
     << "  for (int i = 0; i < " << N << "; ++i) {\n";
  if (p.kind == ProjectionKind::Abs) {
    os << "    const double a = fabs(A[i][i]);\n"
       << "    l[i] = a < " << eps << " ? " << eps << " : a;\n"
       << "    changed = changed || l[i] != A[i][i];\n";
  } else {
    os << "    l[i] = A[i][i] < " << eps << " ? " << eps << " : A[i][i];\n"
       << "    changed = changed || l[i] != A[i][i];\n";
  }
  os << "  }\n"
     << "  if (!changed) return;\n";
  for (int i = 0; i < n; ++i) {
    for (int j = i; j < n; ++j) {
      os << "  { double h = 0.0;\n#pragma unroll\n    for (int k = 0; k < " << N << "; ++k) h += V["
         << i << "][k] * l[k] * V[" << j << "][k];\n    d2[" << packed_upper_index(n, i, j)
         << "] = h; }\n";
    }
  }
  os << "}\n";
  return os.str();
}

int projection_team_lanes(int n) {
  if (n <= 8 || n > 32) return 0;
  return n <= 16 ? 16 : 32;
}

namespace {

// `r[idx]` for a runtime idx over a register array r[n]: selects, so that r stays in registers.
std::string pick(const std::string& r, int n, const std::string& idx) {
  std::string x = r + "[0]";
  for (int j = 1; j < n; ++j)
    x = "(" + idx + " == " + std::to_string(j) + " ? " + r + "[" + std::to_string(j) + "] : " + x +
        ")";
  return x;
}

// The pairs of round r of the round-robin (circle) ordering of N (even) indices: N - 1 rounds
// whose N / 2 disjoint pairs together rotate every pair once. Lane i's partner is N - 1 <-> r,
// else (2 r - i) mod (N - 1).
std::vector<std::pair<int, int>> round_pairs(int N, int r) {
  const int M = N - 1;
  std::vector<std::pair<int, int>> pairs = {{std::min(r, M), std::max(r, M)}};
  for (int k = 1; k < N / 2; ++k) {
    const int a = (r + k) % M, b = ((r - k) % M + M) % M;
    pairs.push_back({std::min(a, b), std::max(a, b)});
  }
  return pairs;
}

}  // namespace

std::string emit_team_projection_function(const std::string& name, int n,
                                          const HessianProjection& p) {
  const int T = projection_team_lanes(n);
  if (T == 0)
    throw std::invalid_argument(name + ": no team projection of a " + std::to_string(n) + "x" +
                                std::to_string(n) + " Hessian");
  if (!p.active()) throw std::invalid_argument(name + ": no projection asked for");
  char eps[40];
  std::snprintf(eps, sizeof eps, "%.17g", p.epsilon);
  const std::string N = std::to_string(n), Ts = std::to_string(T);
  const int Ne = n + (n & 1);  // an odd n pairs with a dummy index n, which rotates nothing
  const auto for_n = [&](const std::string& body) {
    return "#pragma unroll\n    for (int m = 0; m < " + N + "; ++m) " + body + "\n";
  };
  std::ostringstream os;
  os << "#if defined(__CUDACC__)\n"
     << "DJ_FN void " << name << "_team(double* d2, bool live) {\n"
     << "  const unsigned all = 0xffffffffu;\n"
     << "  const int lane = threadIdx.x & 31, base = lane & ~" << T - 1 << ", i = lane & " << T - 1
     << ";\n"
     << "  const unsigned team = " << (T == 32 ? "all" : "0xffffu << base") << ";\n"
     << "#pragma unroll 1\n"
     << "  for (int it = 0; it < " << Ts << "; ++it) {\n"
     << "    const int owner = base + it;\n"
     << "    const bool on = __shfl_sync(all, (int)live, owner) != 0;\n"
     << "    if (!__any_sync(all, on)) continue;\n"
     << "    // Lane i holds row i of A and of V (rows i >= n stay zero).\n"
     << "    double row[" << N << "], V[" << N << "];\n"
     << for_n("{ row[m] = 0.0; V[m] = i == m ? 1.0 : 0.0; }");
  for (int a = 0; a < n; ++a) {
    for (int b = a; b < n; ++b) {
      os << "    { const double x = __shfl_sync(all, d2[" << packed_upper_index(n, a, b)
         << "], owner); if (on && i == " << a << ") row[" << b << "] = x;";
      if (a != b) os << " if (on && i == " << b << ") row[" << a << "] = x;";
      os << " }\n";
    }
  }
  // Sweeps until the off-diagonal is negligible (the same test as the thread's form).
  os << "#pragma unroll 1\n"
     << "    for (int sweep = 0; sweep < 40; ++sweep) {\n"
     << "      const double d = i < " << N << " ? " << pick("row", n, "i") << " : 0.0;\n"
     << "      // The off-diagonal summed apart from the diagonal: the total minus the diagonal\n"
     << "      // would leave the total's rounding, far above the test's threshold.\n"
     << "      double off = 0.0;\n"
     << "  " << for_n("off += m == i ? 0.0 : row[m] * row[m];") << "      double dg = d * d;\n";
  for (int o = T / 2; o >= 1; o /= 2) {
    os << "      off += __shfl_xor_sync(all, off, " << o << "); dg += __shfl_xor_sync(all, dg, "
       << o << ");\n";
  }
  os << "      if (__all_sync(all, !(0.5 * off > 1e-30 * dg))) break;\n";
  for (int r = 0; r < Ne - 1; ++r) {
    const int M = Ne - 1;
    os << "      {  // round " << r << "\n"
       << "        const int j = i == " << M << " ? " << r << " : (i == " << r << " ? " << M
       << " : (" << 2 * r + M << " - i) % " << M << ");\n"
       << "        const bool paired = i < " << N << " && j < " << N << ";\n"
       << "        const int jl = base + (j & " << T - 1 << ");\n"
       << "        const double di = i < " << N << " ? " << pick("row", n, "i") << " : 0.0;\n"
       << "        const double aij = " << pick("row", n, "j") << ";\n"
       << "        const double dj = __shfl_sync(all, di, jl);\n"
       << "        // Both lanes of a pair rotate with the lower lane's A[p][q].\n"
       << "        const double apq = __shfl_sync(all, aij, i < j ? lane : jl);\n"
       << "        const double app = i < j ? di : dj, aqq = i < j ? dj : di;\n"
       << "        double c = 1.0, s = 0.0;\n"
       << "        if (paired && apq != 0.0) {\n"
       << "          const double theta = (aqq - app) / (2.0 * apq);\n"
       << "          const double t = (theta >= 0.0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * "
          "theta + 1.0));\n"
       << "          c = 1.0 / sqrt(t * t + 1.0); s = t * c;\n"
       << "        }\n";
    // A J and V J: every lane rotates columns p and q of its rows.
    for (const auto& [a, b] : round_pairs(Ne, r)) {
      if (b >= n) continue;
      os << "        { const double cp = __shfl_sync(all, c, base + " << a
         << "), sp = __shfl_sync(all, s, base + " << a << ");\n"
         << "          double x = row[" << a << "], y = row[" << b << "]; row[" << a
         << "] = cp * x - sp * y; row[" << b << "] = sp * x + cp * y;\n"
         << "          x = V[" << a << "]; y = V[" << b << "]; V[" << a << "] = cp * x - sp * y; V["
         << b << "] = sp * x + cp * y; }\n";
    }
    // J^T (A J): rows p and q combine (p: c row_p - s row_q, q: c row_q + s row_p, one
    // expression for both so the pair's lanes do not diverge); A[p][q] is zero by construction.
    os << "        const double sg = i < j ? -s : s;\n"
       << "  "
       << for_n(
              "{ const double x = __shfl_sync(all, row[m], jl); if (paired) row[m] = c "
              "* row[m] + sg * x; }");
    for (int m = 0; m < n; ++m)
      os << "        if (paired && j == " << m << ") row[" << m << "] = 0.0;\n";
    os << "      }\n";
  }
  os << "    }\n"
     << "    const double lam = i < " << N << " ? " << pick("row", n, "i") << " : 0.0;\n";
  if (p.kind == ProjectionKind::Abs) {
    os << "    const double l = fabs(lam) < " << eps << " ? " << eps << " : fabs(lam);\n";
  } else {
    os << "    const double l = lam < " << eps << " ? " << eps << " : lam;\n";
  }
  // An owner whose eigenvalues all pass keeps its d2 bit for bit.
  os << "    const bool changed = (__ballot_sync(all, on && i < " << N
     << " && l != lam) & team) != "
     << "0u;\n"
     << "    if (!__any_sync(all, changed)) continue;\n"
     << "    // Row i of V diag(l) V^T.\n"
     << "    double w[" << N << "], h[" << N << "];\n"
     << for_n("w[m] = V[m] * __shfl_sync(all, l, base + m);");
  for (int j = 0; j < n; ++j) {
    os << "    { double hj = 0.0;\n"
       << "  " << for_n("hj += w[m] * __shfl_sync(all, V[m], base + " + std::to_string(j) + ");")
       << "      h[" << j << "] = hj; }\n";
  }
  for (int a = 0; a < n; ++a) {
    for (int b = a; b < n; ++b) {
      os << "    { const double x = __shfl_sync(all, h[" << b << "], base + " << a
         << "); if (changed && lane == owner) d2[" << packed_upper_index(n, a, b) << "] = x; }\n";
    }
  }
  os << "  }\n}\n"
     << "#else\n"
     << "DJ_FN void " << name << "_team(double* d2, bool live) {\n"
     << "  if (live) " << name << "(d2);\n}\n"
     << "#endif\n";
  return os.str();
}

}  // namespace dualjit::jit
