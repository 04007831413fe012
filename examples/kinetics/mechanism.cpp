#include "examples/kinetics/mechanism.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "examples/kinetics/data_path.h"
#include "examples/kinetics/units.h"

namespace dualjit::kinetics {
namespace {

using YAML::Node;

// Standard atomic weights (kg/kmol) as Cantera tabulates them (IUPAC), for the elements
// combustion mechanisms use; others are refused by name.
double atomic_weight(const std::string& name) {
  static const std::map<std::string, double> table = {
      {"H", 1.008},     {"D", 2.014102}, {"E", 0.000548579909}, {"He", 4.002602},
      {"C", 12.011},    {"N", 14.007},   {"O", 15.999},         {"F", 18.998403163},
      {"Ne", 20.1797},  {"Si", 28.085},  {"P", 30.973761998},   {"S", 32.06},
      {"Cl", 35.45},    {"Ar", 39.95},   {"Br", 79.904},        {"Kr", 83.798},
      {"I", 126.90447}, {"Xe", 131.293},
  };
  // Mechanisms write "AR" as often as "Ar".
  std::string key = name;
  for (size_t i = 1; i < key.size(); ++i) key[i] = static_cast<char>(std::tolower(key[i]));
  auto it = table.find(key);
  return it == table.end() ? 0.0 : it->second;
}

std::string fmt(double x) {
  std::ostringstream out;
  out.precision(12);
  out << x;
  return out.str();
}

double number(const Node& node, const std::string& where) {
  if (!node.IsDefined() || node.IsNull()) throw MechanismError(where + ": missing");
  if (!node.IsScalar()) throw MechanismError(where + ": expected a number");
  double value = 0;
  // ".inf" and ".nan" are YAML numbers but no mechanism's.
  if (!YAML::convert<double>::decode(node, value) || !std::isfinite(value))
    throw MechanismError(where + ": '" + node.as<std::string>() + "' is not a number");
  return value;
}

std::string text(const Node& node, const std::string& where) {
  if (!node.IsDefined() || node.IsNull()) throw MechanismError(where + ": missing");
  if (!node.IsScalar()) throw MechanismError(where + ": expected a string");
  return node.as<std::string>();
}

bool flag(const Node& map, const std::string& key, const std::string& where) {
  const Node n = map[key];
  if (!n.IsDefined()) return false;
  bool value = false;
  if (!n.IsScalar() || !YAML::convert<bool>::decode(n, value))
    throw MechanismError(where + ": " + key + ": expected true or false");
  return value;
}

std::vector<std::string> names(const Node& node, const std::string& where) {
  if (!node.IsSequence()) throw MechanismError(where + ": expected a list of names");
  std::vector<std::string> out;
  for (const auto& n : node) out.push_back(text(n, where));
  return out;
}

Node read_yaml(const std::string& file) {
  try {
    return YAML::LoadFile(file);
  } catch (const YAML::ParserException& e) {
    throw MechanismError(file + ": invalid YAML at line " + std::to_string(e.mark.line + 1) +
                         ", column " + std::to_string(e.mark.column + 1) + ": " + e.msg);
  } catch (const YAML::Exception& e) {
    throw MechanismError(file + ": " + e.what());
  }
}

// Parses one file's phase into a Mechanism; every message starts with the file's path.
class Loader {
 public:
  Loader(std::string file, Node root) : file_(std::move(file)), root_(std::move(root)) {}

  Mechanism load(const std::string& phase_name) {
    if (!root_.IsMap()) throw MechanismError(file_ + ": expected a YAML mapping at the top");
    if (root_["units"]) units_ = parse_units(root_["units"], UnitSystem{}, file_);
    const Node phase = select_phase(phase_name);
    mech_.file = file_;
    read_elements(phase);
    read_species(phase);
    read_reactions(phase);
    return std::move(mech_);
  }

