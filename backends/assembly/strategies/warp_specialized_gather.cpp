// warp-specialized-gather: the staged gather (staged_gather.cpp) on sm_90 with persistent
// blocks of a compute warpgroup and a write-out warpgroup: setmaxnreg moves registers from the
// second to the first, staging is double-buffered in dynamic shared memory, so one tile's
// arithmetic runs under the previous tile's write-out. Same tiles and sums as the staged
// gather: the same bits.
#include <sstream>

#include "backends/assembly/problem.h"
#include "backends/assembly/strategies/gather_tile.h"
#include "backends/assembly/strategies/units.h"
#include "jit/driver_text.h"

namespace dualjit::assembly {
namespace {

using namespace emit;

// Warp-specialised gather: threads per warpgroup and the registers each warpgroup keeps (the
// two add up to twice the 128 that two blocks of 256 threads per SM get at launch).
constexpr int kWarpgroup = 128;
constexpr int kComputeRegisters = 216, kWriteOutRegisters = 40;

// A named barrier of both warpgroups, `op` (sync or arrive) on barrier first + (k & 1):
// immediate ids, so that ptxas reserves only the barriers used.
std::string pair_barrier(const std::string& op, int first) {
  const auto one = [&](int id) {
    return "asm volatile(\"bar." + op + " " + std::to_string(id) + ", " +
           std::to_string(2 * kWarpgroup) + ";\");";
  };
  return "if (k & 1) " + one(first + 1) + " else " + one(first);
}

// Two blocks per SM on an H100 (228 KiB of shared memory per SM, 1 KiB of it per block for the
// driver).
constexpr size_t kWarpSpecializedSharedMax = 112 * 1024;

// Two staging buffers, the sums, runs and slots.
size_t dynamic_shared_bytes(const jit::DriverSpec& s, const FusedSpec& a) {
  const GatherShared g = gather_shared(s, a);
  return 8 * size_t(2 * g.staging() + g.racc + g.dacc) + 4 * size_t(g.runs + g.slots);
}

// The kernel: persistent blocks of two warpgroups. The compute warpgroup takes the registers the
// element needs (setmaxnreg) and stages tile k into buffer k % 2 while the write-out warpgroup,
// with few registers, writes tile k - 1's off-diagonal blocks and sums its rows from the other
// buffer, so the element arithmetic of one tile runs under the memory traffic of the previous one.
// Named barriers: 1 + b "buffer b staged", 3 + b "buffer b free", 5 the write-out warpgroup alone.
// Same tiles, same order of every sum as staged_gather_entry: the same bits.
std::string warp_specialized_gather_entry(const jit::DriverSpec& s, const FusedSpec& a) {
  const GatherTile g(s, a);
  const int T = g.T, K = g.K, buf = g.mem.staging();
  const std::string values = std::to_string(g.mem.values);
  std::ostringstream os;
  os << "extern \"C\" __global__ void __launch_bounds__(" << 2 * kWarpgroup << ", 2) " << s.symbol
     << "(const " << s.args_type() << " a) {\n"
     << "  extern __shared__ double dj_shared[];  // 2 staging buffers, sums, runs, slots\n"
     << "  double* const dj_racc = dj_shared + " << 2 * buf << ";\n";
  if (a.jacobian) os << "  double* const dj_dacc = dj_shared + " << 2 * buf + g.mem.racc << ";\n";
  os << "  int* const dj_run = (int*)(dj_shared + " << 2 * buf + g.mem.racc + g.mem.dacc << ");\n";
  if (a.jacobian) os << "  int* const dj_slot = dj_run + " << g.mem.runs << ";\n";
  os << "  " << off_type(a) << "* off = (" << off_type(a) << "*)a.off;\n"
     << "  (void)off;\n"
     << "  const int t = threadIdx.x % " << kWarpgroup << ";\n"
     << "  long long k = 0;  // tiles so far\n"
     << "  if (threadIdx.x < " << kWarpgroup << ") {\n"
     << "    asm volatile(\"setmaxnreg.inc.sync.aligned.u32 " << kComputeRegisters << ";\\n\");\n"
     << "    for (long long nb = blockIdx.x; nb < a.n_node_blocks; nb += gridDim.x) {\n"
     << g.node_block("nb", "      ")
     << "      for (long long tile = 0; tile < n_tiles; ++tile, ++k) {\n"
     << g.tile_range("        ") << "        double* const dj_val = dj_shared + (k & 1) * " << buf
     << ";\n";
  if (a.jacobian) os << "        double* const dj_d1 = dj_val + " << values << ";\n";
  os << "        if (k >= 2) { " << pair_barrier("sync", 3) << " }  // buffer free\n"
     << "        for (int u = t; u < " << K * T << "; u += " << kWarpgroup << ") {\n"
     << "          const int lv = u / " << T << ", f = u - lv * " << T << ";\n";
  for (int lv = 0; lv < K; ++lv)
    os << "          if (lv == " << lv << " && f < here" << lv << ") " << g.run_side(lv, "f");
  os << "        }\n"
     << "        " << pair_barrier("arrive", 1) << "  // staged\n"
     << "      }\n"
     << "    }\n"
     << "    // The write-out warpgroup's last two releases.\n"
     << "    if (k >= 2) { " << pair_barrier("sync", 3) << " }\n"
     << "    if (k >= 1) { --k; " << pair_barrier("sync", 3) << " }\n"
     << "  } else {\n"
     << "    asm volatile(\"setmaxnreg.dec.sync.aligned.u32 " << kWriteOutRegisters << ";\\n\");\n"
     << "    for (long long nb = blockIdx.x; nb < a.n_node_blocks; nb += gridDim.x) {\n"
     << g.node_block("nb", "      ") << "      asm volatile(\"bar.sync 5, " << kWarpgroup
     << ";\");  // the last rows are stored\n"
     << g.zero_sums("t", kWarpgroup, "      ")
     << "      for (long long tile = 0; tile < n_tiles; ++tile, ++k) {\n"
     << g.tile_range("        ") << "        const double* const dj_val = dj_shared + (k & 1) * "
     << buf << ";\n";
  if (a.jacobian) os << "        const double* const dj_d1 = dj_val + " << values << ";\n";
  os << "        asm volatile(\"bar.sync 5, " << kWarpgroup
     << ";\");  // the last tile's runs and slots are read\n"
     << g.runs_and_slots("t", kWarpgroup, "        ") << "        " << pair_barrier("sync", 1)
     << "  // staged\n"
     << g.write_out("t", kWarpgroup, "        ") << g.reduce("t", kWarpgroup, "        ")
     << "        " << pair_barrier("arrive", 3) << "  // buffer free\n"
     << "      }\n"
     << "      asm volatile(\"bar.sync 5, " << kWarpgroup << ";\");  // every run is summed\n"
     << g.store_rows("t", kWarpgroup, "      ") << "    }\n"
     << "  }\n"
     << "}\n";
  return os.str();
}

class WarpSpecializedGather : public TiledGatherStrategy {
 public:
  using TiledGatherStrategy::TiledGatherStrategy;
  std::string_view name() const override { return "warp-specialized-gather"; }

