// Hand-written CUDA peer of bench/kinetics_rates.cpp's rates: a mechanism's net production
// rates wdot (kmol/m^3/s) and heat release rate q (W/m^3) per cell at constant pressure, state
// (T, Y_1..Y_ns), written as a CUDA developer writes a mechanism-independent kernel: one thread
// per cell looping over tables of the species (NASA7) and the reactions (Arrhenius, three-body
// efficiencies, falloff: Lindemann, Troe, SRI, chemically activated), the tables read with
// warp-uniform addresses (one transaction serves a warp), the cell's concentrations, g/RT and
// wdot in per-thread arrays. The definitions are those of bench/peers/kinetics_jax.py (and
// examples/kinetics, Cantera 3.2's). PLOG and Chebyshev rates are refused, naming the reaction.
//
// Inputs, written by kinetics_rates --write DIR: DIR/kinetics_<mech>.json and the arrays files
// DIR/kinetics_<mech>_<CELLS>.bin ("states" CELLS x (ns + 1), "pressure").
// Timing: CUDA events around the kernel after warm-up, medians; the states already on the
// device. Prints the checksums kinetics_rates prints (sum wdot, sum |wdot|, sum q) in one
// RESULT line. --cpu runs the same cell function on the host over the first --cpu-cells cells
// (default 1000), untimed: a check against kinetics_rates --cpu without a GPU.
//
// Build: nvcc -O3 -arch=sm_90 -std=c++17 -o kinetics_handwritten kinetics_handwritten.cu
// Run:   ./kinetics_handwritten MECH.json STATES.bin [...] [--reps 15] [--block 128]
//                                [--arrays local|shared|warp] [--jacobian] [--cpu]
//                                [--cpu-cells N]
// --arrays shared keeps the per-cell arrays in shared memory instead of the thread's local
// memory (3 ns doubles a thread: 81 KB a block of 64 for GRI-3.0), what a loop over reaction
// tables needs to keep them on chip. --arrays warp runs a warp per cell: species and reactions
// over the lanes, C, g/RT, exp(g/RT) and its reciprocal, [M] of each efficiency set and the
// rates of progress in shared memory (4 ns + nr + sets doubles a warp: 4.3 KB for GRI-3.0),
// 1/Kc as a product of those factors (as dualjit's values' form: one exp a reaction, not two),
// wdot gathered per species. The reactions are ordered by kind,
// falloff form and reversibility (so that a warp's lanes mostly take the same branches); every
// variant sums in that order. Where a warp's lanes take consecutive reactions (--arrays warp,
// --jacobian) they read the tables field-major, lists in fixed slots, and [M] from the cell's
// values of the mechanism's distinct efficiency sets, so that a load is a few sectors.
// --jacobian computes instead the dense (T, Y) Jacobian d(wdot, q)/d(T, Y) of kinetics_rates
// ((ns + 1)^2 a cell, cell-major, rows wdot_k then q, columns T then Y_k): a block per cell, a
// thread per reaction at a time taking its rate of progress in dual numbers over T, [M] and the
// (at most 6) C it reads, accumulating them into dwdot/d(T, C) in shared memory, which then
// composes with dC/d(T, Y); its RESULT line carries kinetics_rates' sum |J|. Shared memory's
// fp64 atomics are compare-and-swap loops on sm_90 (ATOMS.CAST.SPIN.64); --jacobian-gather
// stores each reaction's partials instead and sums them per species' row, a thread a row.
#include <cuda_runtime.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "CUDA error in %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

// ---- A small JSON reader (the mechanism file: objects, arrays, numbers, strings, bools). ----
struct Json {
  enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
  double number = 0;
  bool boolean = false;
  std::string text;
  std::vector<Json> items;
  std::map<std::string, Json> fields;

  const Json& operator[](const std::string& key) const {
    const auto it = fields.find(key);
    if (it == fields.end()) throw std::runtime_error("JSON: no field '" + key + "'");
    return it->second;
  }
  bool has(const std::string& key) const { return fields.count(key) != 0; }
  const Json& operator[](size_t i) const { return items.at(i); }
};

class JsonReader {
 public:
  explicit JsonReader(std::string s) : s_(std::move(s)) {}
  Json read() {
    Json j = value();
    space();
    if (at_ != s_.size()) fail("trailing text");
    return j;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw std::runtime_error("JSON at byte " + std::to_string(at_) + ": " + why);
  }
  void space() {
    while (at_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[at_]))) ++at_;
  }
  void expect(char c) {
    space();
    if (at_ >= s_.size() || s_[at_] != c) fail(std::string("expected '") + c + "'");
    ++at_;
  }
  std::string string() {
    expect('"');
    std::string out;
    while (at_ < s_.size() && s_[at_] != '"') {
      if (s_[at_] == '\\') ++at_;  // the mechanism's strings escape at most quotes
      out += s_[at_++];
    }
    expect('"');
    return out;
  }
  Json value() {
    space();
    if (at_ >= s_.size()) fail("unexpected end");
    Json j;
    const char c = s_[at_];
    if (c == '{' || c == '[') {
      const bool object = c == '{';
      j.kind = object ? Json::Object : Json::Array;
      ++at_;
      space();
      if (s_[at_] == (object ? '}' : ']')) return ++at_, j;
      for (;;) {
        if (object) {
          std::string key = string();
          expect(':');
          j.fields[key] = value();
        } else {
          j.items.push_back(value());
        }
        space();
        if (s_[at_] != ',') break;
        ++at_;
      }
      expect(object ? '}' : ']');
      return j;
    }
    if (c == '"') {
      j.kind = Json::String;
      j.text = string();
      return j;
    }
    for (const char* word : {"true", "false", "null"}) {
      if (s_.compare(at_, std::strlen(word), word) == 0) {
        at_ += std::strlen(word);
        j.kind = word[0] == 'n' ? Json::Null : Json::Bool;
        j.boolean = word[0] == 't';
        return j;
      }
    }
    char* end = nullptr;
    j.number = std::strtod(s_.c_str() + at_, &end);
    if (end == s_.c_str() + at_) fail("not a value");
    j.kind = Json::Number;
    at_ = static_cast<size_t>(end - s_.c_str());
    return j;
  }

  std::string s_;
  size_t at_ = 0;
};

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

// ---- The arrays file (bench/energy_bench.h ArraysFile): float64 arrays by name. ----
std::map<std::string, std::pair<std::vector<int64_t>, std::vector<double>>> read_arrays(
    const std::string& path) {
  const std::string b = slurp(path);
  if (b.compare(0, 8, std::string("DJARRS1\0", 8)) != 0)
    throw std::runtime_error(path + ": not an arrays file");
  size_t at = 8;
  const auto i64 = [&] {
    int64_t v;
    std::memcpy(&v, b.data() + at, 8);
    at += 8;
    return v;
  };
  std::map<std::string, std::pair<std::vector<int64_t>, std::vector<double>>> out;
  for (int64_t n = i64(), a = 0; a < n; ++a) {
    const std::string name(b.c_str() + at);
    at += 24;
    const std::string dtype(b.c_str() + at);
    at += 8;
    const int64_t rows = i64(), cols = i64();
    if (dtype != "<f8" && dtype != "float64")
      throw std::runtime_error(path + ": array " + name + " is " + dtype + ", not float64");
    std::vector<double> v(static_cast<size_t>(rows * cols));
    if (at + v.size() * 8 > b.size()) throw std::runtime_error(path + ": " + name + " truncated");
    std::memcpy(v.data(), b.data() + at, v.size() * 8);
    at += v.size() * 8;
    out[name] = {{rows, cols}, std::move(v)};
  }
  return out;
}

// ---- Tables. ----
constexpr int kMaxSpecies = 128;
constexpr int kLocal = 6;
constexpr int kSlots = 8;  // entries of a reaction's orders, products or net list, at most
enum ListKind : int {
  kOrders = 0,
  kProducts = 1,
  kNetList = 2
};                                 // species a reaction's rate of progress reads, at most
constexpr double kSmall = 1e-300;  // Cantera's SmallNumber
constexpr double kLn10 = 2.302585092994045684;

