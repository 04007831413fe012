// Spellings the strategies' emitted drivers share: an element's nodes and block slots, the
// off-diagonal value type, which input slot and chunk belong to an element vertex, and the
// shared-memory source of a staged output.
#pragma once

#include <string>

#include "backends/assembly/strategies/fused_strategy.h"

namespace dualjit::assembly::emit {

// Node of element e's local vertex (element e is node e without connectivity).
std::string node_of(int vertex);
// Off-diagonal block slot of element e's (row vertex, column vertex) pair (a.slots).
std::string slot_of(int row_vertex, int col_vertex);
std::string off_type(const FusedSpec& a);  // "float" or "double"
// The input slot bound to element vertex `lv` (-1 when none).
int slot_of_vertex(const jit::DriverSpec& s, int lv);
// Slot whose B columns are the directions of chunk `c` (gather plans have W = B; -1: none).
int slot_of_chunk(const jit::DerivativePlan& plan, int c, int block);
// The chunk that differentiates with respect to vertex lv's slot, per vertex (-1: none).
std::vector<int> chunk_of_vertex(const jit::DriverSpec& s, const jit::DerivativePlan& plan,
                                 const FusedSpec& a);
// Checks shared by the gathers by column: one slot per vertex, W = B, every chunk writes values.
void check_gather(const FusedStrategy& st, const jit::DriverSpec& s,
                  const jit::DerivativePlan& plan, const std::string& kernel);
// The gathers' plan: each node runs only its own vertex's chunk, so every chunk writes values.
void every_chunk_writes_values(jit::DerivativePlan& plan);

// The per-element block slots (mesh::BlockPattern::element_slots) that the scatters and the
// unstaged gather read for the Jacobian: their argument field and their structure.
jit::ArgField slots_field(const FusedSpec& a);
TermStructure slots_structure(const TermContext& t, const FusedSpec& a);
// The scatters' default W: all of an element's directions in one chunk while they are at
// most 10 (the Roe edge: W = 10 measured best on an H100, bench/RESULTS.md), else B.
int scatter_default_width(int vertices, int block);

// One unit of staged write-out: a B-wide residual row or a B x B Jacobian block of one
// element, going to a node's residual row, a node's diagonal block or an off-diagonal slot.
struct StagedUnit {
  bool block = false;  // B x B Jacobian block (else a residual row)
  int o = 0, va = 0, sl = 0, vb = 0;
  double sign = 1;
  bool diag() const { return !block || va == vb; }
};

// Shared-memory spelling of unit u's entry (row, col or q) for element `f`; `val_base`
// prefixes the value index (the staged gather keeps one value area per side).
std::string staged_source(const StagedUnit& u, const std::string& f, int B, int n_in, int d1_stride,
                          int out_stride, const std::string& val_base = "");

// One output entry as C: the signed sum of `source`[offset[r] + shift] over rules r in
// [begin, end) (the rule lists of element_rules.h), signs of +-1 written as + and -.
std::string signed_sum(const std::string& source, const std::vector<int32_t>& offset,
                       const std::vector<double>& sign, int32_t begin, int32_t end, int shift);

// Static shared memory above which a kernel needs dynamic shared memory instead.
inline constexpr size_t kStaticSharedMax = 48 * 1024;

}  // namespace dualjit::assembly::emit