 private:
  Node select_phase(const std::string& name) {
    const Node phases = root_["phases"];
    if (!phases.IsSequence() || phases.size() == 0)
      throw MechanismError(file_ + ": no 'phases' list");
    std::string available;
    for (const auto& p : phases) {
      const std::string pname = text(p["name"], file_ + ": phases: name");
      available += (available.empty() ? "" : ", ") + pname;
      if (!name.empty() && pname != name) continue;
      const std::string where = file_ + ": phase '" + pname + "'";
      const std::string thermo = text(p["thermo"], where + ": thermo");
      if (thermo != "ideal-gas")
        throw MechanismError(where + ": thermo '" + thermo +
                             "' is not supported (only ideal-gas phases are)");
      mech_.phase = pname;
      return p;
    }
    throw MechanismError(file_ + ": no phase '" + name + "' (phases: " + available + ")");
  }

  void read_elements(const Node& phase) {
    const std::string where = file_ + ": phase '" + mech_.phase + "': elements";
    if (!phase["elements"]) throw MechanismError(where + ": missing");
    for (const auto& name : names(phase["elements"], where)) {
      const double w = atomic_weight(name);
      if (w == 0) throw MechanismError(where + ": unknown element '" + name + "'");
      mech_.elements.push_back({name, w});
    }
  }

  void read_species(const Node& phase) {
    const std::string where = file_ + ": phase '" + mech_.phase + "': species";
    const Node section = root_["species"];
    if (!section.IsSequence()) throw MechanismError(file_ + ": no 'species' list");
    std::map<std::string, Node> by_name;
    for (const auto& s : section) by_name.emplace(text(s["name"], file_ + ": species: name"), s);
    std::vector<std::string> wanted;
    const Node list = phase["species"];
    if (!list.IsDefined() || (list.IsScalar() && list.as<std::string>() == "all")) {
      for (const auto& s : section) wanted.push_back(s["name"].as<std::string>());
    } else if (list.IsSequence()) {
      for (const auto& n : list) {
        if (!n.IsScalar())
          throw MechanismError(where + ": species from other sections or files are not supported");
        wanted.push_back(n.as<std::string>());
      }
    } else {
      throw MechanismError(where + ": expected 'all' or a list of names");
    }
    for (const auto& name : wanted) {
      auto it = by_name.find(name);
      if (it == by_name.end()) throw MechanismError(where + ": no species '" + name + "' in file");
      if (mech_.species_index(name) >= 0)
        throw MechanismError(where + ": species '" + name + "' listed twice");
      mech_.species.push_back(parse_species(name, it->second));
      index_[name] = static_cast<int>(mech_.species.size()) - 1;
    }
  }

  Species parse_species(const std::string& name, const Node& node) {
    const std::string where = file_ + ": species '" + name + "'";
    Species sp;
    sp.name = name;
    const Node comp = node["composition"];
    if (!comp.IsMap()) throw MechanismError(where + ": composition: expected a mapping");
    for (const auto& kv : comp) {
      const std::string el = kv.first.as<std::string>();
      const double n = number(kv.second, where + ": composition: " + el);
      auto it = std::find_if(mech_.elements.begin(), mech_.elements.end(),
                             [&](const Element& e) { return e.name == el; });
      if (it == mech_.elements.end())
        throw MechanismError(where + ": composition: element '" + el + "' is not in the phase");
      sp.composition.emplace_back(el, n);
      sp.molecular_weight += n * it->atomic_weight;
    }
    const Node thermo = node["thermo"];
    if (!thermo.IsMap()) throw MechanismError(where + ": thermo: missing");
    const std::string model = text(thermo["model"], where + ": thermo: model");
    if (model != "NASA7")
      throw MechanismError(where + ": thermo: model '" + model + "' is not supported (NASA7 is)");
    const Node ranges = thermo["temperature-ranges"];
    const Node data = thermo["data"];
    if (!ranges.IsSequence() || ranges.size() != 3)
      throw MechanismError(where + ": thermo: temperature-ranges: expected [Tmin, Tmid, Tmax]");
    if (!data.IsSequence() || data.size() != 2)
      throw MechanismError(where + ": thermo: data: expected two lists of 7 coefficients");
    const std::string rw = where + ": thermo: temperature-ranges";
    sp.thermo.t_min = number(ranges[0], rw);
    sp.thermo.t_mid = number(ranges[1], rw);
    sp.thermo.t_max = number(ranges[2], rw);
    if (!(sp.thermo.t_min < sp.thermo.t_mid && sp.thermo.t_mid < sp.thermo.t_max))
      throw MechanismError(rw + ": not increasing");
    for (int r = 0; r < 2; ++r) {
      if (!data[r].IsSequence() || data[r].size() != 7)
        throw MechanismError(where + ": thermo: data: expected two lists of 7 coefficients");
      auto& c = r == 0 ? sp.thermo.low : sp.thermo.high;
      for (int i = 0; i < 7; ++i) c[i] = number(data[r][i], where + ": thermo: data");
    }
    return sp;
  }