enum RateKind : int { kArrhenius = 0, kThreeBody = 1, kFalloff = 2, kActivated = 3 };
enum FalloffForm : int { kLindemann = 0, kTroe = 1, kSri = 2 };

// Per reaction: kInts ints and kReals doubles; then lists of (species, coefficient) pairs.
enum IntField : int {
  iKind,
  iForm,
  iReversible,
  iOrd,
  iNOrd,
  iProd,
  iNProd,
  iNet,
  iNNet,
  iTb,
  iNTb,
  kInts
};
enum RealField : int {
  rLnA,
  rB,
  rEaR,
  rSign,  // the rate (falloff: the high-pressure limit)
  rLnA0,
  rB0,
  rEaR0,
  rSign0,  // falloff: the low-pressure limit
  rTroeA,
  rTroeN3,
  rTroeN1,
  rTroeT2,
  rTroeM3,
  rTroeM1,
  rTroeM2,
  rSriA,
  rSriB,
  rSriNc,
  rSriD,
  rSriE,
  rSriMc,
  rDefaultEff,
  rDnu,
  kReals
};

struct Tables {
  int ns = 0, nr = 0;
  const double* inv_W;   // ns
  const double* t_mid;   // ns
  const double* thermo;  // ns x 28: g low, g high, h low, h high (7 each)
  const int* ints;       // nr x kInts
  const double* reals;   // nr x kReals
  const int* list_k;     // every list's species
  const double* list_v;  // and coefficients
  double R, log_R_pref;
  // Per species, the reactions that change it and its net coefficient in each (CSR): wdot_k
  // gathered from the rates of progress.
  const int* species_start;  // ns + 1
  const int* species_r;
  const double* species_v;
  // The same tables field-major (field f of reaction r at f nr + r), what the warp-per-cell
  // kernel reads: a warp's lanes take consecutive reactions, so each load is a few sectors.
  // Lists there are kSlots fixed slots each (orders, products, net: list l, slot j at
  // (l kSlots + j) nr + r), and [M] comes from the cell's value of the reaction's set of
  // efficiencies (mset; the sets' default efficiency, and their species and eff - default in
  // CSR), computed once a cell.
  const int* ints_t;
  const double* reals_t;
  // Per reaction, the species whose C its rate of progress reads (orders, products), kLocal
  // each, -1 after the last: the Jacobian's directions (slot j of reaction r at j nr + r).
  const int* local_t;
  const int* slot_k;
  const double* slot_v;
  const int* mset;
  int n_msets;
  const double* mset_default;
  const int* mset_start;
  const int* mset_k;
  const double* mset_v;
};

struct HostTables {
  int ns = 0, nr = 0;
  std::vector<double> inv_W, t_mid, thermo, reals, list_v;
  std::vector<int> ints, list_k, species_start, species_r, local_k;
  std::vector<double> species_v;
  std::vector<int> ints_t, local_t, slot_k, mset, mset_start, mset_k;
  std::vector<double> reals_t, slot_v, mset_default, mset_v;
  double R = 0, log_R_pref = 0;
  std::string name;

  Tables view() const {
    return {ns,
            nr,
            inv_W.data(),
            t_mid.data(),
            thermo.data(),
            ints.data(),
            reals.data(),
            list_k.data(),
            list_v.data(),
            R,
            log_R_pref,
            species_start.data(),
            species_r.data(),
            species_v.data(),
            ints_t.data(),
            reals_t.data(),
            local_t.data(),
            slot_k.data(),
            slot_v.data(),
            mset.data(),
            static_cast<int>(mset_default.size()),
            mset_default.data(),
            mset_start.data(),
            mset_k.data(),
            mset_v.data()};
  }
};

void arrhenius_params(const Json& a, double R, double* out) {
  const double A = a[0].number, b = a[1].number, Ea = a[2].number;
  out[0] = A == 0 ? 0.0 : std::log(std::fabs(A));
  out[1] = b;
  out[2] = Ea / R;
  out[3] = A > 0 ? 1.0 : (A < 0 ? -1.0 : 0.0);
}

