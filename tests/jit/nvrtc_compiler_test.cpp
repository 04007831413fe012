#include "jit/nvrtc_compiler.h"

#include <doctest/doctest.h>
#include <nvrtc.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstring>
#include <string>

using namespace dualjit::jit;

namespace {

const char* kAxpy =
    R"(extern "C" __global__ void axpy(double a, const double* x, double* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
)";

bool is_elf(const std::vector<char>& image) {
  return image.size() > 4 && image[0] == 0x7f && image[1] == 'E' && image[2] == 'L' &&
         image[3] == 'F';
}

// Logs captured from NVRTC 13.0 (sm_80 with -maxrregcount=24, and a two-kernel sm_90 build).
const char* kSpillLog =
    "ptxas warning : For profile sm_80 adjusting per thread register count of 16 to lower bound "
    "of 24\n"
    "ptxas info    : Overriding maximum register limit 256 for 'heavy' with  24 of maxrregcount "
    "option\n"
    "ptxas info    : 0 bytes gmem, 256 bytes cmem[3]\n"
    "ptxas info    : Compiling entry function 'heavy' for 'sm_80'\n"
    "ptxas info    : Function properties for heavy\n"
    "ptxas         .     656 bytes stack frame, 616 bytes spill stores, 3968 bytes spill loads\n"
    "ptxas info    : Used 24 registers, used 0 barriers, 656 bytes cumulative stack size, 372 "
    "bytes cmem[0]\n"
    "ptxas info    : Compile time = 56.783 ms\n";

const char* kTwoKernelLog =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function 'k2' for 'sm_90'\n"
    "ptxas info    : Function properties for k2\n"
    "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 10 registers, used 1 barriers, 512 bytes smem\n"
    "ptxas info    : Compile time = 1.950 ms\n"
    "ptxas info    : Function properties for _Z6helperPd\n"
    "ptxas         .     8 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Compiling entry function 'axpy' for 'sm_90'\n"
    "ptxas info    : Function properties for axpy\n"
    "ptxas         .     512 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 32 registers, used 0 barriers, 512 bytes cumulative stack size\n"
    "ptxas info    : Compile time = 62.108 ms\n";

// One launch whose row-group chunk and out-of-line exp were compiled with it (ptxas holding
// it to 32 registers: the chunk spills).
const char* kChunkLog =
    "ptxas info    : Compiling entry function 'rows_k0_1' for 'sm_90'\n"
    "ptxas info    : Function properties for rows_k0_1\n"
    "ptxas         .     7360 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 32 registers, used 0 barriers, 7360 bytes cumulative stack size\n"
    "ptxas info    : Compile time = 380.214 ms\n"
    "ptxas info    : Function properties for _Z12rows_k0_1_c0PKdPd\n"
    "ptxas         .     0 bytes stack frame, 14712 bytes spill stores, 19680 bytes spill loads\n"
    "ptxas info    : Function properties for _ZN12_INTERNAL_6dj_expEd\n"
    "ptxas         .     0 bytes stack frame, 68 bytes spill stores, 68 bytes spill loads\n";

}  // namespace

TEST_CASE("nvrtc: compiles a kernel to CUBIN for sm_80 and sm_90 with a ptxas report") {
  for (const std::string arch : {"sm_80", "sm_90"}) {
    CAPTURE(arch);
    CompileOptions options;
    options.arch = arch;
    const CompiledImage image = nvrtc_compile("axpy", kAxpy, options);
    CHECK(image.kernel_name == "axpy");
    CHECK(image.arch == arch);
    CHECK(image.is_cubin);
    CHECK(is_elf(image.image));
    CHECK(image.ptxas.registers > 0);
    CHECK(image.ptxas.spill_store_bytes == 0);
    CHECK(image.ptxas.raw.find("axpy") != std::string::npos);
    CHECK(image.compile_seconds > 0);
    CHECK(image.log.find("Used") != std::string::npos);
  }
}

TEST_CASE("nvrtc: a syntax error throws CompileError showing the numbered source line") {
  const std::string source =
      "extern \"C\" __global__ void broken_kernel(float* y) {\n"
      "  int a = 1;\n"
      "  y[0] = a +;\n"
      "}\n";
  CompileOptions options;
  try {
    nvrtc_compile("broken_kernel", source, options);
    FAIL("expected CompileError");
  } catch (const CompileError& e) {
    const std::string msg = e.what();
    CHECK(e.kernel_name() == "broken_kernel");
    CHECK(msg.find("broken_kernel") != std::string::npos);
    CHECK(msg.find("error") != std::string::npos);
    CHECK(msg.find(">>     3 |   y[0] = a +;") != std::string::npos);
    CHECK(msg.find("      1 | extern") != std::string::npos);  // context above
    CHECK(!e.log().empty());
  }
}

