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

// Lanes of a warp that project one n x n matrix together on the GPU (a power of two that holds
// n rows), or 0 where a thread projects its own (n <= 8, whose A and V fit its registers; n >
// 32). A thread's 12 x 12 A and V are 288 doubles: far over its registers, so its sweeps run
// through local memory. A team keeps one row of A and of V in each lane's registers.
int projection_team_lanes(int n);

// C text of
//   DJ_FN void <name>_team(double* d2, bool live)
// which every lane of a warp calls together (converged, blockDim.x a multiple of 32) with its
// own packed upper triangle: the warp's matrices are projected one per team of
// projection_team_lanes(n) lanes at a time (parallel-order Jacobi, rows exchanged by shuffles),
// each lane's d2 rewritten as emit_projection_function would (to round-off: the rotation order
// differs). A lane whose `live` is false contributes no matrix and keeps its d2. On the host
// the same name projects the thread's own matrix with `<name>` (which must be emitted too).
// Throws std::invalid_argument where projection_team_lanes(n) is 0.
std::string emit_team_projection_function(const std::string& name, int n,
                                          const HessianProjection& p);

}  // namespace dualjit::jit