HostTables build_tables(const std::string& path) {
  const Json d = JsonReader(slurp(path)).read();
  HostTables t;
  t.name = path.substr(path.find_last_of('/') + 1);
  t.R = d["gas_constant"].number;
  t.log_R_pref = std::log(t.R / d["one_atm"].number);
  const Json& sp = d["species"];
  const Json& rx = d["reactions"];
  t.ns = static_cast<int>(sp.items.size());
  t.nr = static_cast<int>(rx.items.size());
  if (t.ns > kMaxSpecies)
    throw std::runtime_error(path + ": " + std::to_string(t.ns) + " species, more than " +
                             std::to_string(kMaxSpecies) + " this peer holds per thread");
  for (const Json& s : sp.items) {
    t.inv_W.push_back(1.0 / s["W"].number);
    t.t_mid.push_back(s["t_mid"].number);
  }
  // thermo.cpp's bases over (1, T, T^2, T^3, T^4, 1/T, ln T): g/RT and h/RT, low and high.
  t.thermo.resize(size_t(t.ns) * 28);
  for (int k = 0; k < t.ns; ++k) {
    for (int r = 0; r < 2; ++r) {
      const Json& a = sp[k][r == 0 ? "low" : "high"];
      double c[7];
      for (int i = 0; i < 7; ++i) c[i] = a[i].number;
      const double g[7] = {c[0] - c[6], -c[1] / 2, -c[2] / 6, -c[3] / 12, -c[4] / 20, c[5], -c[0]};
      const double h[7] = {c[0], c[1] / 2, c[2] / 3, c[3] / 4, c[4] / 5, c[5], 0.0};
      for (int i = 0; i < 7; ++i) {
        t.thermo[size_t(k) * 28 + r * 7 + i] = g[i];
        t.thermo[size_t(k) * 28 + 14 + r * 7 + i] = h[i];
      }
    }
  }
  for (const Json& r : rx.items) {
    const std::string type = r["type"].text;
    const std::string where = path + ": reaction " +
                              std::to_string(static_cast<int>(r["index"].number) + 1) + " '" +
                              r["equation"].text + "'";
    int in[kInts] = {};
    double re[kReals] = {};
    if (type == "elementary") {
      in[iKind] = kArrhenius;
    } else if (type == "three-body") {
      in[iKind] = kThreeBody;
    } else if (type == "falloff") {
      in[iKind] = kFalloff;
    } else if (type == "chemically-activated") {
      in[iKind] = kActivated;
    } else {
      throw std::runtime_error(where + ": rate type " + type + " is not in this peer");
    }
    in[iReversible] = r["reversible"].boolean ? 1 : 0;
    const bool falloff = in[iKind] >= kFalloff;
    arrhenius_params(falloff ? r["high"] : r["rate"], t.R, re + rLnA);
    if (falloff) {
      arrhenius_params(r["low"], t.R, re + rLnA0);
      const Json& f = r["falloff"];
      const std::string form = f["form"].text;
      in[iForm] = form == "troe" ? kTroe : form == "sri" ? kSri : kLindemann;
      if (form != "troe" && form != "sri" && form != "lindemann")
        throw std::runtime_error(where + ": falloff form " + form + " is not in this peer");
      const Json& troe = f["troe"];
      const double T3 = troe[1].number, T1 = troe[2].number;
      re[rTroeA] = troe[0].number;
      re[rTroeM3] = std::fabs(T3) >= kSmall;
      re[rTroeM1] = std::fabs(T1) >= kSmall;
      re[rTroeM2] = f["troe_has_t2"].boolean && troe[3].number != 0;
      re[rTroeN3] = re[rTroeM3] ? -1.0 / T3 : 0.0;
      re[rTroeN1] = re[rTroeM1] ? -1.0 / T1 : 0.0;
      re[rTroeT2] = troe[3].number;
      const Json& sri = f["sri"];
      re[rSriA] = sri[0].number;
      re[rSriB] = sri[1].number;
      re[rSriMc] = sri[2].number != 0;
      re[rSriNc] = sri[2].number != 0 ? -1.0 / sri[2].number : 0.0;
      re[rSriD] = sri[3].number;
      re[rSriE] = sri[4].number;
    }
    const auto list = [&](const Json& pairs, int off_field, int n_field) {
      in[off_field] = static_cast<int>(t.list_k.size());
      for (const Json& p : pairs.items) {
        t.list_k.push_back(static_cast<int>(p[0].number));
        t.list_v.push_back(p[1].number);
      }
      in[n_field] = static_cast<int>(pairs.items.size());
    };
    list(r["orders"], iOrd, iNOrd);
    list(r["products"], iProd, iNProd);
    std::vector<int> local;
    for (const char* side : {"orders", "products"})
      for (const Json& p : r[side].items)
        if (std::find(local.begin(), local.end(), int(p[0].number)) == local.end())
          local.push_back(int(p[0].number));
    if (local.size() > size_t(kLocal))
      throw std::runtime_error(where + ": more than " + std::to_string(kLocal) +
                               " species in its rate of progress");
    local.resize(kLocal, -1);
    t.local_k.insert(t.local_k.end(), local.begin(), local.end());
    // Net coefficients, one entry per species.
    std::map<int, double> net;
    for (const Json& p : r["products"].items) net[int(p[0].number)] += p[1].number;
    for (const Json& p : r["reactants"].items) net[int(p[0].number)] -= p[1].number;
    in[iNet] = static_cast<int>(t.list_k.size());
    for (const auto& [k, v] : net) {
      t.list_k.push_back(k);
      t.list_v.push_back(v);
      re[rDnu] += v;
    }
    in[iNNet] = static_cast<int>(net.size());
    in[iTb] = static_cast<int>(t.list_k.size());
    if (r.has("default_efficiency")) {
      const double d0 = r["default_efficiency"].number;
      re[rDefaultEff] = d0;
      for (const Json& p : r["efficiencies"].items) {
        t.list_k.push_back(static_cast<int>(p[0].number));
        t.list_v.push_back(p[1].number - d0);
      }
      in[iNTb] = static_cast<int>(r["efficiencies"].items.size());
    } else if (in[iKind] != kArrhenius) {
      throw std::runtime_error(where + ": no default_efficiency");
    }
    t.ints.insert(t.ints.end(), in, in + kInts);
    t.reals.insert(t.reals.end(), re, re + kReals);
  }
  // Reactions ordered by kind, falloff form and reversibility, so that the 32 a warp's lanes
  // take together mostly run the same branches (the warp-per-cell kernel); the rows move whole.
  std::vector<int> order(t.nr);
  for (int r = 0; r < t.nr; ++r) order[r] = r;
  const auto key = [&](int r) {
    const int* in = t.ints.data() + size_t(r) * kInts;
    return std::make_tuple(in[iKind], in[iForm], -in[iReversible]);
  };
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return key(a) < key(b); });
  std::vector<int> ints;
  std::vector<double> reals;
  for (int r : order) {
    ints.insert(ints.end(), t.ints.begin() + size_t(r) * kInts,
                t.ints.begin() + size_t(r + 1) * kInts);
    reals.insert(reals.end(), t.reals.begin() + size_t(r) * kReals,
                 t.reals.begin() + size_t(r + 1) * kReals);
  }
  std::vector<int> local_k;
  for (int r : order)
    local_k.insert(local_k.end(), t.local_k.begin() + size_t(r) * kLocal,
                   t.local_k.begin() + size_t(r + 1) * kLocal);
  t.ints = std::move(ints);
  t.reals = std::move(reals);
  t.local_k = std::move(local_k);
  std::vector<std::vector<std::pair<int, double>>> by_species(t.ns);
  for (int r = 0; r < t.nr; ++r) {
    const int* in = t.ints.data() + size_t(r) * kInts;
    for (int i = in[iNet]; i < in[iNet] + in[iNNet]; ++i)
      by_species[t.list_k[i]].push_back({r, t.list_v[i]});
  }
  t.species_start.push_back(0);
  for (const auto& list : by_species) {
    for (const auto& [r, v] : list) {
      t.species_r.push_back(r);
      t.species_v.push_back(v);
    }
    t.species_start.push_back(static_cast<int>(t.species_r.size()));
  }
  // Field-major copies, list slots and efficiency sets.
  t.ints_t.resize(t.ints.size());
  t.reals_t.resize(t.reals.size());
  for (int r = 0; r < t.nr; ++r) {
    for (int f = 0; f < kInts; ++f) t.ints_t[size_t(f) * t.nr + r] = t.ints[size_t(r) * kInts + f];
    for (int f = 0; f < kReals; ++f)
      t.reals_t[size_t(f) * t.nr + r] = t.reals[size_t(r) * kReals + f];
  }
  t.local_t.resize(t.local_k.size());
  for (int r = 0; r < t.nr; ++r)
    for (int j = 0; j < kLocal; ++j)
      t.local_t[size_t(j) * t.nr + r] = t.local_k[size_t(r) * kLocal + j];
  t.slot_k.assign(size_t(3) * kSlots * t.nr, -1);
  t.slot_v.assign(size_t(3) * kSlots * t.nr, 0.0);
  std::map<std::vector<double>, int> sets;  // default, then (species, eff - default) pairs
  for (int r = 0; r < t.nr; ++r) {
    const int* in = t.ints.data() + size_t(r) * kInts;
    const int starts[3] = {in[iOrd], in[iProd], in[iNet]},
              counts[3] = {in[iNOrd], in[iNProd], in[iNNet]};
    for (int l = 0; l < 3; ++l) {
      if (counts[l] > kSlots)
        throw std::runtime_error(path + ": a reaction with more than " + std::to_string(kSlots) +
                                 " entries in a list");
      for (int j = 0; j < counts[l]; ++j) {
        t.slot_k[(size_t(l) * kSlots + j) * t.nr + r] = t.list_k[starts[l] + j];
        t.slot_v[(size_t(l) * kSlots + j) * t.nr + r] = t.list_v[starts[l] + j];
      }
    }
    if (in[iKind] == kArrhenius) {
      t.mset.push_back(-1);
      continue;
    }
    std::vector<double> key{t.reals[size_t(r) * kReals + rDefaultEff]};
    for (int i = in[iTb]; i < in[iTb] + in[iNTb]; ++i) {
      key.push_back(t.list_k[i]);
      key.push_back(t.list_v[i]);
    }
    const auto [it, added] = sets.insert({key, static_cast<int>(sets.size())});
    t.mset.push_back(it->second);
  }
  t.mset_default.resize(sets.size());
  std::vector<const std::vector<double>*> by_index(sets.size());
  for (const auto& [key, e] : sets) by_index[e] = &key;
  t.mset_start.push_back(0);
  for (size_t e = 0; e < sets.size(); ++e) {
    const std::vector<double>& key = *by_index[e];
    t.mset_default[e] = key[0];
    for (size_t i = 1; i + 1 < key.size(); i += 2) {
      t.mset_k.push_back(static_cast<int>(key[i]));
      t.mset_v.push_back(key[i + 1]);
    }
    t.mset_start.push_back(static_cast<int>(t.mset_k.size()));
  }
  return t;
}

// ---- One cell. ----
// Table reads: warp-uniform addresses through the read-only cache on the GPU.
template <class T>
__host__ __device__ inline T load(const T* p) {
#ifdef __CUDA_ARCH__
  return __ldg(p);
#else
  return *p;
#endif
}

