#include "backends/assembly/strategies/emit_helpers.h"

#include "jit/emit_element.h"

#include <algorithm>

namespace dualjit::assembly::emit {

std::string node_of(int vertex) {
  return "(a.conn ? (long long)a.conn[e * a.vertices_per_element + " + std::to_string(vertex) +
         "] : e)";
}

std::string slot_of(int row_vertex, int col_vertex) {
  return "a.slots[(e * a.vertices_per_element + " + std::to_string(row_vertex) +
         ") * a.vertices_per_element + " + std::to_string(col_vertex) + "]";
}

std::string off_type(const FusedSpec& a) {
  return a.off_single ? "float" : "double";
}

int slot_of_vertex(const jit::DriverSpec& s, int lv) {
  int slot = -1;
  for (size_t sl = 0; sl < s.input_vertex.size(); ++sl) {
    if (s.input_vertex[sl] == lv) slot = static_cast<int>(sl);
  }
  return slot;
}

int slot_of_chunk(const jit::DerivativePlan& plan, int c, int block) {
  return plan.chunks[c].first_columns.empty() ? -1 : plan.chunks[c].first_columns[0] / block;
}

std::vector<int> chunk_of_vertex(const jit::DriverSpec& s, const jit::DerivativePlan& plan,
                                 const FusedSpec& a) {
  std::vector<int> chunk_of(a.vertices, -1);
  if (a.jacobian) {
    for (int c = 0; c < s.n_chunks; ++c) {
      const int sl = slot_of_chunk(plan, c, a.block);
      if (sl >= 0 && s.input_vertex[sl] < a.vertices) chunk_of[s.input_vertex[sl]] = c;
    }
  }
  return chunk_of;
}

void every_chunk_writes_values(jit::DerivativePlan& plan) {
  for (jit::Chunk& c : plan.chunks) c.writes_values = true;
}

void check_gather(const FusedStrategy& st, const jit::DriverSpec& s,
                  const jit::DerivativePlan& plan, const std::string& kernel) {
  const FusedSpec& a = st.spec();
  const auto fail = [&](const std::string& what) {
    throw std::invalid_argument("kernel '" + kernel + "': " + std::string(st.name()) +
                                " assembly: " + what);
  };
  if (!a.jacobian) return;
  for (int lv = 0; lv < a.vertices; ++lv) {
    const auto n = std::count(s.input_vertex.begin(), s.input_vertex.end(), lv);
    if (n > 1)
      fail("vertex " + std::to_string(lv) + " binds " + std::to_string(n) +
           " input slots; gather by column differentiates one per vertex");
  }
  if (plan.width != a.block) fail("needs W = B (one chunk per vertex)");
  for (const jit::Chunk& c : plan.chunks) {
    if (!c.writes_values) fail("every chunk must write values");
  }
}

jit::ArgField slots_field(const FusedSpec& a) {
  return {"slots",
          jit::ArgKind::Pointer,
          "const long long*",
          1,
          a.jacobian,
          "element block slots",
          false,
          true};
}

TermStructure slots_structure(const TermContext& t, const FusedSpec& a) {
  TermStructure out;
  if (a.jacobian) out.add("slots", t.element_slots);
  return out;
}

int scatter_default_width(int vertices, int block) {
  return vertices * block <= 10 ? vertices * block : block;
}

std::string staged_source(const StagedUnit& u, const std::string& f, int B, int n_in, int d1_stride,
                          int out_stride, const std::string& val_base) {
  if (!u.block)
    return "dj_val[" + val_base + f + " * " + std::to_string(out_stride) + " + " +
           std::to_string(u.o * B) + " + q]";
  return "dj_d1[" + f + " * " + std::to_string(d1_stride) + " + (" + std::to_string(u.o * B) +
         " + row) * " + std::to_string(n_in) + " + " + std::to_string(u.sl * B) + " + col]";
}

std::string signed_sum(const std::string& source, const std::vector<int32_t>& offset,
                       const std::vector<double>& sign, int32_t begin, int32_t end, int shift) {
  std::string out;
  for (int32_t r = begin; r < end; ++r) {
    const std::string term = source + "[" + std::to_string(offset[r] + shift) + "]";
    if (sign[r] == 1.0) {
      out += out.empty() ? term : " + " + term;
    } else if (sign[r] == -1.0) {
      out += out.empty() ? "-" + term : " - " + term;
    } else {
      out += (out.empty() ? "" : " + ") + jit::c_literal(sign[r]) + " * " + term;
    }
  }
  return out;
}

}  // namespace dualjit::assembly::emit