  void read_reactions(const Node& phase) {
    const std::string where = file_ + ": phase '" + mech_.phase + "'";
    const Node kinetics = phase["kinetics"];
    if (!kinetics.IsDefined()) return;  // a phase without kinetics has no reactions
    const std::string model = text(kinetics, where + ": kinetics");
    if (model != "gas")
      throw MechanismError(where + ": kinetics '" + model + "' is not supported (gas is)");
    std::vector<std::string> sections;
    const Node list = phase["reactions"];
    bool defaulted = false;
    if (!list.IsDefined() || (list.IsScalar() && list.as<std::string>() == "all")) {
      sections = {"reactions"};
      defaulted = !list.IsDefined();
    } else if (list.IsScalar() && list.as<std::string>() == "none") {
      return;
    } else {
      sections = names(list, where + ": reactions");
    }
    int index = 0;
    for (const auto& name : sections) {
      if (name.find('/') != std::string::npos)
        throw MechanismError(where + ": reactions: '" + name +
                             "': reactions from other files are not supported");
      const Node section = root_[name];
      if (!section.IsDefined() && defaulted) continue;
      if (!section.IsSequence())
        throw MechanismError(where + ": reactions: no list '" + name + "' in file");
      for (const auto& r : section) mech_.reactions.push_back(parse_reaction(r, ++index));
    }
  }

  Arrhenius arrhenius(const Node& node, const UnitSystem& u, double order,
                      const std::string& where) {
    if (!node.IsMap()) throw MechanismError(where + ": missing or not a mapping");
    for (const char* key : {"A", "b", "Ea"})
      if (!node[key]) throw MechanismError(where + ": missing '" + key + "'");
    Arrhenius k;
    k.A = number(node["A"], where + ": A") * u.rate_constant_factor(order);
    k.b = number(node["b"], where + ": b");
    k.Ea = parse_quantity(node["Ea"], u.activation_energy_factor(), "activation-energy",
                          where + ": Ea");
    return k;
  }

  void check_species(const std::string& name, const std::string& where) {
    if (index_.find(name) == index_.end())
      throw MechanismError(where + ": unknown species '" + name + "'");
  }

  Reaction parse_reaction(const Node& node, int index) {
    const std::string head = file_ + ": reaction " + std::to_string(index);
    if (!node.IsMap()) throw MechanismError(head + ": expected a mapping");
    const std::string equation = text(node["equation"], head + ": equation");
    const std::string where = head + " '" + equation + "'";
    try {
      return parse_reaction(node, equation, where);
    } catch (const YAML::Exception& e) {
      throw MechanismError(where + ": " + e.what());
    }
  }