// Forward-mode dual numbers over a reaction's directions for the Jacobian: T, [M], and the C of
// its kLocal species (Tables::local_k).
constexpr int kDirs = 2 + kLocal;
struct Dual {
  double v = 0, d[kDirs] = {};
  __host__ __device__ Dual() {}
  __host__ __device__ Dual(double x) : v(x) {}
  __host__ __device__ static Dual seed(double x, int dir) {
    Dual r(x);
    r.d[dir] = 1.0;
    return r;
  }
  // x with derivative dx in direction dir (its only one).
  __host__ __device__ static Dual seed(double x, int dir, double dx) {
    Dual r(x);
    r.d[dir] = dx;
    return r;
  }
  __host__ __device__ Dual& operator+=(const Dual& b) { return *this = *this + b; }
  __host__ __device__ Dual& operator-=(const Dual& b) { return *this = *this - b; }
  __host__ __device__ Dual& operator*=(const Dual& b) { return *this = *this * b; }
  // f(v) with f'(v) = df: the chain rule.
  __host__ __device__ Dual chain(double f, double df) const {
    Dual r(f);
    for (int i = 0; i < kDirs; ++i) r.d[i] = df * d[i];
    return r;
  }
  __host__ __device__ friend Dual operator+(const Dual& a, const Dual& b) {
    Dual r(a.v + b.v);
    for (int i = 0; i < kDirs; ++i) r.d[i] = a.d[i] + b.d[i];
    return r;
  }
  __host__ __device__ friend Dual operator-(const Dual& a, const Dual& b) {
    Dual r(a.v - b.v);
    for (int i = 0; i < kDirs; ++i) r.d[i] = a.d[i] - b.d[i];
    return r;
  }
  __host__ __device__ friend Dual operator*(const Dual& a, const Dual& b) {
    Dual r(a.v * b.v);
    for (int i = 0; i < kDirs; ++i) r.d[i] = a.d[i] * b.v + a.v * b.d[i];
    return r;
  }
  __host__ __device__ friend Dual operator/(const Dual& a, const Dual& b) {
    const double q = a.v / b.v, inv = 1.0 / b.v;
    Dual r(q);
    for (int i = 0; i < kDirs; ++i) r.d[i] = (a.d[i] - q * b.d[i]) * inv;
    return r;
  }
};
// The doubles' functions stay visible beside the duals' overloads.
using ::exp;
using ::fmax;
using ::log;
using ::log10;
using ::pow;
__host__ __device__ inline Dual exp(const Dual& a) {
  const double e = exp(a.v);
  return a.chain(e, e);
}
__host__ __device__ inline Dual log(const Dual& a) {
  return a.chain(log(a.v), 1.0 / a.v);
}
__host__ __device__ inline Dual log10(const Dual& a) {
  return a.chain(log10(a.v), 1.0 / (a.v * kLn10));
}
__host__ __device__ inline Dual fmax(const Dual& a, double b) {
  return a.v >= b ? a : Dual(b);
}
__host__ __device__ inline Dual pow(const Dual& a, const Dual& b) {
  return exp(b * log(a));
}
__host__ __device__ inline Dual pow(const Dual& a, double b) {
  const double p = pow(a.v, b);
  return a.chain(p, b * pow(a.v, b - 1.0));
}

// A reaction's table row: its int and real fields, its lists (orders, products, net) and the
// value of its [M]. RowMajor reads the reaction-major tables and the lists' CSR, FieldMajor
// the field-major tables, the lists' slots and the cell's [M] of the reaction's set.
struct RowMajor {
  const Tables& t;
  const int* in;
  const double* re;
  __host__ __device__ RowMajor(const Tables& tables, int r)
      : t(tables), in(tables.ints + size_t(r) * kInts), re(tables.reals + size_t(r) * kReals) {}
  __host__ __device__ int i(int f) const { return load(in + f); }
  __host__ __device__ double x(int f) const { return load(re + f); }
  __host__ __device__ int n(int list) const {
    return i(list == kOrders ? iNOrd : list == kProducts ? iNProd : iNNet);
  }
  __host__ __device__ int start(int list) const {
    return i(list == kOrders ? iOrd : list == kProducts ? iProd : iNet);
  }
  __host__ __device__ int k(int list, int j) const { return load(t.list_k + start(list) + j); }
  __host__ __device__ double v(int list, int j) const { return load(t.list_v + start(list) + j); }
  template <class Access>
  __host__ __device__ double M(double C_tot, Access& a) const {
    double m = x(rDefaultEff) * C_tot;
    for (int b = i(iTb), e = b + i(iNTb); b < e; ++b)
      m += load(t.list_v + b) * a.value_C(load(t.list_k + b));
    return m;
  }
};
struct FieldMajor {
  const Tables& t;
  int r;
  __host__ __device__ int i(int f) const { return load(t.ints_t + size_t(f) * t.nr + r); }
  __host__ __device__ double x(int f) const { return load(t.reals_t + size_t(f) * t.nr + r); }
  __host__ __device__ int n(int list) const {
    return i(list == kOrders ? iNOrd : list == kProducts ? iNProd : iNNet);
  }
  __host__ __device__ int k(int list, int j) const {
    return load(t.slot_k + (size_t(list) * kSlots + j) * t.nr + r);
  }
  __host__ __device__ double v(int list, int j) const {
    return load(t.slot_v + (size_t(list) * kSlots + j) * t.nr + r);
  }
  template <class Access>
  __host__ __device__ double M(double, Access& a) const {
    return a.M_of_set(load(t.mset + r));
  }
};

template <class S, class Row>
__host__ __device__ inline S arrhenius(const Row& row, int f, const S& log_T, const S& inv_T) {
  const double sign = row.x(f + 3);
  return sign == 0.0 ? S(0.0) : sign * exp(row.x(f) + row.x(f + 1) * log_T - row.x(f + 2) * inv_T);
}

// C^o for the integer orders every shipped mechanism uses, pow otherwise.
template <class S>
__host__ __device__ inline S power(const S& c, double o) {
  if (o == 1.0) return c;
  if (o == 2.0) return c * c;
  if (o == 3.0) return c * c * c;
  return pow(c, o);
}

// Where a cell's per-species arrays (C, g/RT, wdot) live: the thread's own arrays (local
// memory on the GPU: indexed by the tables, they cannot be registers), or shared memory, one
// column per thread (element k of thread j at k * stride + j: a warp's accesses to the same k
// fall in 32 consecutive doubles, no bank conflicts).
struct LocalArrays {
  static constexpr bool kFactors = false;
  double c[kMaxSpecies], g[kMaxSpecies], w[kMaxSpecies];
  __host__ __device__ double& C(int k) { return c[k]; }
  __host__ __device__ double& G(int k) { return g[k]; }
  __host__ __device__ double& W(int k) { return w[k]; }
};
struct SharedArrays {
  static constexpr bool kFactors = false;
  double* base;  // this thread's column of 3 ns rows
  int ns, stride;
  __device__ double& C(int k) { return base[size_t(k) * stride]; }
  __device__ double& G(int k) { return base[size_t(ns + k) * stride]; }
  __device__ double& W(int k) { return base[size_t(2 * ns + k) * stride]; }
};

// What a reaction's rate of progress needs of its cell besides C and g/RT: doubles for the
// rates, duals in T for the Jacobian.
template <class S>
struct Terms {
  S T, log_T, inv_T;
  double C_tot;
  S log_RT_pref;
};
using CellTerms = Terms<double>;

// ln(1/Kc) = sum_k nu_k g_k/RT + (sum_k nu_k) ln(R T / p_ref).
template <class S, class Row, class Access>
__host__ __device__ S log_inverse_Kc(const Row& row, Access& a, const S& log_RT_pref) {
  S sum = row.x(rDnu) * log_RT_pref;
  for (int j = 0, e = row.n(kNetList); j < e; ++j)
    sum += row.v(kNetList, j) * a.G(row.k(kNetList, j));
  return sum;
}

// The values' accessors: C and g/RT as they are, [M] a number.
template <class Arrays>
struct Values {
  static constexpr bool kFactors = Arrays::kFactors;
  Arrays& a;
  __host__ __device__ double C(int k) { return a.C(k); }
  __host__ __device__ double value_C(int k) { return a.C(k); }
  __host__ __device__ double G(int k) { return a.G(k); }
  __host__ __device__ double third_body(double M) { return M; }
  __host__ __device__ double M_of_set(int e) { return a.M_of_set(e); }
  // 1/Kc as a product of the species' factors exp(g/RT) or their reciprocals, and of R T / p_ref
  // or its reciprocal, one per unit of coefficient, where every net coefficient is an integer
  // up to 4 (dualjit's values' form); else exp(ln(1/Kc)).
  template <class Row>
  __host__ __device__ double inverse_Kc(const Row& row, double log_RT_pref) {
    const int n = row.n(kNetList);
    bool integral = true;
    for (int j = 0; j < n; ++j) {
      const double nu = row.v(kNetList, j);
      integral = integral && nu == floor(nu) && fabs(nu) <= 4;
    }
    if (!integral) return exp(log_inverse_Kc(row, *this, log_RT_pref));
    double inv = 1.0;
    for (int j = 0; j < n; ++j) {
      const int k = row.k(kNetList, j), nu = int(row.v(kNetList, j));
      for (int i = 0; i < nu; ++i) inv *= a.F(k);
      for (int i = 0; i < -nu; ++i) inv *= a.F_inverse(k);
    }
    const int dnu = int(row.x(rDnu));
    for (int i = 0; i < dnu; ++i) inv *= a.RT_pref;
    for (int i = 0; i < -dnu; ++i) inv *= a.pref_RT;
    return inv;
  }
};

