#include "backends/assembly/tape_columns_launches.h"

#include <algorithm>

#include "backends/assembly/host_element_assembly.h"
#include "jit/emit_tape_columns.h"
#include "jit/tape_rest_kernel.h"

namespace dualjit::assembly {

std::optional<TapeColumnsLaunches> tape_columns_launches(const Term& term,
                                                         const TapeColumnsSettings& settings) {
  const Kernel& k = *term.kernel;
  jit::LoweringOptions o = element_lowering(term, Mode::Jacobian, 0, 1);
  o.layout = settings.layout;
  o.compile_effort = settings.effort;
  o.chunks = {0, 1};  // the tapes' chunk alone, when the kernel keeps tapes
  jit::LoweredKernel tapes = jit::lower(k, o);
  if (!tapes.writes_tape) return std::nullopt;
  TapeColumnsLaunches l;
  l.pattern = jit::tape_pattern(k);
  const std::vector<jit::TapeLinearOutput> outs = jit::tape_linear_outputs(k, l.pattern);
  if (!std::all_of(outs.begin(), outs.end(), [](const auto& x) { return x.linear; }))
    return std::nullopt;
  const jit::TapeColumnPlan plan =
      jit::plan_tape_columns(l.pattern, outs, k.n_inputs(), settings.group_slots);
  const jit::TapeRestKernel rest = jit::tape_rest_kernel(k, l.pattern, outs, plan);
  jit::LoweringOptions ro = element_lowering(term, Mode::Jacobian);
  ro.layout = settings.layout;
  ro.compile_effort = settings.effort;
  ro.sparse_jacobian = true;
  l.tapes = std::move(tapes);
  l.gather = jit::lower_tape_gather(k, l.pattern);
  l.rest = jit::lower(rest.kernel, ro);
  const jit::JacobianPattern& rest_pattern = l.rest.first_pattern;
  l.fill = jit::lower_tape_aux(k, plan, rest_pattern, l.pattern.size);
  l.columns = jit::lower_tape_columns(k, plan, l.pattern.size, {}, &rest_pattern);
  l.aux_size = jit::TapeColumnsAux(plan, k.n_inputs(), &rest_pattern).size();
  return l;
}

}  // namespace dualjit::assembly
