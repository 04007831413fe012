#include "backends/cuda/driver.h"

#include <doctest/doctest.h>
#include <nvrtc.h>

#include <cmath>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "support/gpu.h"

using namespace dualjit::cuda;

namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The project's NVRTC wrapper lives in jit/; these tests compile with NVRTC directly so that
// they check the driver layer alone.
std::vector<char> nvrtc_cubin(const std::string& source, const std::string& name,
                              const std::string& arch) {
  nvrtcProgram program = nullptr;
  REQUIRE(nvrtcCreateProgram(&program, source.c_str(), (name + ".cu").c_str(), 0, nullptr,
                             nullptr) == NVRTC_SUCCESS);
  const std::string arch_option = "--gpu-architecture=" + arch;
  const char* options[] = {arch_option.c_str(), "--std=c++17"};
  nvrtcResult compiled = nvrtcCompileProgram(program, 2, options);
  size_t log_size = 0;
  nvrtcGetProgramLogSize(program, &log_size);
  std::string log(log_size, '\0');
  nvrtcGetProgramLog(program, log.data());
  INFO("NVRTC log for ", name, ":\n", log);
  REQUIRE(compiled == NVRTC_SUCCESS);
  size_t size = 0;
  REQUIRE(nvrtcGetCUBINSize(program, &size) == NVRTC_SUCCESS);
  std::vector<char> cubin(size);
  REQUIRE(nvrtcGetCUBIN(program, cubin.data()) == NVRTC_SUCCESS);
  nvrtcDestroyProgram(&program);
  return cubin;
}

const char* kTestKernels = R"(
extern "C" __global__ void axpy_sin(int n, double a, const double* x, const double* y,
                                    double* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * x[i] + sin(y[i]);
}

// Each block reverses its chunk of `per_block` values through dynamic shared memory.
extern "C" __global__ void reverse_chunks(const double* in, double* out, int per_block) {
  extern __shared__ double chunk[];
  const double* src = in + (size_t)blockIdx.x * per_block;
  double* dst = out + (size_t)blockIdx.x * per_block;
  for (int i = threadIdx.x; i < per_block; i += blockDim.x) chunk[i] = src[i];
  __syncthreads();
  for (int i = threadIdx.x; i < per_block; i += blockDim.x) dst[i] = chunk[per_block - 1 - i];
}
)";

std::vector<double> random_values(size_t n, unsigned seed, double lo, double hi) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

// Loads the test kernels once per process (a module per test would do, but costs compiles).
Module& test_module() {
  static Module module(
      nvrtc_cubin(kTestKernels, "driver_test_kernels", Context::primary().device().arch()),
      "driver_test_kernels");
  return module;
}

}  // namespace

// Every thread must see the same answer. They race for the lazy loader only where nothing asked
// before; here test::needs_gpu() has asked already, when the GPU cases were registered.
TEST_CASE("the driver loader is safe to call from several threads at once") {
  std::vector<std::thread> threads;
  std::vector<int> available(8, -1);
  std::vector<std::string> reasons(8);
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      available[t] = driver_available() ? 1 : 0;
      reasons[t] = driver_unavailable_reason();
    });
  for (auto& thread : threads) thread.join();
  for (int t = 1; t < 8; ++t) {
    CHECK(available[t] == available[0]);
    CHECK(reasons[t] == reasons[0]);
  }
  CHECK(available[0] == (reasons[0].empty() ? 1 : 0));
}

TEST_CASE("CudaError message names the operation and the error") {
  CudaError e(CUDA_ERROR_NO_DEVICE, "probing for a GPU");
  CHECK(e.code == CUDA_ERROR_NO_DEVICE);
  CHECK(contains(e.what(), "probing for a GPU: CUDA_ERROR_NO_DEVICE ("));
}

TEST_CASE("DeviceInfo::arch is sm_<major><minor>") {
  DeviceInfo info;
  info.cc_major = 9;
  info.cc_minor = 0;
  CHECK(info.arch() == "sm_90");
  info.cc_major = 12;
  info.cc_minor = 1;
  CHECK(info.arch() == "sm_121");
}

TEST_CASE("without a usable driver, everything reports it cleanly") {
  if (driver_available()) {
    MESSAGE("a GPU is present: checking the available path instead");
    CHECK(driver_unavailable_reason().empty());
    CHECK_FALSE(devices().empty());
    return;
  }
  CHECK_FALSE(driver_available());
  CHECK_FALSE(driver_available());  // asking twice is fine (loaded once)
  const std::string reason = driver_unavailable_reason();
  CHECK_FALSE(reason.empty());
  MESSAGE("no GPU here: ", reason);

  bool threw = false;
  try {
    Context::primary();
  } catch (const CudaError& e) {
    threw = true;
    CHECK(e.code != CUDA_SUCCESS);
    CHECK(contains(e.what(), "Context::primary(0)"));
    CHECK(contains(e.what(), "CUDA driver unavailable"));
    CHECK(contains(e.what(), reason));
  }
  CHECK(threw);
  CHECK_THROWS_AS(devices(), CudaError);
  CHECK_THROWS_AS(driver_version(), CudaError);
  CHECK_THROWS_AS(DeviceBuffer(64), CudaError);
  CHECK_THROWS_AS(Event(), CudaError);
  CHECK_THROWS_AS(Module(std::vector<char>{'x'}, "no_gpu_module"), CudaError);
  CHECK_THROWS_AS(check_last("after nothing"), CudaError);
  CHECK_THROWS_AS(select_device(0), CudaError);
  CHECK(selected_device() == 0);
}