// Reaction r's rate of progress (kmol/m^3/s) in S (double, or Dual for its derivatives), C and
// g/RT read through `a`.
template <class S, class Row, class Access>
__host__ __device__ S rate_of_progress(const Row& row, Access& a, const Terms<S>& c) {
  const S T = c.T, log_T = c.log_T, inv_T = c.inv_T, log_RT_pref = c.log_RT_pref;
  const int kind = row.i(iKind);
  S M = 0.0;
  if (kind != kArrhenius) M = a.third_body(row.M(c.C_tot, a));
  S kf;
  if (kind < kFalloff) {
    kf = arrhenius(row, rLnA, log_T, inv_T);
  } else {
    const S k0 = arrhenius(row, rLnA0, log_T, inv_T);
    const S kinf = arrhenius(row, rLnA, log_T, inv_T);
    const S Pr = M * k0 / (kinf + kSmall);
    const S lpr = log10(fmax(Pr, kSmall));
    S F = 1.0;
    const int form = row.i(iForm);
    if (form == kTroe) {
      S Fcent = 0.0;
      if (row.x(rTroeM3) != 0) Fcent += (1 - row.x(rTroeA)) * exp(T * row.x(rTroeN3));
      if (row.x(rTroeM1) != 0) Fcent += row.x(rTroeA) * exp(T * row.x(rTroeN1));
      if (row.x(rTroeM2) != 0) Fcent += exp(-row.x(rTroeT2) * inv_T);
      const S lF = log10(fmax(Fcent, kSmall));
      const S cc = -0.4 - 0.67 * lF, nn = 0.75 - 1.27 * lF;
      const S f1 = (lpr + cc) / (nn - 0.14 * (lpr + cc));
      F = exp(kLn10 * (lF / (1.0 + f1 * f1)));
    } else if (form == kSri) {
      S base = row.x(rSriA) * exp(-row.x(rSriB) * inv_T);
      if (row.x(rSriMc) != 0) base += exp(T * row.x(rSriNc));
      const double e = row.x(rSriE);
      const S sc = e == 0 ? S(row.x(rSriD)) : row.x(rSriD) * exp(e * log_T);
      F = pow(base, 1.0 / (1.0 + lpr * lpr)) * sc;
    }
    kf = kind == kActivated ? F / (1.0 + Pr) * k0 : Pr * (F / (1.0 + Pr)) * kinf;
  }
  S fwd = kf;
  for (int j = 0, e = row.n(kOrders); j < e; ++j)
    fwd *= power(a.C(row.k(kOrders, j)), row.v(kOrders, j));
  S rop = fwd;
  if (row.i(iReversible)) {
    // kr = kf / Kc.
    S rev;
    if constexpr (Access::kFactors)
      rev = kf * a.inverse_Kc(row, log_RT_pref);
    else
      rev = kf * exp(log_inverse_Kc(row, a, log_RT_pref));
    for (int j = 0, e = row.n(kProducts); j < e; ++j)
      rev *= power(a.C(row.k(kProducts, j)), row.v(kProducts, j));
    rop -= rev;
  }
  if (kind == kThreeBody) rop *= M;
  return rop;
}

// g/RT (part 0) or h/RT (part 1) of species k over the basis (1, T, T^2, T^3, T^4, 1/T, ln T).
__host__ __device__ inline double species_thermo(const Tables& t, int k, int part, double T,
                                                 const double* basis) {
  const double* c = t.thermo + size_t(k) * 28 + part * 14 + (T <= load(t.t_mid + k) ? 0 : 7);
  double s = 0;
  for (int i = 0; i < 7; ++i) s += load(c + i) * basis[i];
  return s;
}

template <class Arrays>
__host__ __device__ void cell_rates(const Tables& t, const double* x, double p, double* out,
                                    Arrays& a) {
  const int ns = t.ns;
  const double T = x[0], log_T = log(T), inv_T = 1.0 / T, T2 = T * T;
  const double basis[7] = {1.0, T, T2, T2 * T, T2 * T2, inv_T, log_T};
  double moles = 0;
  for (int k = 0; k < ns; ++k) {
    a.C(k) = x[1 + k] * load(t.inv_W + k);
    moles += a.C(k);
    a.G(k) = species_thermo(t, k, 0, T, basis);
    a.W(k) = 0;
  }
  const double C_tot = p / (t.R * T), scale = C_tot / moles;
  for (int k = 0; k < ns; ++k) a.C(k) *= scale;
  const CellTerms terms{T, log_T, inv_T, C_tot, log_T + t.log_R_pref};
  for (int r = 0; r < t.nr; ++r) {
    Values<Arrays> v{a};
    const double rop = rate_of_progress(RowMajor(t, r), v, terms);
    for (int i = load(t.ints + size_t(r) * kInts + iNet),
             e = i + load(t.ints + size_t(r) * kInts + iNNet);
         i < e; ++i)
      a.W(load(t.list_k + i)) += load(t.list_v + i) * rop;
  }
  double q = 0;
  for (int k = 0; k < ns; ++k) {
    q += species_thermo(t, k, 1, T, basis) * a.W(k);
    out[k] = a.W(k);
  }
  out[ns] = -(t.R * T) * q;
}

// C and g/RT in plain arrays: the warp-per-cell kernel's shared memory, the host's arrays.
struct PointerArrays {
  static constexpr bool kFactors = true;
  double* c;
  double* g;
  double* m;     // [M] of each efficiency set (FieldMajor rows)
  double* f;     // exp(g/RT)
  double* finv;  // exp(-g/RT)
  double RT_pref, pref_RT;
  __host__ __device__ double F(int k) const { return f[k]; }
  __host__ __device__ double F_inverse(int k) const { return finv[k]; }
  __host__ __device__ double M_of_set(int e) const { return m[e]; }
  __host__ __device__ double& C(int k) { return c[k]; }
  __host__ __device__ double& G(int k) { return g[k]; }
};

// [M] of efficiency set e: its default efficiency times C_tot plus (eff - default) C.
__host__ __device__ inline double set_third_body(const Tables& t, int e, double C_tot,
                                                 const double* C) {
  double m = load(t.mset_default + e) * C_tot;
  for (int i = load(t.mset_start + e), end = load(t.mset_start + e + 1); i < end; ++i)
    m += load(t.mset_v + i) * C[load(t.mset_k + i)];
  return m;
}

// A warp's shared memory: C, g/RT, the rates of progress, the sets' [M], exp(g/RT) and its
// reciprocal.
__host__ __device__ inline size_t warp_shared_doubles(const Tables& t) {
  return 4 * size_t(t.ns) + t.nr + t.n_msets;
}

// Synchronisation and sums of a warp's lanes on the GPU, of one thread on the host.
struct WarpOps {
  __device__ void sync() const { __syncwarp(); }
  __device__ double sum(double v) const {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
  }
};
struct HostOps {
  __host__ __device__ void sync() const {}
  __host__ __device__ double sum(double v) const { return v; }
  __host__ __device__ void add(double* p, double v) const { *p += v; }
};

