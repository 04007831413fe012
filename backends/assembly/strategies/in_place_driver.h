// What the in-place units' drivers (element_scatter.cpp, node_gather.cpp) share: the rules
// they emit, one thread per item (an element or a node) that calls `<symbol>_<fn>(a, <var>)`,
// on the GPU and in an OpenMP loop, and the element's result arrays with its chunk calls.
#pragma once

#include <string>

#include "backends/assembly/strategies/in_place_strategy.h"
#include "jit/driver.h"

namespace dualjit::assembly {

class InPlaceDriver : public jit::Driver {
 public:
  struct Item {
    std::string count;     // the Int64 field counted: "n_elements", "n_nodes"
    std::string fn;        // the per-item function's suffix: "scatter", "node"
    std::string var;       // its index variable: "e", "node"
    std::string what;      // for messages: "element", "node"
    std::string schedule;  // OpenMP schedule of the host loop
  };
  InPlaceDriver(std::string strategy, Item item, InPlaceRules rules, int block, int vertices);

  bool blocks() const { return rules_.blocks(); }
  bool with_energy_gradient() const { return rules_.with_energy_gradient(); }
  // The unit's suffix, then the projection's (jit/hessian_projection.h), then "_eg" for a
  // Hessian that sums the energy and gradient too.
  std::string suffix() const final;
  // The projection function (when the rules ask for one), then the unit's item functions.
  std::string functions(const jit::DriverSpec& s, const jit::DerivativePlan&) const final;
  // Projected Hessians of this size are projected by teams of lanes on the GPU
  // (jit::projection_team_lanes): every lane of a warp then runs the per-item function, those
  // past the end with live = false on a repeated item.
  bool team_projection(const jit::DriverSpec& s) const;
  // Refuses more than one thread per item, and a team projection without whole warps.
  void check(const jit::DriverSpec& s, const jit::DerivativePlan&,
             const std::string& kernel) const override;
  std::string cuda_entry(const jit::DriverSpec& s, const jit::DerivativePlan&) const override;
  std::string host_entry(const jit::DriverSpec& s, const jit::DerivativePlan&) const override;
  jit::LaunchPolicy launch(const jit::DriverSpec& s) const override;

 protected:
  virtual std::string unit_suffix() const = 0;
  // The per-item function `<symbol>_<fn>` and whatever it calls.
  virtual std::string item_functions(const jit::DriverSpec& s) const = 0;
  // "DJ_FN void <symbol>_<fn>(const <args>& a, long long <var>[, bool live]) {\n" (live with a
  // team projection).
  std::string function_head(const jit::DriverSpec& s) const;
  // The element's local val, d1, d2 arrays and its chunk calls, then the projection of d2 when
  // the rules ask for one, each line after `indent`; `live` is the expression saying whether
  // the element is real, for a team projection; `nodes`, an int array of the element's nodes
  // in scope (else they are read from a.conn); `own_vertex`, an int in scope naming the local
  // vertex whose values own_x (own_v) hold (jit::emit_element_loads).
  std::string element_results(const jit::DriverSpec& s, const std::string& indent,
                              const std::string& live = "true", const std::string& nodes = "",
                              const std::string& own_vertex = "") const;
  // One output entry: the signed sum of the source array over rules [begin, end).
  std::string row_sum(int vertex, int component) const;
  // One gradient entry of a Hessian with_energy_gradient(): the signed sum of "d1".
  std::string gradient_sum(int vertex, int component) const;
  bool has_gradient_row(int vertex) const;
  std::string entry_sum(int64_t q) const;  // q = ((a k + b) B + i) B + j; "" when none
  bool has_row(int vertex) const;          // the vertex's row receives something
  bool has_block(int a, int b) const;      // some entry of the pair's block does

  const InPlaceRules& rules() const { return rules_; }
  int block() const { return block_; }
  int vertices() const { return vertices_; }

 private:
  std::string strategy_;
  Item item_;
  InPlaceRules rules_;
  int block_, vertices_;
};

}  // namespace dualjit::assembly