TEST_CASE("nvrtc: unsupported sm falls back to PTX for the closest lower compute arch") {
  const auto archs = nvrtc_supported_archs();
  REQUIRE(!archs.empty());
  CHECK(std::is_sorted(archs.begin(), archs.end(), [](const auto& a, const auto& b) {
    return std::stoi(a.substr(3)) < std::stoi(b.substr(3));
  }));
  CHECK(std::find(archs.begin(), archs.end(), "sm_90") != archs.end());
  // sm_91 does not exist, so NVRTC cannot target it; sm_90 is the closest below.
  REQUIRE(std::find(archs.begin(), archs.end(), "sm_91") == archs.end());
  CompileOptions options;
  options.arch = "sm_91";
  const auto saved_level = spdlog::get_level();
  spdlog::set_level(spdlog::level::err);  // the fallback warning is expected here
  const CompiledImage image = nvrtc_compile("axpy", kAxpy, options);
  spdlog::set_level(saved_level);
  CHECK(image.arch == "compute_90");
  CHECK_FALSE(image.is_cubin);
  CHECK(image.ptxas.registers == -1);
  const std::string ptx(image.image.data());
  CHECK(ptx.find(".entry axpy") != std::string::npos);
  CHECK(ptx.find(".target sm_90") != std::string::npos);
}

TEST_CASE("nvrtc: options are validated and canonical text tracks every option") {
  CompileOptions a;
  CompileOptions b = a;
  CHECK(a.canonical() == b.canonical());
  b.opt_level = 1;
  CHECK(a.canonical() != b.canonical());
  b = a;
  b.fast_math = true;
  CHECK(a.canonical() != b.canonical());
  b = a;
  b.extra = {"-lineinfo"};
  CHECK(a.canonical() != b.canonical());
  CHECK(b.canonical().find("-lineinfo") != std::string::npos);
  b = a;
  b.arch = "sm_80";
  CHECK(a.canonical() != b.canonical());

  CompileOptions bad;
  bad.arch = "gfx90a";
  CHECK_THROWS_AS(nvrtc_compile("axpy", kAxpy, bad), std::invalid_argument);
  bad = {};
  bad.opt_level = 7;
  CHECK_THROWS_AS(nvrtc_compile("axpy", kAxpy, bad), std::invalid_argument);
  bad = {};
  bad.extra = {"--no-such-option"};
  CHECK_THROWS_AS(nvrtc_compile("axpy", kAxpy, bad), CompileError);
}

TEST_CASE("nvrtc: identity names the version and the loaded library") {
  int major = 0, minor = 0;
  REQUIRE(nvrtcVersion(&major, &minor) == NVRTC_SUCCESS);
  const std::string id = nvrtc_identity();
  CHECK(id.find(std::to_string(major) + "." + std::to_string(minor)) != std::string::npos);
  CHECK(id.find("libnvrtc") != std::string::npos);
  CHECK(id == nvrtc_identity());
}

TEST_CASE("nvrtc: ptxas report parsing") {
  const PtxasReport spill = parse_ptxas_report(kSpillLog, "heavy");
  CHECK(spill.registers == 24);
  CHECK(spill.stack_bytes == 656);
  CHECK(spill.spill_store_bytes == 616);
  CHECK(spill.spill_load_bytes == 3968);
  CHECK(spill.constant_bytes == 372);
  CHECK(spill.shared_bytes == 0);

  const PtxasReport k2 = parse_ptxas_report(kTwoKernelLog, "k2");
  CHECK(k2.registers == 10);
  CHECK(k2.shared_bytes == 512);
  CHECK(k2.stack_bytes == 0);
  CHECK(k2.raw.find("axpy") == std::string::npos);

  // The helper's stack frame must not be attributed to either kernel.
  const PtxasReport axpy = parse_ptxas_report(kTwoKernelLog, "axpy");
  CHECK(axpy.registers == 32);
  CHECK(axpy.stack_bytes == 512);
  CHECK(axpy.shared_bytes == 0);

  // A log of two kernels attributes no function's spills to either.
  CHECK(k2.function_spill_store_bytes == 0);
  CHECK(axpy.function_spill_store_bytes == 0);

  // A log of one kernel: its functions' spill stores, apart from the kernel's own.
  const PtxasReport rows = parse_ptxas_report(kChunkLog, "rows_k0_1");
  CHECK(rows.registers == 32);
  CHECK(rows.stack_bytes == 7360);
  CHECK(rows.spill_store_bytes == 0);
  CHECK(rows.function_spill_store_bytes == 14712 + 68);

  CHECK(parse_ptxas_report("", "axpy").registers == -1);
}