  Reaction parse_reaction(const Node& node, const std::string& equation, const std::string& where) {
    Reaction r;
    r.equation = equation;
    const UnitSystem u = node["units"] ? parse_units(node["units"], units_, where) : units_;
    Equation eq;
    try {
      eq = parse_equation(equation);
    } catch (const std::invalid_argument& e) {
      throw MechanismError(where + ": equation: " + e.what());
    }
    const std::string type = node["type"] ? text(node["type"], where + ": type")
                                          : (eq.third_body ? "three-body" : "elementary");
    static const std::map<std::string, ReactionType> types = {
        {"elementary", ReactionType::elementary},
        {"Arrhenius", ReactionType::elementary},
        {"three-body", ReactionType::three_body},
        {"falloff", ReactionType::falloff},
        {"chemically-activated", ReactionType::chemically_activated},
        {"pressure-dependent-Arrhenius", ReactionType::plog},
        {"Chebyshev", ReactionType::chebyshev},
    };
    auto t = types.find(type);
    if (t == types.end())
      throw MechanismError(where + ": unsupported reaction type '" + type + "'");
    r.type = t->second;
    const bool falloff =
        r.type == ReactionType::falloff || r.type == ReactionType::chemically_activated;
    // Chebyshev equations may carry "(+M)" as decoration only (Cantera ignores it).
    if (falloff != !eq.falloff_collider.empty() && r.type != ReactionType::chebyshev)
      throw MechanismError(where + ": type '" + type + "' " +
                           (falloff ? "needs '(+M)'" : "does not take '(+M)'") +
                           " in the equation");
    if (eq.third_body && r.type != ReactionType::three_body)
      throw MechanismError(where + ": type '" + type + "' does not take '+ M' in the equation");
    r.reactants = eq.reactants;
    r.products = eq.products;
    r.reversible = eq.reversible;
    for (const auto& side : {r.reactants, r.products})
      for (const auto& [name, c] : side) check_species(name, where + ": equation");

    // Colliders: generic M with efficiencies, or one explicit species with efficiency 1.
    std::string collider = eq.third_body ? "M" : eq.falloff_collider;
    if (r.type == ReactionType::three_body && collider.empty())
      collider = explicit_collider(r, where);
    const bool has_colliders = r.type == ReactionType::three_body || falloff;
    if (has_colliders && collider != "M") {
      check_species(collider, where + ": collider");
      if (node["efficiencies"] || node["default-efficiency"])
        throw MechanismError(where + ": efficiencies with the explicit collider '" + collider +
                             "'");
      r.third_body.efficiencies[collider] = 1.0;
      r.third_body.default_efficiency = 0.0;
    } else if (has_colliders) {
      if (const Node eff = node["efficiencies"]) {
        if (!eff.IsMap()) throw MechanismError(where + ": efficiencies: expected a mapping");
        for (const auto& kv : eff) {
          const std::string name = kv.first.as<std::string>();
          check_species(name, where + ": efficiencies");
          r.third_body.efficiencies[name] = number(kv.second, where + ": efficiencies: " + name);
        }
      }
      if (node["default-efficiency"])
        r.third_body.default_efficiency =
            number(node["default-efficiency"], where + ": default-efficiency");
    } else if (node["efficiencies"] || node["default-efficiency"]) {
      throw MechanismError(where + ": efficiencies on a reaction of type '" + type + "'");
    }

    r.duplicate = flag(node, "duplicate", where);
    r.allow_negative_A = flag(node, "negative-A", where);
    double order = 0;
    for (const auto& [name, c] : r.reactants) order += c;
    if (const Node orders = node["orders"]) {
      if (!orders.IsMap()) throw MechanismError(where + ": orders: expected a mapping");
      if (r.reversible)
        throw MechanismError(where + ": orders: only irreversible reactions take explicit orders");
      const bool nonreactant = flag(node, "nonreactant-orders", where);
      const bool negative = flag(node, "negative-orders", where);
      for (const auto& kv : orders) {
        const std::string name = kv.first.as<std::string>();
        check_species(name, where + ": orders");
        const double o = number(kv.second, where + ": orders: " + name);
        auto it = std::find_if(r.reactants.begin(), r.reactants.end(),
                               [&](const auto& p) { return p.first == name; });
        if (it == r.reactants.end() && !nonreactant)
          throw MechanismError(where + ": orders: '" + name +
                               "' is not a reactant (set 'nonreactant-orders: true')");
        if (o < 0 && !negative)
          throw MechanismError(where + ": orders: negative order for '" + name +
                               "' (set 'negative-orders: true')");
        order += o - (it == r.reactants.end() ? 0.0 : it->second);
        r.orders[name] = o;
      }
    }

    switch (r.type) {
      case ReactionType::elementary:
        r.rate = arrhenius(node["rate-constant"], u, order, where + ": rate-constant");
        break;
      case ReactionType::three_body:
        r.rate = arrhenius(node["rate-constant"], u, order + 1, where + ": rate-constant");
        break;
      case ReactionType::falloff:
      case ReactionType::chemically_activated: {
        // k0 is one order above k_inf; falloff counts k_inf at the reactants' order,
        // chemically-activated counts k0 there.
        const double high = r.type == ReactionType::falloff ? order : order - 1;
        r.low =
            arrhenius(node["low-P-rate-constant"], u, high + 1, where + ": low-P-rate-constant");
        r.high = arrhenius(node["high-P-rate-constant"], u, high, where + ": high-P-rate-constant");
        r.falloff = parse_falloff(node, where);
        break;
      }
      case ReactionType::plog:
        r.plog = parse_plog(node["rate-constants"], u, order, where + ": rate-constants");
        break;
      case ReactionType::chebyshev:
        r.chebyshev = parse_chebyshev(node, u, order, where);
        break;
    }
    if (!r.allow_negative_A) {
      for (const auto* k : {&r.rate, &r.low, &r.high})
        if (k->A < 0)
          throw MechanismError(where +
                               ": negative pre-exponential factor (set 'negative-A: true')");
    }
    check_balance(r, where);
    return r;
  }

