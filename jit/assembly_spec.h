// How an element kernel's results reach global memory. Without an AssemblySpec the driver
// writes element-major local results (dsl/mode.h); with one it assembles in place:
//   ScatterAtomic   each element adds its residual rows and Jacobian blocks with atomics into
//                   the residual, the diagonal blocks (fp64) and the off-diagonal block-CSR
//                   values (fp32 or fp64) through precomputed per-element block slots;
//   GatherByColumn  one thread per node walks the node's incident elements, differentiates
//                   each with respect to that node's own state only, and writes its residual
//                   row, its diagonal block and the off-diagonal blocks of its column: no
//                   atomics, deterministic by construction (each output has one writer and a
//                   fixed summation order). Staged on CUDA: each block owns a range of nodes
//                   and runs their elements a tile at a time, side by side
//                   (mesh::SideIncidence): every lane of a warp differentiates with respect
//                   to the same vertex.
// The gather's summation order, on every backend and layout: per node, each side's elements
// (the node as local vertex 0, 1, ...) summed in element order from 0.0, then the sides'
// sums added to 0.0 in side order. Compiled without FMA contraction (jit/cuda_image.h), the
// GPU's staged kernels of any tile size, its unstaged kernel and the CPU backend give the same
// bits wherever the element uses only correctly rounded operations (+ - * / sqrt fabs, as
// the Roe flux; library functions such as exp differ between the GPU and the CPU).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace dualjit::jit {

enum class AssemblyStrategy { ScatterAtomic, GatherByColumn };
std::string_view assembly_name(AssemblyStrategy s);

// Staged GatherByColumn: the most nodes one block owns with a tile of `tile` threads (its
// shared accumulators hold that many residual rows and diagonal blocks).
inline int gather_max_nodes(int tile) {
  return tile / 2 > 1 ? tile / 2 : 1;
}

struct AssemblySpec {
  AssemblyStrategy strategy = AssemblyStrategy::ScatterAtomic;
  int vertices = 2;  // k
  int block = 1;     // B: node field width (every input and output slot)
  // Per output slot: (element vertex, sign) pairs its components are added to.
  std::vector<std::vector<std::pair<int, double>>> output_scatter;
  bool jacobian = true;    // assemble dR/dQ (else the residual only)
  bool off_single = true;  // off-diagonal blocks in fp32 (FUN3D); fp64 otherwise
  // ScatterAtomic on CUDA: a block's local results are staged in shared memory, then written
  // out by all its threads together, consecutive threads to consecutive entries of a block
  // (the Zubair et al. scheme), so atomics and stores coalesce.
  bool staged = false;
  // Staged: every off-diagonal slot receives exactly one element's block (a mesh with no
  // repeated edges), so it is stored, not added: no atomics and no zeroing for Aoff.
  bool off_direct = false;
  // Staged: elements come sorted by vertex 0 (as edge lists sorted by (v0, v1) are), and the
  // contributions of each run of equal vertex 0 to that node's diagonal block and residual
  // row are summed in shared memory first: one atomic per run and entry instead of one per
  // element. Correct for any order; it only saves atomics where runs exist (measured slower
  // on the Roe FUN3D assembly: bench/RESULTS.md, fourth session).
  bool pre_reduce = false;
  // GatherByColumn staged (CUDA): a block owns the nodes [node_blocks[2b], node_blocks[2b + 1])
  // and runs their elements a tile at a time, thread t the t-th element of every side
  // (mesh::SideIncidence): the tile's local results are staged in shared memory, its
  // off-diagonal blocks written out coalesced (stored: each belongs to this block's columns;
  // added atomically only where a slot has several writers), and the residual rows and
  // diagonal blocks summed per node in shared memory and written once per node. No atomics on
  // a mesh whose off slots have one writer each, and bit-identical there across runs and tile
  // sizes (a node's sides keep running sums across tiles, so a hub node whose side spans
  // several tiles sums in the same order too).
  // store_rows: the block stores its residual rows and diagonal blocks instead of adding them
  // (the first term of a problem, whose node blocks cover every node: no zeroing needed).
  bool store_rows = false;
  // Staged GatherByColumn on sm_90 only: persistent blocks of a compute warpgroup and a
  // write-out warpgroup (setmaxnreg moves registers from the second to the first), staging
  // double-buffered in dynamic shared memory, so one tile's arithmetic runs under the previous
  // tile's write-out. Same tiles and sums as the staged gather: the same bits.
  bool warp_specialized = false;
  // Symbol suffix naming the strategy and its options.
  std::string suffix() const;
};

}  // namespace dualjit::jit
