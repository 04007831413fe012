// What ptxas makes of each launch of the tape columns (backends/assembly/
// tape_columns_launches.h) for a mechanism's constant-pressure derivatives' kernel, with no GPU:
// each launch lowered as DeviceTapeColumns lowers it at full effort, compiled by NVRTC to
// CUBIN for sm_90 at jit::default_compile_options (or ptxas -O<n> with --opt), and its
// registers, stack frame, spills and dynamic shared memory printed, with the launch's
// statements. A launch that spills at 255 registers or that ptxas holds at 32 is what Nsight
// Compute then shows bound by local memory (bench/RESULTS.md).
//
//   kinetics_tape_columns_ptxas [--mechanism FILE[:PHASE]] [--form F] [--opt N] [--sources]
//                               [--only TEXT] [--write DIR]
//   (default gri30.yaml, the derivatives' form: rate_laws.h); the columns' launches in each
//   stores, the direct entries' (for cell-major blocks) named _dt, and their expand launch;
//   --only: the launches whose symbol holds TEXT. --sources prints each launch's CUDA and host
//   source digests instead, compiling nothing: what a refactor of the emitters must leave
//   alone. --write DIR: each compiled launch's CUDA source as DIR/SYMBOL.cu.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "backends/assembly/tape_columns_launches.h"
#include "examples/kinetics/mechanism.h"
#include "examples/kinetics/rate_law_kernels.h"
#include "jit/cuda_image.h"
#include "jit/nvrtc_compiler.h"

using namespace dualjit;

int main(int argc, char** argv) {
  std::string spec = "gri30.yaml";
  int opt = -1;
  bool sources = false;
  std::string only, write;
  kinetics::RateLawForm form = kinetics::RateLawForm::derivatives;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--mechanism" && i + 1 < argc) {
      spec = argv[++i];
    } else if (a == "--form" && i + 1 < argc) {
      form = kinetics::rate_law_form_named(argv[++i]);
    } else if (a == "--sources") {
      sources = true;
    } else if (a == "--only" && i + 1 < argc) {
      only = argv[++i];
    } else if (a == "--write" && i + 1 < argc) {
      write = argv[++i];
    } else if (a == "--opt" && i + 1 < argc) {
      opt = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr,
                   "usage: kinetics_tape_columns_ptxas [--mechanism FILE[:PHASE]] [--form F] "
                   "[--opt N] [--sources] [--only TEXT] [--write DIR]\n");
      return 2;
    }
  }
  const kinetics::Mechanism m = kinetics::load_mechanism(spec);
  assembly::Term t;
  t.name = "cells";
  t.kernel = std::make_shared<const Kernel>(
      kinetics::production_rates_kernel(m, {kinetics::ReactorState::constant_pressure, form}));
  t.elements.name = "cells";
  t.elements.k = 1;
  t.elements.conn = {0};
  assembly::TapeColumnsSettings settings;
  settings.effort = jit::CompileEffort::Full;
  const std::optional<assembly::TapeColumnsLaunches> l =
      assembly::tape_columns_launches(t, settings);
  if (!l) {
    std::fprintf(stderr, "kinetics_tape_columns_ptxas: %s: no tape columns for its kernel\n",
                 spec.c_str());
    return 1;
  }
  std::vector<const jit::LoweredKernel*> launches = {&l->tapes, &l->rest, &l->fill};
  if (l->gather) launches.push_back(&*l->gather);
  for (const auto& [order, columns] : l->columns)
    for (const jit::LoweredKernel& c : columns) launches.push_back(&c);
  launches.push_back(&l->expand);
  if (sources) {
    for (const jit::LoweredKernel* k : launches) {
      std::printf("%-86s cuda %s host %s\n", k->symbol.c_str(), k->cuda_source_sha256().c_str(),
                  k->host_source_sha256().c_str());
    }
    return 0;
  }
  std::printf("%s: tape of %lld slots, %d auxiliary slots an element\n", t.kernel->name().c_str(),
              static_cast<long long>(l->pattern.size), l->aux_size);
  std::printf("%-86s %10s %6s %4s %8s %9s %9s %9s %8s %s\n", "launch", "statements", "regs", "-O",
              "stack B", "spill st", "spill ld", "compile s", "shared B",
              "collapsed (the cache retries at -O1)");
  for (const jit::LoweredKernel* k : launches) {
    if (k->symbol.find(only) == std::string::npos) continue;
    if (!write.empty()) std::ofstream(write + "/" + k->symbol + ".cu") << k->cuda_source;
    jit::CompileOptions o = jit::default_compile_options(*k, "sm_90");
    if (opt >= 0) {
      o.opt_level = opt;
      o.extra.clear();
    }
    const auto t0 = std::chrono::steady_clock::now();
    const jit::CompiledImage img = jit::nvrtc_compile(k->cuda_entry, k->cuda_source, o);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const jit::PtxasReport& r = img.ptxas;
    // The emitters' own launches (aux, columns, gather) count no statements.
    const std::string statements = k->statements ? std::to_string(k->statements) : "-";
    std::printf("%-86s %10s %6d %4d %8d %9d %9d %9.1f %8zu %s\n", k->symbol.c_str(),
                statements.c_str(), r.registers, o.opt_level, r.stack_bytes,
                r.spill_store_bytes + r.function_spill_store_bytes, r.spill_load_bytes, seconds,
                static_cast<size_t>(k->launch.dynamic_shared_bytes),
                jit::ptxas_collapsed(r, k->options.layout) ? "yes" : "no");
  }
  return 0;
}
