// The IR between derivative expansion and emission: a scalar graph (no duals left) and the
// per-element output slots its nodes are stored to.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dsl/graph.h"
#include "jit/derivative_plan.h"

namespace dualjit::jit {

// Leaves of a scalar program: Input(slot 0, i) is input i, Input(slot 1, i) is component i
// of the HVP direction, Param(0, i) and Uniform(0, i) are flat param and uniform indices.
inline constexpr int kPrimalSlot = 0;
inline constexpr int kDirectionSlot = 1;
// Input(slot 2, i): slot i of the element's tape (jit/tape_pattern.h), which Target::Tape
// stores write.
inline constexpr int kTapeSlot = 2;

struct Store {
  Target target;
  int index;  // within the element's values / first / second array
  NodeId node;
};

struct ScalarProgram {
  std::unique_ptr<Graph> graph;
  std::vector<Store> stores;  // in output order
  std::vector<NodeId> order;  // emission order (set by schedule); empty until scheduled
  // Per node: 1 if it belongs to the primal computation (a primal value, a partial such as
  // 1/x or sqrt's derivative, or anything those are computed from), 0 for derivative
  // arithmetic (tangent and second-order components). Empty: all primal. Lets emission run
  // the derivative arithmetic in a narrower type than the primal.
  std::vector<uint8_t> primal;
  // Set by pair_exps (jit/pair_exps.h): emission computes adjacent independent exps in one call.
  bool paired_exps = false;
};

std::string print_program(const ScalarProgram& program);

}  // namespace dualjit::jit