TEST_SUITE("gpu") {
  TEST_CASE("devices and the primary context" * dualjit::test::needs_gpu()) {
    CHECK(driver_version() >= 11030);
    auto all = devices();
    REQUIRE_FALSE(all.empty());
    for (const auto& d : all) {
      MESSAGE(d.ordinal, ": ", d.name, " ", d.arch(), ", ", d.multiprocessors, " SMs, ",
              d.total_memory >> 20, " MiB, L2 ", d.l2_bytes >> 10, " KiB, opt-in shared ",
              d.max_shared_per_block_optin);
      CHECK_FALSE(d.name.empty());
      CHECK(d.cc_major >= 5);
      CHECK(d.multiprocessors > 0);
      CHECK(d.total_memory > 0);
      CHECK(d.l2_bytes > 0);
      CHECK(d.max_shared_per_block_optin >= 48 * 1024);
    }
    Context& ctx = Context::primary();
    CHECK(&ctx == &Context::primary(0));  // one object per device
    CHECK(ctx.device().ordinal == 0);
    CHECK(ctx.device().name == all[0].name);
    ctx.synchronize();
    CHECK_THROWS_AS(Context::primary(static_cast<int>(all.size())), CudaError);
    // A rank's own GPU: select_device moves primary() there; a device that is not present is
    // named and leaves the selection alone.
    const int last = static_cast<int>(all.size()) - 1;
    select_device(last);
    CHECK(selected_device() == last);
    CHECK(&Context::primary() == &Context::primary(last));
    const std::string named = "select_device(" + std::to_string(last + 1) + ")";
    CHECK_THROWS_WITH_AS(select_device(last + 1), doctest::Contains(named.c_str()), CudaError);
    CHECK(selected_device() == last);
    // Memory follows the selection: on this thread, which held device 0's context, and on a
    // thread that has no context yet (where it once fell back to device 0, so a rank on its
    // host's second GPU launched its modules there on memory of the first).
    const CUcontext own = Context::primary(last).handle();
    Context::primary(0);  // this thread now holds device 0's context
    select_device(last);
    CHECK(DeviceBuffer(64).context() == own);
    CUcontext on_fresh_thread = nullptr;
    std::thread([&] { on_fresh_thread = DeviceBuffer(64).context(); }).join();
    CHECK(on_fresh_thread == own);
    select_device(0);
    CHECK(DeviceBuffer(64).context() == Context::primary(0).handle());
    MESSAGE(all.size(), " device(s): a second one tells the selection's memory from device 0's");
  }

  TEST_CASE("device buffers round-trip and check their bounds" * dualjit::test::needs_gpu()) {
    auto values = random_values(1000, 7, -3.0, 3.0);
    DeviceBuffer buffer = DeviceBuffer::from(values);
    CHECK(buffer.bytes() == values.size() * sizeof(double));
    CHECK(buffer.get() != 0);
    CHECK(buffer.to_vector<double>() == values);

    std::vector<double> patch = {1.5, -2.5};
    buffer.upload(patch.data(), sizeof(double) * 2, sizeof(double) * 10);
    std::vector<double> back(2);
    buffer.download(back.data(), sizeof(double) * 2, sizeof(double) * 10);
    CHECK(back == patch);
    CHECK_THROWS_AS(buffer.upload(patch.data(), sizeof(double) * 2, buffer.bytes() - 8),
                    std::out_of_range);
    CHECK_THROWS_AS(buffer.download(back.data(), 16, buffer.bytes() + 8), std::out_of_range);

    buffer.fill_bytes(0xFF);
    int not_poisoned = 0;
    for (unsigned char byte : buffer.to_vector<unsigned char>()) not_poisoned += byte != 0xFF;
    CHECK(not_poisoned == 0);
    struct ThreeBytes {
      char c[3];
    };
    CHECK_THROWS_AS(buffer.to_vector<ThreeBytes>(), std::invalid_argument);  // 8000 % 3 != 0

    DeviceBuffer moved = std::move(buffer);
    CHECK(buffer.get() == 0);
    CHECK(buffer.bytes() == 0);
    CHECK(moved.bytes() == values.size() * sizeof(double));

    DeviceBuffer empty(0);
    CHECK(empty.get() == 0);
    CHECK(empty.to_vector<double>().empty());
  }

  TEST_CASE("an NVRTC kernel loads, launches and matches the host" * dualjit::test::needs_gpu()) {
    Module& module = test_module();
    CUfunction f = module.function("axpy_sin");
    auto attrs = attributes(f);
    MESSAGE("axpy_sin: ", attrs.registers, " registers, ", attrs.local_bytes, " local bytes");
    CHECK(attrs.registers > 0);
    CHECK(attrs.max_threads_per_block >= 256);

    const int n = (1 << 20) + 3;  // not a multiple of the block size
    const double a = 1.25;
    auto x = random_values(n, 1, -2.0, 2.0);
    auto y = random_values(n, 2, -10.0, 10.0);
    auto dx = DeviceBuffer::from(x);
    auto dy = DeviceBuffer::from(y);
    DeviceBuffer dout(n * sizeof(double));
    dout.fill_bytes(0xFF);  // NaN everywhere: an element the kernel misses cannot pass

    CUdeviceptr px = dx.get(), py = dy.get(), pout = dout.get();
    int count = n;
    double scale = a;
    void* args[] = {&count, &scale, &px, &py, &pout};
    const unsigned block = 256;
    const Dim3 grid{(n + block - 1) / block};
    launch(f, grid, Dim3{block}, 0, args);  // warm-up
    Event start, stop;
    start.record();
    launch(f, grid, Dim3{block}, 0, args);
    stop.record();
    check_last("axpy_sin");
    float ms = Event::elapsed_ms(start, stop);
    MESSAGE("axpy_sin over ", n, " elements: ", ms, " ms");
    CHECK(ms > 0.0f);
    CHECK(ms < 1000.0f);

    auto out = dout.to_vector<double>();
    int bad = 0;
    for (int i = 0; i < n; ++i) {
      double expected = a * x[i] + std::sin(y[i]);
      if (!(std::abs(out[i] - expected) <= 1e-14 * (1.0 + std::abs(expected)))) ++bad;
    }
    CHECK(bad == 0);
  }

  TEST_CASE("dynamic shared memory above 48 KiB needs set_max_dynamic_shared" *
            dualjit::test::needs_gpu()) {
    CUfunction f = test_module().function("reverse_chunks");
    const int per_block = 8192;  // 64 KiB of doubles
    const unsigned shared = per_block * sizeof(double);
    REQUIRE(Context::primary().device().max_shared_per_block_optin >= static_cast<int>(shared));
    const int blocks = 37;
    auto in = random_values(size_t{blocks} * per_block, 3, -1.0, 1.0);
    auto din = DeviceBuffer::from(in);
    DeviceBuffer dout(in.size() * sizeof(double));
    dout.fill_bytes(0xFF);
    CUdeviceptr pin = din.get(), pout = dout.get();
    int chunk = per_block;
    void* args[] = {&pin, &pout, &chunk};

    bool rejected = false;
    try {
      launch(f, Dim3{blocks}, Dim3{256}, shared, args);
    } catch (const CudaError& e) {
      rejected = true;
      CHECK(contains(e.what(), "launching kernel"));
      CHECK(contains(e.what(), "65536 bytes of dynamic shared memory"));
    }
    CHECK(rejected);

    set_max_dynamic_shared(f, shared);
    launch(f, Dim3{blocks}, Dim3{256}, shared, args);
    check_last("reverse_chunks");
    auto out = dout.to_vector<double>();
    int bad = 0;
    for (int b = 0; b < blocks; ++b)
      for (int i = 0; i < per_block; ++i)
        if (out[static_cast<size_t>(b) * per_block + i] !=
            in[static_cast<size_t>(b) * per_block + per_block - 1 - i])
          ++bad;
    CHECK(bad == 0);
  }

  TEST_CASE("module and launch errors name what failed" * dualjit::test::needs_gpu()) {
    Context::primary();
    bool threw = false;
    try {
      Module garbage(std::vector<char>{'n', 'o', 't', ' ', 'p', 't', 'x'}, "garbage_module");
    } catch (const CudaError& e) {
      threw = true;
      CHECK(contains(e.what(), "garbage_module"));
    }
    CHECK(threw);

    threw = false;
    try {
      test_module().function("no_such_kernel");
    } catch (const CudaError& e) {
      threw = true;
      CHECK(e.code == CUDA_ERROR_NOT_FOUND);
      CHECK(contains(e.what(), "no_such_kernel"));
      CHECK(contains(e.what(), "driver_test_kernels"));
    }
    CHECK(threw);

    // More threads per block than any GPU allows.
    CUfunction f = test_module().function("axpy_sin");
    int n = 0;
    double a = 0;
    CUdeviceptr null_ptr = 0;
    void* args[] = {&n, &a, &null_ptr, &null_ptr, &null_ptr};
    CHECK_THROWS_AS(launch(f, Dim3{1}, Dim3{4096}, 0, args), CudaError);
    check_last("after a rejected launch");  // a rejected launch leaves the context usable
  }
}
