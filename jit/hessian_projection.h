// Positive-definite projection of an element's Hessian, as TinyAD defines it: the symmetric
// local Hessian H = V diag(l) V^T becomes V diag(l') V^T with l' = max(l, eps) (Clamp) or
// l' = max(|l|, eps) (Abs), so that Newton's method on a non-convex energy gets a descent
// direction from the assembled sum. Emitted as a function of the element's packed upper triangle
// (dsl/mode.h), run in the element's thread after its chunks and before the assembly strategy
// sums the entries: the projected element Hessian never goes to memory.
#pragma once

#include <string>
#include <string_view>

namespace dualjit::jit {

enum class ProjectionKind { None, Clamp, Abs };

std::string_view projection_kind_name(ProjectionKind k);  // "none", "clamp", "abs"
// Throws std::invalid_argument listing the kinds.
ProjectionKind parse_projection_kind(std::string_view name);

struct HessianProjection {
  ProjectionKind kind = ProjectionKind::None;
  // Smallest eigenvalue kept (TinyAD's default eigenvalue_eps); > 0 makes every element block
  // positive definite, 0 only semi-definite.
  double epsilon = 1e-9;
  bool active() const { return kind != ProjectionKind::None; }
  // Part of a kernel's symbol: "" when inactive, else "_pdc" or "_pda" (epsilon is a literal of
  // the source, so a different epsilon is a different source and cache entry).
  std::string suffix() const;
  // "clamp (eps 1e-09)", for reports.
  std::string describe() const;
  bool operator==(const HessianProjection&) const = default;
};

// C text (CUDA or host, through the preludes' DJ_FN) of
//   DJ_FN void <name>(double* d2)
// projecting the packed upper triangle of a symmetric n x n matrix in place: cyclic Jacobi
// sweeps to a relative off-diagonal of 1e-15 (at most 40), then the reconstruction with the
// clamped eigenvalues. An element whose eigenvalues all pass already is left bit for bit as it
// was. Throws std::invalid_argument for n < 1, an inactive projection or epsilon < 0.
std::string emit_projection_function(const std::string& name, int n, const HessianProjection& p);

}  // namespace dualjit::jit