  // "H + O2 + AR <=> HO2 + AR" as type three-body: the one species on both sides is the collider.
  std::string explicit_collider(Reaction& r, const std::string& where) {
    std::vector<std::string> both;
    for (const auto& [name, c] : r.reactants)
      for (const auto& [pname, pc] : r.products)
        if (name == pname && c >= 1 && pc >= 1) both.push_back(name);
    if (both.size() != 1)
      throw MechanismError(where + ": three-body reaction without '+ M' or one explicit collider");
    for (auto* side : {&r.reactants, &r.products}) {
      for (auto it = side->begin(); it != side->end(); ++it) {
        if (it->first != both[0]) continue;
        it->second -= 1;
        if (it->second == 0) side->erase(it);
        break;
      }
    }
    return both[0];
  }

  Falloff parse_falloff(const Node& node, const std::string& where) {
    Falloff f;
    const Node troe = node["Troe"], sri = node["SRI"];
    if (troe && sri) throw MechanismError(where + ": both 'Troe' and 'SRI'");
    // Read as Lindemann, a Tsang falloff would give wrong rates without a word.
    if (node["Tsang"]) throw MechanismError(where + ": Tsang falloff is not supported");
    if (troe) {
      const std::string w = where + ": Troe";
      if (!troe.IsMap()) throw MechanismError(w + ": expected a mapping");
      for (const char* key : {"A", "T3", "T1"})
        if (!troe[key]) throw MechanismError(w + ": missing '" + key + "'");
      f.form = FalloffForm::troe;
      f.troe_A = number(troe["A"], w + ": A");
      f.troe_T3 = number(troe["T3"], w + ": T3");
      f.troe_T1 = number(troe["T1"], w + ": T1");
      f.troe_has_t2 = bool(troe["T2"]);
      if (f.troe_has_t2) f.troe_T2 = number(troe["T2"], w + ": T2");
    } else if (sri) {
      const std::string w = where + ": SRI";
      if (!sri.IsMap()) throw MechanismError(w + ": expected a mapping");
      for (const char* key : {"A", "B", "C"})
        if (!sri[key]) throw MechanismError(w + ": missing '" + key + "'");
      if (bool(sri["D"]) != bool(sri["E"]))
        throw MechanismError(w + ": 'D' and 'E' go together (3 or 5 parameters)");
      f.form = FalloffForm::sri;
      f.sri_A = number(sri["A"], w + ": A");
      f.sri_B = number(sri["B"], w + ": B");
      f.sri_C = number(sri["C"], w + ": C");
      if (sri["D"]) {
        f.sri_D = number(sri["D"], w + ": D");
        f.sri_E = number(sri["E"], w + ": E");
      }
    }
    return f;
  }

