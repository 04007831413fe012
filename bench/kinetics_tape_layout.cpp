// Writes what bench/micro/tape_rows.cu needs to time the (T, Y) Jacobian's rows composed from
// the tapes, each tape slot read once a cell: the tape layout dualjit gives the mechanism's
// derivatives' kernel (jit/tape_pattern.h: a tape per reaction, its rate of progress q_r, the
// value's slot, then one slot per tangent component, an input or the density cut) and the
// mechanism's net stoichiometric coefficients.
//
//   kinetics_tape_layout [--mechanism FILE[:PHASE]] [--form F] OUT_FILE
//     (default gri30.yaml, the derivatives' form: rate_laws.h; stdout: the tape's slots, factored
//     and unfactored)
//
// OUT_FILE, text: "species NS reactions NR inputs NI slots S", a line "weights W_1 .. W_NS"
// (kg/kmol), then a line per reaction r: "r OFFSET NC c_1 .. c_NC NNU k_1 nu_1 .. k_NNU nu_NNU",
// c_i the column of the i-th stored component (an input index, or NI for the cut; a factored
// tape's derived components, jit/tape_pattern.h, are not listed). Tapes made from the
// reactions' (the heat release's) follow theirs and are left out; S counts them.
#include <cstdio>
#include <map>
#include <string>

#include "examples/kinetics/mechanism.h"
#include "examples/kinetics/rate_law_kernels.h"
#include "jit/tape_pattern.h"

using namespace dualjit;

int main(int argc, char** argv) {
  std::string spec = "gri30.yaml", out;
  kinetics::RateLawForm form = kinetics::RateLawForm::derivatives;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--mechanism" && i + 1 < argc)
      spec = argv[++i];
    else if (a == "--form" && i + 1 < argc)
      form = kinetics::rate_law_form_named(argv[++i]);
    else
      out = a;
  }
  if (out.empty()) {
    std::fprintf(stderr,
                 "usage: kinetics_tape_layout [--mechanism FILE[:PHASE]] [--form F] OUT_FILE\n");
    return 2;
  }
  const kinetics::Mechanism m = kinetics::load_mechanism(spec);
  const Kernel kernel =
      kinetics::production_rates_kernel(m, {kinetics::ReactorState::constant_pressure, form});
  const jit::TapePattern p = jit::tape_pattern(kernel);
  const size_t ns = m.species.size(), nr = m.reactions.size();
  const int inputs = static_cast<int>(ns + 1);
  // A tape per reaction, in order, then those made from them (the heat release's).
  if (p.tapes.size() < nr) {
    std::fprintf(stderr, "kinetics_tape_layout: %s: %zu tapes for %zu reactions\n", spec.c_str(),
                 p.tapes.size(), nr);
    return 1;
  }
  FILE* f = std::fopen(out.c_str(), "w");
  if (!f) {
    std::fprintf(stderr, "kinetics_tape_layout: cannot write %s\n", out.c_str());
    return 1;
  }
  std::fprintf(f, "species %zu reactions %zu inputs %d slots %lld\n", ns, nr, inputs,
               static_cast<long long>(p.size));
  std::fprintf(f, "weights");
  for (const kinetics::Species& sp : m.species) std::fprintf(f, " %.17g", sp.molecular_weight);
  std::fprintf(f, "\n");
  NodeId cut = kNoNode;
  for (size_t r = 0; r < nr; ++r) {
    std::fprintf(f, "%zu %lld %zu", r, static_cast<long long>(p.offset[r]), p.entries[r].size());
    for (const jit::TapeEntry& e : p.entries[r]) {
      if (e.input < 0) {  // the one cut of the constant-pressure state (cell_state.cpp)
        if (cut != kNoNode && e.cut != cut) {
          std::fprintf(stderr, "kinetics_tape_layout: %s: reaction %zu's tape has a second cut\n",
                       spec.c_str(), r);
          return 1;
        }
        cut = e.cut;
      }
      std::fprintf(f, " %d", e.input < 0 ? inputs : e.input);
    }
    const kinetics::Reaction& re = m.reactions[r];
    std::map<int, double> net;
    for (const auto& [name, nu] : re.products) net[m.species_index(name)] += nu;
    for (const auto& [name, nu] : re.reactants) net[m.species_index(name)] -= nu;
    std::erase_if(net, [](const auto& kv) { return kv.second == 0.0; });
    std::fprintf(f, " %zu", net.size());
    for (const auto& [k, nu] : net) std::fprintf(f, " %d %.17g", k, nu);
    std::fprintf(f, "\n");
  }
  std::fclose(f);
  // Unfactored, each tape would store its derived components too, and no leaf.
  size_t factored = 0, derived = 0;
  for (const jit::TapeHead& h : p.heads) {
    factored += h.factored();
    derived += h.derived.size();
  }
  const long long whole = static_cast<long long>(p.leaf_offset) + static_cast<long long>(derived);
  std::printf(
      "%s (%s form): %zu species, %zu reactions, %lld tape slots a cell, %lld unfactored "
      "(%zu of %zu tapes factored, %zu components derived from %zu leaves) -> %s\n",
      m.file.c_str(), std::string(kinetics::rate_law_form_name(form)).c_str(), ns, nr,
      static_cast<long long>(p.size), whole, factored, p.tapes.size(), derived, p.leaves.size(),
      out.c_str());
}