// Lane `lane` of `lanes` computes its share of cell x's rates into out, with the cell's
// values in sm (warp_shared_doubles): the species, efficiency sets and reactions spread over
// the lanes (lane, lane + lanes, ...), the reactions read field-major (FieldMajor), and wdot_k
// gathered per species from its reactions' rates of progress (no atomics, the same sums in the
// same order every run).
template <class Ops>
__host__ __device__ void warp_cell(const Tables& t, const double* x, double p, double* out,
                                   double* sm, int lane, int lanes, const Ops& ops) {
  const int ns = t.ns, nr = t.nr;
  double *C = sm, *g = C + ns, *rop = g + ns, *M = rop + nr, *f = M + t.n_msets, *finv = f + ns;
  const double T = x[0], log_T = log(T), inv_T = 1.0 / T, T2 = T * T;
  const double basis[7] = {1.0, T, T2, T2 * T, T2 * T2, inv_T, log_T};
  PointerArrays a{C, g, M, f, finv, T * exp(t.log_R_pref), 0};
  a.pref_RT = 1.0 / a.RT_pref;
  double moles = 0;
  for (int k = lane; k < ns; k += lanes) {
    C[k] = x[1 + k] * load(t.inv_W + k);
    moles += C[k];
    g[k] = species_thermo(t, k, 0, T, basis);
    f[k] = exp(g[k]);
    finv[k] = 1.0 / f[k];
  }
  const double C_tot = p / (t.R * T), scale = C_tot / ops.sum(moles);
  for (int k = lane; k < ns; k += lanes) C[k] *= scale;
  ops.sync();
  for (int e = lane; e < t.n_msets; e += lanes) M[e] = set_third_body(t, e, C_tot, C);
  ops.sync();
  const CellTerms terms{T, log_T, inv_T, C_tot, log_T + t.log_R_pref};
  Values<PointerArrays> v{a};
  for (int r = lane; r < nr; r += lanes) rop[r] = rate_of_progress(FieldMajor{t, r}, v, terms);
  ops.sync();
  double q = 0;
  for (int k = lane; k < ns; k += lanes) {
    double w = 0;
    for (int i = load(t.species_start + k), e = load(t.species_start + k + 1); i < e; ++i)
      w += load(t.species_v + i) * rop[load(t.species_r + i)];
    out[k] = w;
    q += species_thermo(t, k, 1, T, basis) * w;
  }
  q = ops.sum(q);
  if (lane == 0) out[ns] = -(t.R * T) * q;
  ops.sync();  // the next cell overwrites sm
}

// One warp per cell (warp_cell), a warp taking cells nwarps apart.
__global__ void rates_kernel_warp(Tables t, int64_t n, const double* states, double p,
                                  double* out) {
  extern __shared__ double columns[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  double* sm = columns + size_t(warp) * warp_shared_doubles(t);
  const int64_t nwarps = int64_t(gridDim.x) * (blockDim.x >> 5);
  for (int64_t cell = int64_t(blockIdx.x) * (blockDim.x >> 5) + warp; cell < n; cell += nwarps)
    warp_cell(t, states + cell * (t.ns + 1), p, out + cell * (t.ns + 1), sm, lane, 32, WarpOps{});
}

// ---- The dense (T, Y) Jacobian, d(wdot, q)/d(T, Y): a block per cell. ----
// Reaction r's accessors for rate_of_progress in duals: the C of its local species seeded in
// directions 2.., [M] in direction 1, g/RT with its T-derivative -(h/RT)/T.
struct JacobianAccess {
  static constexpr bool kFactors = false;
  const double *conc, *gRT, *hRT;
  const double* M;   // the cell's [M] of each efficiency set
  const int* local;  // the reaction's kLocal species, local[j stride]
  int stride;
  double inv_T;
  __host__ __device__ Dual C_of(int k) const {
    for (int j = 0; j < kLocal; ++j)
      if (load(local + size_t(j) * stride) == k) return Dual::seed(conc[k], 2 + j);
    return Dual(conc[k]);
  }
  __host__ __device__ Dual C(int k) { return C_of(k); }
  __host__ __device__ Dual G(int k) { return Dual::seed(gRT[k], 0, -hRT[k] * inv_T); }
  __host__ __device__ Dual third_body(double m) { return Dual::seed(m, 1); }
  __host__ __device__ double M_of_set(int e) const { return M[e]; }
};

// Synchronisation and accumulation of the cell's block on the GPU (HostOps: of one thread on
// the host).
struct BlockOps {
  __device__ void sync() const { __syncthreads(); }
  __device__ void add(double* p, double v) const { atomicAdd(p, v); }
};

// Shared memory of a cell: J (ns x (ns + 1)), then wdot, C, g/RT, h/RT, d(h/RT)/dT, P, the
// mole sum and the efficiency sets' [M].
// Gathered, the reactions' partials follow: kPartials a reaction, field-major.
constexpr int kPartials = 3 + kLocal;  // rop, d/dT (with [M]'s T part), d/d[M], d/dC local
__host__ __device__ inline size_t jacobian_shared_doubles(const Tables& t, bool gather) {
  return size_t(t.ns) * (t.ns + 1) + 6 * size_t(t.ns) + 1 + t.n_msets +
         (gather ? size_t(kPartials) * t.nr : 0);
}

// Thread tid of nt computes its share of cell x's Jacobian into out ((ns + 1)^2, rows wdot_k then
// q, columns T then Y_k). Each reaction's rate of progress in duals gives its partials in T,
// [M] and the C it reads; they accumulate into dwdot/d(T, C) (the T column at constant C, with
// C_tot = p / RT inside [M]), which then composes with dC/d(T, Y): C_i = s Y_i / W_i, s = C_tot /
// m, m = sum Y / W, so dC_i/dY_j = s delta_ij / W_j - C_i / (W_j m) and dC_i/dT = -C_i / T.
// Gather: instead of atomics, each reaction stores its partials and each species' row sums
// those of its reactions (a thread per row; no two threads write one entry).
template <bool Gather, class Ops>
__host__ __device__ void jacobian_cell(const Tables& t, const double* x, double p, double* out,
                                       double* sm, int tid, int nt, const Ops& ops) {
  const int ns = t.ns, nc = ns + 1;
  double *J = sm, *W = J + size_t(ns) * nc, *C = W + ns, *g = C + ns, *h = g + ns, *hd = h + ns,
         *P = hd + ns, *moles = P + ns, *M = moles + 1, *partials = M + t.n_msets;
  const double T = x[0], log_T = log(T), inv_T = 1.0 / T, T2 = T * T;
  const double basis[7] = {1.0, T, T2, T2 * T, T2 * T2, inv_T, log_T};
  const double dbasis[7] = {0.0, 1.0, 2 * T, 3 * T2, 4 * T2 * T, -inv_T * inv_T, inv_T};
  if (tid == 0) *moles = 0;
  for (int e = tid; e < ns * nc; e += nt) J[e] = 0;
  ops.sync();
  for (int k = tid; k < ns; k += nt) {
    C[k] = x[1 + k] * load(t.inv_W + k);
    ops.add(moles, C[k]);
    g[k] = species_thermo(t, k, 0, T, basis);
    h[k] = species_thermo(t, k, 1, T, basis);
    hd[k] = species_thermo(t, k, 1, T, dbasis);
    W[k] = 0;
  }
  ops.sync();
  const double m = *moles, C_tot = p / (t.R * T), s = C_tot / m;
  for (int k = tid; k < ns; k += nt) C[k] *= s;
  ops.sync();
  for (int e = tid; e < t.n_msets; e += nt) M[e] = set_third_body(t, e, C_tot, C);
  ops.sync();
  const Terms<Dual> terms{Dual::seed(T, 0), Dual::seed(log_T, 0, inv_T),
                          Dual::seed(inv_T, 0, -inv_T * inv_T), C_tot,
                          Dual::seed(log_T + t.log_R_pref, 0, inv_T)};
  for (int r = tid; r < t.nr; r += nt) {
    const FieldMajor reaction{t, r};
    const int* local = t.local_t + r;
    JacobianAccess a{C, g, h, M, local, t.nr, inv_T};
    const Dual rop = rate_of_progress(reaction, a, terms);
    const int set = load(t.mset + r);
    // [M] = default C_tot + sum (eff_i - default) C_i: its T part here, its C part below.
    const double dT =
        rop.d[0] + (set >= 0 ? rop.d[1] * load(t.mset_default + set) * -C_tot * inv_T : 0);
    if constexpr (Gather) {
      const int nr = t.nr;
      partials[r] = rop.v;
      partials[nr + r] = dT;
      partials[2 * nr + r] = rop.d[1];
      for (int j = 0; j < kLocal; ++j) partials[size_t(3 + j) * nr + r] = rop.d[2 + j];
    } else {
      for (int i = 0, e = reaction.n(kNetList); i < e; ++i) {
        const int k = reaction.k(kNetList, i);
        const double nu = reaction.v(kNetList, i);
        double* row = J + size_t(k) * nc;
        ops.add(W + k, nu * rop.v);
        ops.add(row, nu * dT);
        for (int j = 0; j < kLocal; ++j) {
          const int l = load(local + size_t(j) * t.nr);
          if (l >= 0) ops.add(row + 1 + l, nu * rop.d[2 + j]);
        }
        if (set >= 0)
          for (int b = load(t.mset_start + set), be = load(t.mset_start + set + 1); b < be; ++b)
            ops.add(row + 1 + load(t.mset_k + b), nu * rop.d[1] * load(t.mset_v + b));
      }
    }
  }
  ops.sync();
  if constexpr (Gather) {
    const int nr = t.nr;
    for (int k = tid; k < ns; k += nt) {
      double* row = J + size_t(k) * nc;
      double w = 0;
      for (int i = load(t.species_start + k), e = load(t.species_start + k + 1); i < e; ++i) {
        const int r = load(t.species_r + i);
        const double nu = load(t.species_v + i);
        w += nu * partials[r];
        row[0] += nu * partials[nr + r];
        for (int j = 0; j < kLocal; ++j) {
          const int l = load(t.local_t + size_t(j) * nr + r);
          if (l >= 0) row[1 + l] += nu * partials[size_t(3 + j) * nr + r];
        }
        const int set = load(t.mset + r);
        if (set >= 0) {
          const double dM = nu * partials[2 * nr + r];
          for (int b = load(t.mset_start + set), be = load(t.mset_start + set + 1); b < be; ++b)
            row[1 + load(t.mset_k + b)] += dM * load(t.mset_v + b);
        }
      }
      W[k] = w;
    }
    ops.sync();
  }
  for (int k = tid; k < ns; k += nt) {
    double sum = 0;
    for (int i = 0; i < ns; ++i) sum += J[size_t(k) * nc + 1 + i] * C[i];
    P[k] = sum;
  }
  ops.sync();
  for (int e = tid; e < ns * nc; e += nt) {
    const int k = e / nc, c = e % nc;
    const double v = c == 0 ? J[e] - P[k] * inv_T : (s * J[e] - P[k] / m) * load(t.inv_W + c - 1);
    J[e] = v;
    out[e] = v;
  }
  ops.sync();
  const double RT = t.R * T;
  for (int c = tid; c < nc; c += nt) {
    double sum = 0;
    for (int k = 0; k < ns; ++k) sum += h[k] * J[size_t(k) * nc + c];
    double v = -RT * sum;
    if (c == 0) {
      double hw = 0, hdw = 0;
      for (int k = 0; k < ns; ++k) {
        hw += h[k] * W[k];
        hdw += hd[k] * W[k];
      }
      v += -t.R * hw - RT * hdw;
    }
    out[size_t(ns) * nc + c] = v;
  }
  ops.sync();  // the next cell overwrites the shared memory
}

template <bool Gather>
__global__ void jacobian_kernel(Tables t, int64_t n, const double* states, double p, double* out) {
  extern __shared__ double cell[];
  const int64_t nc = t.ns + 1;
  for (int64_t i = blockIdx.x; i < n; i += gridDim.x)
    jacobian_cell<Gather>(t, states + i * nc, p, out + i * nc * nc, cell, threadIdx.x, blockDim.x,
                          BlockOps{});
}

__global__ void rates_kernel(Tables t, int64_t n, const double* states, double p, double* out) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  LocalArrays a;
  cell_rates(t, states + i * (t.ns + 1), p, out + i * (t.ns + 1), a);
}

