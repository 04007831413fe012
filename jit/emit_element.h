// Element function text from a scheduled scalar program: straight-line scalar C, one
// `const double` per value (or `const float` for derivative arithmetic under single
// tangents, `const bool` for a comparison that only selects read), target-neutral (the
// prelude of each target defines DJ_FN).
#pragma once

#include <cstdint>
#include <string>

#include "jit/scalar_program.h"
#include "jit/tape_pattern.h"

namespace dualjit::jit {

// void fn(const double* x, const double* v, const double* p, const double* u,
//         double* val, double* d1, double* d2): x the gathered inputs, v the HVP direction,
// p the params, u the uniforms; val/d1/d2 the element's output arrays (dsl/mode.h).
//
// A function of more than `max_statements` statements (0: no limit) is split into
// non-inlined pieces run in sequence: NVVM's time grows faster than linearly with function
// size, so chemistry-sized kernels compile in pieces. Values that cross a piece boundary
// travel through a per-thread scratch array whose slots are reused once a value is dead;
// leaves (inputs, params, uniforms) are re-read instead of carried.
//
// single_tangents: the derivative arithmetic (scheduled.primal == 0) runs in float while the
// primal values and the partials stay double, and results are stored as double. Half the
// registers per tangent component and twice the arithmetic rate on GPUs, at fp32 accuracy
// of the derivatives (relative 1e-7 to 1e-6): for Jacobians that are stored in fp32 anyway
// or serve as preconditioners.
// own_function: the function is not inlined into its caller (a row group's chunk of a big
// kernel), so that ptxas allocates registers and schedules it on its own.
// outline_specials: the special functions of is_outlined_special (double arithmetic) are
// called as dj_exp, dj_log, ... (driver_text.h outlined_specials_*: out of line on the GPU),
// so that a function of thousands of them holds one copy of each instead of one per call, and
// 1 / x (double arithmetic) as dj_rcp.
// first: where param i is read (LoweringOptions::tiled_params: `p` is the element's tile, read
// where used) and value o and first derivative k are stored (jit/driver.h FirstStores,
// LoweringOptions::tiled_values).
// constant_table_bytes > 0: the fp64 constants that are no SASS immediates, and the selects
// between two constants, are read from tables of at most that many bytes together, defined
// before the function (jit/constant_tables.h; constant memory on the GPU). What does not fit
// stays literal.
// tape: the function takes the element's tape pointer `tp` last (jit/tape_pattern.h), and reads
// and writes slot k at tp[k * kTapeTile].
struct ElementIndex {
  std::vector<int64_t> param_at;  // p[param_at[i] * kTapeTile]; empty: p[i]
  int value_stride = 1;  // val[o * value_stride] (LoweringOptions::tiled_values: kFirstTile)
  int stride = 1;        // d1[(k - base) * stride]
  int64_t base = 0;
  bool staged = false;  // d1[(k - base) * 32 + (dj_lane() ^ (k - base) % 32)] (jit/first_stage.h)
};
std::string emit_element_function(const ScalarProgram& scheduled, const std::string& fn_name,
                                  size_t max_statements = 0, bool single_tangents = false,
                                  bool own_function = false, bool outline_specials = false,
                                  ElementIndex first = {}, bool tape = false,
                                  size_t constant_table_bytes = 0);

// The special functions that outline_specials calls out of line: the transcendental ones of
// dsl/op.h (exp, log, pow, the trigonometric and hyperbolic ones, cbrt), whose inline fp64
// code runs to tens of instructions; sqrt and the arithmetic ops stay inline.
bool is_outlined_special(Op op);

// C spelling of one op applied to operand spellings (shared by every target).
std::string c_expression(Op op, const std::string& a, const std::string& b, const std::string& c);
std::string c_literal(double value);
std::string c_literal_float(double value);  // `0.5f`

}  // namespace dualjit::jit