  std::string cuda_entry(const jit::DriverSpec& s, const jit::DerivativePlan& plan) const override {
    return side_function(s, plan, spec()) + warp_specialized_gather_entry(s, spec());
  }
  // Persistent: two blocks of two warpgroups per SM walk the node blocks.
  jit::LaunchPolicy launch(const jit::DriverSpec& s) const override {
    return {"n_node_blocks", 1, 2 * kWarpgroup, dynamic_shared_bytes(s, spec()), 2};
  }
  // setmaxnreg exists on sm_90a (the arch-specific sm_90).
  jit::CompileFlags compile_flags() const override { return {false, "sm_90a"}; }

 protected:
  std::string letters() const override { return tile_letters() + "w"; }
  void check_strategy(const jit::DriverSpec& s, const jit::DerivativePlan& plan,
                      const std::string& kernel) const override {
    check_tile(s, plan, kernel);
    if (dynamic_shared_bytes(s, spec()) > kWarpSpecializedSharedMax) {
      fail(kernel,
           "staging " + std::to_string(s.layout.elements_per_block) +
               " elements per side twice needs " + std::to_string(dynamic_shared_bytes(s, spec())) +
               " bytes of shared memory, over " + std::to_string(kWarpSpecializedSharedMax) +
               ": use fewer elements per block");
    }
  }
};

}  // namespace

std::shared_ptr<const FusedStrategy> units::warp_specialized_gather(FusedSpec spec) {
  return std::make_shared<const WarpSpecializedGather>(std::move(spec));
}

}  // namespace dualjit::assembly