  std::vector<PlogRate> parse_plog(const Node& list, const UnitSystem& u, double order,
                                   const std::string& where) {
    if (!list.IsSequence() || list.size() == 0)
      throw MechanismError(where + ": expected a list of {P, A, b, Ea}");
    std::vector<PlogRate> out;
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string w = where + " " + std::to_string(i + 1);
      if (!list[i].IsMap() || !list[i]["P"]) throw MechanismError(w + ": missing 'P'");
      PlogRate p;
      p.pressure = parse_quantity(list[i]["P"], u.pressure, "pressure", w + ": P");
      if (!(p.pressure > 0)) throw MechanismError(w + ": P: not positive");
      // Lines at one pressure are summed, so a single line's A may be negative.
      p.rate = arrhenius(list[i], u, order, w);
      out.push_back(p);
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const PlogRate& a, const PlogRate& b) { return a.pressure < b.pressure; });
    return out;
  }

  Chebyshev parse_chebyshev(const Node& node, const UnitSystem& u, double order,
                            const std::string& where) {
    Chebyshev c;
    const Node tr = node["temperature-range"], pr = node["pressure-range"], data = node["data"];
    if (!tr.IsSequence() || tr.size() != 2)
      throw MechanismError(where + ": temperature-range: expected [Tmin, Tmax]");
    if (!pr.IsSequence() || pr.size() != 2)
      throw MechanismError(where + ": pressure-range: expected [Pmin, Pmax]");
    c.t_min = number(tr[0], where + ": temperature-range");
    c.t_max = number(tr[1], where + ": temperature-range");
    c.p_min = parse_quantity(pr[0], u.pressure, "pressure", where + ": pressure-range");
    c.p_max = parse_quantity(pr[1], u.pressure, "pressure", where + ": pressure-range");
    if (!(0 < c.t_min && c.t_min < c.t_max) || !(0 < c.p_min && c.p_min < c.p_max))
      throw MechanismError(where + ": temperature-range or pressure-range not increasing");
    if (!data.IsSequence() || data.size() == 0)
      throw MechanismError(where + ": data: expected a matrix");
    for (const auto& row : data) {
      if (!row.IsSequence() || row.size() == 0 ||
          (!c.data.empty() && row.size() != c.data[0].size()))
        throw MechanismError(where + ": data: rows of different lengths");
      c.data.emplace_back();
      for (const auto& x : row) c.data.back().push_back(number(x, where + ": data"));
    }
    c.data[0][0] += std::log10(u.rate_constant_factor(order));
    return c;
  }

  void check_balance(const Reaction& r, const std::string& where) {
    std::map<std::string, double> net;
    auto count = [&](const Stoichiometry& side, double sign) {
      for (const auto& [name, c] : side)
        for (const auto& [el, n] : mech_.species[index_.at(name)].composition)
          net[el] += sign * c * n;
    };
    count(r.reactants, 1.0);
    count(r.products, -1.0);
    for (const auto& [el, d] : net)
      if (std::abs(d) > 1e-6)
        throw MechanismError(where + ": unbalanced: element " + el + " differs by " + fmt(d) +
                             " atoms between reactants and products");
  }

  std::string file_;
  Node root_;
  UnitSystem units_;
  Mechanism mech_;
  std::map<std::string, int> index_;
};

}  // namespace

int Mechanism::species_index(const std::string& name) const {
  for (size_t i = 0; i < species.size(); ++i)
    if (species[i].name == name) return static_cast<int>(i);
  return -1;
}

Mechanism load_mechanism(const std::string& spec, const std::string& phase) {
  std::string name = spec, phase_name = phase;
  // "FILE:PHASE": a colon after the last folder separator.
  const size_t colon = spec.rfind(':');
  if (colon != std::string::npos && spec.find('/', colon) == std::string::npos) {
    name = spec.substr(0, colon);
    const std::string p = spec.substr(colon + 1);
    if (!phase.empty() && p != phase)
      throw MechanismError(spec + ": phase '" + p + "' and phase '" + phase + "' both requested");
    phase_name = p;
  }
  const std::string file = find_mechanism_file(name).string();
  return Loader(file, read_yaml(file)).load(phase_name);
}

}  // namespace dualjit::kinetics