// The same with the arrays in dynamic shared memory: 3 ns blockDim.x doubles a block.
__global__ void rates_kernel_shared(Tables t, int64_t n, const double* states, double p,
                                    double* out) {
  extern __shared__ double columns[];
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  SharedArrays a{columns + threadIdx.x, t.ns, static_cast<int>(blockDim.x)};
  cell_rates(t, states + i * (t.ns + 1), p, out + i * (t.ns + 1), a);
}

template <class T>
T* to_device(const std::vector<T>& v) {
  T* d = nullptr;
  check(cudaMalloc(&d, std::max<size_t>(v.size(), 1) * sizeof(T)), "cudaMalloc");
  check(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
  return d;
}

struct Checksums {
  double wdot = 0, wdot_abs = 0, q = 0;
};

// Per cell, then over cells (as kinetics_rates sums them).
Checksums checksums(const std::vector<double>& out, int64_t n, int ns) {
  Checksums c;
  for (int64_t i = 0; i < n; ++i) {
    double s = 0, a = 0;
    for (int k = 0; k < ns; ++k) {
      s += out[size_t(i) * (ns + 1) + k];
      a += std::fabs(out[size_t(i) * (ns + 1) + k]);
    }
    c.wdot += s;
    c.wdot_abs += a;
    c.q += out[size_t(i) * (ns + 1) + ns];
  }
  return c;
}

// --jacobian: the (T, Y) Jacobian of every cell, timed (the GPU, a block per cell, as many
// blocks as fit) or on the host over the first cpu_cells cells; the RESULT line carries sum |J|
// as kinetics_rates prints it. gather: the partials gathered per species' row, not added by
// atomics.
void run_jacobian(const HostTables& host, const Tables& dev, const std::string& mech,
                  const std::vector<double>& states, int64_t n, double p, int64_t cpu_cells,
                  int block, int reps, bool gather) {
  const char* accumulate = gather ? "gather" : "atomic";
  const int ns = host.ns, nc = ns + 1;
  const size_t per_cell = size_t(nc) * nc;
  const auto abs_sum = [](const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += std::fabs(x);
    return s;
  };
  if (cpu_cells > 0) {
    const Tables t = host.view();
    std::vector<double> out(size_t(cpu_cells) * per_cell), sm(jacobian_shared_doubles(t, gather));
    for (int64_t i = 0; i < cpu_cells; ++i) {
      const double* x = states.data() + i * nc;
      double* o = out.data() + i * per_cell;
      if (gather)
        jacobian_cell<true>(t, x, p, o, sm.data(), 0, 1, HostOps{});
      else
        jacobian_cell<false>(t, x, p, o, sm.data(), 0, 1, HostOps{});
    }
    std::printf(
        "RESULT kinetics_handwritten_jacobian mechanism=%s backend=cpu accumulate=%s cells=%lld "
        "J_abs_sum=%.17g\n",
        mech.c_str(), accumulate, (long long)cpu_cells, abs_sum(out));
    return;
  }
  const auto kernel = gather ? jacobian_kernel<true> : jacobian_kernel<false>;
  const size_t smem = jacobian_shared_doubles(host.view(), gather) * sizeof(double);
  check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)),
        "cudaFuncSetAttribute");
  int per_sm = 0, sms = 0;
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, smem), "occupancy");
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "attribute");
  const unsigned grid = unsigned(std::min<int64_t>(n, int64_t(per_sm) * sms));
  double* d_states = to_device(states);
  double* d_out = nullptr;
  check(cudaMalloc(&d_out, size_t(n) * per_cell * sizeof(double)), "cudaMalloc");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "event");
  check(cudaEventCreate(&stop), "event");
  for (int w = 0; w < 2; ++w) kernel<<<grid, block, smem>>>(dev, n, d_states, p, d_out);
  check(cudaDeviceSynchronize(), "warm-up");
  std::vector<float> ms(reps);
  for (int r = 0; r < reps; ++r) {
    cudaEventRecord(start);
    kernel<<<grid, block, smem>>>(dev, n, d_states, p, d_out);
    cudaEventRecord(stop);
    check(cudaEventSynchronize(stop), "jacobian_kernel");
    cudaEventElapsedTime(&ms[r], start, stop);
  }
  std::sort(ms.begin(), ms.end());
  std::vector<double> out(size_t(n) * per_cell);
  check(cudaMemcpy(out.data(), d_out, out.size() * sizeof(double), cudaMemcpyDeviceToHost),
        "download");
  std::printf(
      "RESULT kinetics_handwritten_jacobian mechanism=%s backend=cuda accumulate=%s cells=%lld "
      "block=%d blocks_per_sm=%d J_ms=%.4f J_abs_sum=%.17g\n",
      mech.c_str(), accumulate, (long long)n, block, per_sm, ms[reps / 2], abs_sum(out));
  std::fflush(stdout);
  cudaFree(d_states);
  cudaFree(d_out);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> files;
  int reps = 15, block = 128;
  int64_t cpu_cells = 1000;
  bool cpu = false, shared = false, warp = false, jacobian = false, gather = false;
  std::string arrays = "local";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--jacobian" || a == "--jacobian-gather") {
      jacobian = true;
      gather = a == "--jacobian-gather";
      continue;
    }
    if (a == "--arrays" && i + 1 < argc) {
      const std::string where = argv[++i];
      if (where != "local" && where != "shared" && where != "warp") {
        std::fprintf(stderr, "--arrays local|shared|warp, not %s\n", where.c_str());
        return 2;
      }
      arrays = where;
      shared = where == "shared";
      warp = where == "warp";
      continue;
    }
    if (a == "--reps" && i + 1 < argc) {
      reps = std::atoi(argv[++i]);
    } else if (a == "--block" && i + 1 < argc) {
      block = std::atoi(argv[++i]);
    } else if (a == "--cpu") {
      cpu = true;
    } else if (a == "--cpu-cells" && i + 1 < argc) {
      cpu_cells = std::atoll(argv[++i]);
    } else {
      files.push_back(a);
    }
  }
  if (files.size() < 2) {
    std::fprintf(stderr,
                 "usage: kinetics_handwritten MECH.json STATES.bin [...] [--reps N] "
                 "[--block B] [--arrays local|shared|warp] [--jacobian|--jacobian-gather] [--cpu] "
                 "[--cpu-cells N]\n");
    return 2;
  }
  try {
    const HostTables host = build_tables(files[0]);
    const int ns = host.ns;
    std::printf("%s: %d species, %d reactions\n", host.name.c_str(), ns, host.nr);
    Tables dev{};
    size_t smem = 0;
    unsigned warp_grid = 0;
    if (warp && block % 32 != 0)
      throw std::runtime_error("--arrays warp needs whole warps a block");
    if (!cpu) {
      dev = host.view();
      dev.inv_W = to_device(host.inv_W);
      dev.t_mid = to_device(host.t_mid);
      dev.thermo = to_device(host.thermo);
      dev.ints = to_device(host.ints);
      dev.reals = to_device(host.reals);
      dev.list_k = to_device(host.list_k);
      dev.list_v = to_device(host.list_v);
      dev.species_start = to_device(host.species_start);
      dev.species_r = to_device(host.species_r);
      dev.species_v = to_device(host.species_v);
      dev.ints_t = to_device(host.ints_t);
      dev.local_t = to_device(host.local_t);
      dev.reals_t = to_device(host.reals_t);
      dev.slot_k = to_device(host.slot_k);
      dev.slot_v = to_device(host.slot_v);
      dev.mset = to_device(host.mset);
      dev.mset_default = to_device(host.mset_default);
      dev.mset_start = to_device(host.mset_start);
      dev.mset_k = to_device(host.mset_k);
      dev.mset_v = to_device(host.mset_v);
      cudaDeviceProp prop;
      check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
      cudaFuncAttributes attr;
      const auto kernel = warp ? rates_kernel_warp : shared ? rates_kernel_shared : rates_kernel;
      check(cudaFuncGetAttributes(&attr, kernel), "cudaFuncGetAttributes");
      smem = shared ? size_t(3) * ns * block * sizeof(double)
             : warp ? warp_shared_doubles(host.view()) * (block / 32) * sizeof(double)
                    : 0;
      if (smem > 0)
        check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)),
              "cudaFuncSetAttribute");
      if (warp) {
        int per_sm = 0;
        check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, smem),
              "occupancy");
        warp_grid = unsigned(per_sm * prop.multiProcessorCount);
        std::printf("warp per cell: %d blocks of %d a multiprocessor, grid %u\n", per_sm, block,
                    warp_grid);
      }
      std::printf("device %s; kernel: %d registers, %zu B local per thread, %zu B shared a block\n",
                  prop.name, attr.numRegs, attr.localSizeBytes, smem);
    }
    for (size_t f = 1; f < files.size(); ++f) {
      auto arrays = read_arrays(files[f]);
      const auto& states = arrays.at("states");
      const int64_t n = states.first[0];
      if (states.first[1] != ns + 1)
        throw std::runtime_error(files[f] + ": states have " + std::to_string(states.first[1]) +
                                 " columns, the mechanism " + std::to_string(ns + 1));
      const double p = arrays.at("pressure").second.at(0);
      std::string mech = host.name.substr(0, host.name.rfind('.'));
      if (mech.rfind("kinetics_", 0) == 0) mech.erase(0, std::strlen("kinetics_"));
      if (jacobian) {
        run_jacobian(host, dev, mech, states.second, n, p, cpu ? std::min(n, cpu_cells) : 0, block,
                     reps, gather);
        continue;
      }
      if (cpu) {
        const int64_t m = std::min(n, cpu_cells);
        std::vector<double> out(size_t(m) * (ns + 1));
        const Tables t = host.view();
        LocalArrays a;
        std::vector<double> sm(warp_shared_doubles(t));
        for (int64_t i = 0; i < m; ++i) {
          const double* x = states.second.data() + i * (ns + 1);
          if (warp)
            warp_cell(t, x, p, out.data() + i * (ns + 1), sm.data(), 0, 1, HostOps{});
          else
            cell_rates(t, x, p, out.data() + i * (ns + 1), a);
        }
        const Checksums c = checksums(out, m, ns);
        std::printf(
            "RESULT kinetics_handwritten mechanism=%s backend=cpu cells=%lld "
            "wdot_sum=%.17g wdot_abs_sum=%.17g q_sum=%.17g\n",
            mech.c_str(), (long long)m, c.wdot, c.wdot_abs, c.q);
        continue;
      }
      double* d_states = to_device(states.second);
      double* d_out = nullptr;
      check(cudaMalloc(&d_out, size_t(n) * (ns + 1) * sizeof(double)), "cudaMalloc");
      const unsigned grid = static_cast<unsigned>((n + block - 1) / block);
      cudaEvent_t start, stop;
      check(cudaEventCreate(&start), "event");
      check(cudaEventCreate(&stop), "event");
      const auto run = [&] {
        if (warp)
          rates_kernel_warp<<<warp_grid, block, smem>>>(dev, n, d_states, p, d_out);
        else if (shared)
          rates_kernel_shared<<<grid, block, smem>>>(dev, n, d_states, p, d_out);
        else
          rates_kernel<<<grid, block>>>(dev, n, d_states, p, d_out);
      };
      for (int w = 0; w < 3; ++w) run();
      check(cudaDeviceSynchronize(), "warm-up");
      std::vector<float> ms(reps);
      for (int r = 0; r < reps; ++r) {
        cudaEventRecord(start);
        run();
        cudaEventRecord(stop);
        check(cudaEventSynchronize(stop), "rates_kernel");
        cudaEventElapsedTime(&ms[r], start, stop);
      }
      std::sort(ms.begin(), ms.end());
      std::vector<double> out(size_t(n) * (ns + 1));
      check(cudaMemcpy(out.data(), d_out, out.size() * sizeof(double), cudaMemcpyDeviceToHost),
            "download");
      const Checksums c = checksums(out, n, ns);
      std::printf(
          "RESULT kinetics_handwritten mechanism=%s backend=cuda cells=%lld block=%d "
          "arrays=%s w_ms=%.4f wdot_sum=%.17g wdot_abs_sum=%.17g q_sum=%.17g\n",
          mech.c_str(), (long long)n, block, shared ? "shared" : "local", ms[reps / 2], c.wdot,
          c.wdot_abs, c.q);
      std::fflush(stdout);
      cudaFree(d_states);
      cudaFree(d_out);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kinetics_handwritten: %s\n", e.what());
    return 1;
  }
  return 0;
}
