// Readable listing of a graph, one SSA node per line, for debugging and error messages.
#pragma once

#include <string>

#include "dsl/graph.h"

namespace dualjit {

// "%7 = mul %3 %5"; leaves print their slot and component, constants their value.
std::string print_node(const Graph& graph, NodeId id);
std::string print_graph(const Graph& graph);

}  // namespace dualjit
