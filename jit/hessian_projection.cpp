#include "jit/hessian_projection.h"

#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

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

}  // namespace dualjit::jit
