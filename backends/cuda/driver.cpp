#include "backends/cuda/driver.h"

#include <cudaTypedefs.h>
#include <dlfcn.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <string_view>
#include <utility>

#include "jit/nvrtc_compiler.h"

namespace dualjit::cuda {
namespace {

// The entry points we use, each typed by the cudaTypedefs.h PFN of one explicit ABI version and
// requested at exactly that version. The cuda.h declarations are not a safe source of types:
// cuCtxSynchronize is declared (void), yet asking cuGetProcAddress for it at CUDA_VERSION 13000
// returns cuCtxSynchronize_v2(CUcontext).
struct Api {
  PFN_cuInit_v2000 init = nullptr;
  PFN_cuDriverGetVersion_v2020 driver_get_version = nullptr;
  PFN_cuDeviceGetCount_v2000 device_get_count = nullptr;
  PFN_cuDeviceGet_v2000 device_get = nullptr;
  PFN_cuDeviceGetName_v2000 device_get_name = nullptr;
  PFN_cuDeviceGetAttribute_v2000 device_get_attribute = nullptr;
  PFN_cuDeviceTotalMem_v3020 device_total_mem = nullptr;
  PFN_cuDevicePrimaryCtxRetain_v7000 primary_ctx_retain = nullptr;
  PFN_cuCtxSetCurrent_v4000 ctx_set_current = nullptr;
  PFN_cuCtxGetCurrent_v4000 ctx_get_current = nullptr;
  PFN_cuCtxPushCurrent_v4000 ctx_push_current = nullptr;
  PFN_cuCtxPopCurrent_v4000 ctx_pop_current = nullptr;
  PFN_cuCtxSynchronize_v2000 ctx_synchronize = nullptr;
  PFN_cuModuleLoadDataEx_v2010 module_load_data_ex = nullptr;
  PFN_cuModuleUnload_v2000 module_unload = nullptr;
  PFN_cuModuleGetFunction_v2000 module_get_function = nullptr;
  PFN_cuFuncGetAttribute_v2020 func_get_attribute = nullptr;
  PFN_cuFuncSetAttribute_v9000 func_set_attribute = nullptr;
  PFN_cuFuncGetName_v12030 func_get_name = nullptr;  // optional (driver >= 12.3)
  PFN_cuMemAlloc_v3020 mem_alloc = nullptr;
  PFN_cuMemFree_v3020 mem_free = nullptr;
  PFN_cuMemcpyHtoD_v3020 memcpy_htod = nullptr;
  PFN_cuMemcpyDtoH_v3020 memcpy_dtoh = nullptr;
  PFN_cuMemcpyDtoD_v3020 memcpy_dtod = nullptr;
  PFN_cuMemsetD8_v3020 memset_d8 = nullptr;
  PFN_cuMemsetD8Async_v3020 memset_d8_async = nullptr;
  PFN_cuEventCreate_v2000 event_create = nullptr;
  PFN_cuEventRecord_v2000 event_record = nullptr;
  PFN_cuEventSynchronize_v2000 event_synchronize = nullptr;
  PFN_cuEventElapsedTime_v12080 event_elapsed_time = nullptr;
  PFN_cuEventDestroy_v4000 event_destroy = nullptr;
  PFN_cuStreamCreate_v2000 stream_create = nullptr;
  PFN_cuStreamSynchronize_v2000 stream_synchronize = nullptr;
  PFN_cuStreamWaitEvent_v3020 stream_wait_event = nullptr;
  PFN_cuStreamDestroy_v4000 stream_destroy = nullptr;
  PFN_cuLaunchKernel_v4000 launch_kernel = nullptr;
};

// cuGetProcAddress as exported by libcuda: "cuGetProcAddress_v2" (drivers >= 12.0, with a
// status out-parameter) or the original 4-argument "cuGetProcAddress" (11.3 to 11.8).
using GetProcAddressV2 = CUresult (*)(const char*, void**, int, cuuint64_t,
                                      CUdriverProcAddressQueryResult*);
using GetProcAddressV1 = CUresult (*)(const char*, void**, int, cuuint64_t);

struct Loader {
  void* library = nullptr;
  Api api;
  bool available = false;
  CUresult code = CUDA_ERROR_NOT_INITIALIZED;
  std::string reason = "CUDA driver not loaded yet";
  int version = 0;
  std::vector<DeviceInfo> devices;
};

// Read by CudaError, which can be built while the loader is still inside call_once; kept apart
// so that naming an error never re-enters the loader.
std::atomic<PFN_cuGetErrorName_v6000> g_error_name{nullptr};
std::atomic<PFN_cuGetErrorString_v6000> g_error_string{nullptr};

// Names for codes raised when no real driver is there to name them.
std::string fallback_error_text(CUresult code) {
  switch (code) {
    case CUDA_ERROR_NO_DEVICE:
      return "CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)";
    case CUDA_ERROR_NOT_FOUND:
      return "CUDA_ERROR_NOT_FOUND (named symbol not found)";
    case CUDA_ERROR_STUB_LIBRARY:  // the stub cannot name its own errors
      return "CUDA_ERROR_STUB_LIBRARY (CUDA driver is a stub library)";
    case CUDA_ERROR_NOT_INITIALIZED:
      return "CUDA_ERROR_NOT_INITIALIZED (initialization error)";
    default:
      return "CUresult " + std::to_string(static_cast<int>(code));
  }
}

std::string error_text(CUresult code) {
  auto name_fn = g_error_name.load();
  auto string_fn = g_error_string.load();
  const char* name = nullptr;
  const char* text = nullptr;
  if (!name_fn || name_fn(code, &name) != CUDA_SUCCESS || !name) return fallback_error_text(code);
  if (!string_fn || string_fn(code, &text) != CUDA_SUCCESS || !text) text = "no description";
  return std::string(name) + " (" + text + ")";
}

class Resolver {
 public:
  explicit Resolver(void* library) : library_(library) {
    v2_ = reinterpret_cast<GetProcAddressV2>(dlsym(library, "cuGetProcAddress_v2"));
    if (!v2_) v1_ = reinterpret_cast<GetProcAddressV1>(dlsym(library, "cuGetProcAddress"));
  }

  // Asks cuGetProcAddress for `base` at the ABI version `version` that `Fn` was typed for (the
  // driver returns the newest implementation not newer than that), with the legacy default
  // stream, as we do not build for per-thread default streams. Falls back to dlsym of the exact
  // exported names of that version.
  template <class Fn>
  bool resolve(Fn& slot, const char* base, int version, std::initializer_list<const char*> exact) {
    void* p = nullptr;
    if (v2_) {
      CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
      if (v2_(base, &p, version, CU_GET_PROC_ADDRESS_LEGACY_STREAM, &status) != CUDA_SUCCESS ||
          status != CU_GET_PROC_ADDRESS_SUCCESS)
        p = nullptr;
    } else if (v1_) {
      if (v1_(base, &p, version, CU_GET_PROC_ADDRESS_LEGACY_STREAM) != CUDA_SUCCESS) p = nullptr;
    }
    for (auto it = exact.begin(); !p && it != exact.end(); ++it) p = dlsym(library_, *it);
    slot = reinterpret_cast<Fn>(p);
    return p != nullptr;
  }

 private:
  void* library_;
  GetProcAddressV2 v2_ = nullptr;
  GetProcAddressV1 v1_ = nullptr;
};

// Resolves every entry point; returns the first required one that is missing, or "".
std::string resolve_all(void* library, Api& a) {
  Resolver r(library);
  PFN_cuGetErrorName_v6000 error_name = nullptr;
  PFN_cuGetErrorString_v6000 error_string = nullptr;
  std::string missing;
  auto need = [&](auto& slot, const char* base, int version,
                  std::initializer_list<const char*> exact) {
    if (!r.resolve(slot, base, version, exact) && missing.empty()) missing = base;
  };
  need(error_name, "cuGetErrorName", 6000, {"cuGetErrorName"});
  need(error_string, "cuGetErrorString", 6000, {"cuGetErrorString"});
  g_error_name.store(error_name);
  g_error_string.store(error_string);
  need(a.init, "cuInit", 2000, {"cuInit"});
  need(a.driver_get_version, "cuDriverGetVersion", 2020, {"cuDriverGetVersion"});
  need(a.device_get_count, "cuDeviceGetCount", 2000, {"cuDeviceGetCount"});
  need(a.device_get, "cuDeviceGet", 2000, {"cuDeviceGet"});
  need(a.device_get_name, "cuDeviceGetName", 2000, {"cuDeviceGetName"});
  need(a.device_get_attribute, "cuDeviceGetAttribute", 2000, {"cuDeviceGetAttribute"});
  need(a.device_total_mem, "cuDeviceTotalMem", 3020, {"cuDeviceTotalMem_v2"});
  need(a.primary_ctx_retain, "cuDevicePrimaryCtxRetain", 7000, {"cuDevicePrimaryCtxRetain"});
  need(a.ctx_set_current, "cuCtxSetCurrent", 4000, {"cuCtxSetCurrent"});
  need(a.ctx_get_current, "cuCtxGetCurrent", 4000, {"cuCtxGetCurrent"});
  need(a.ctx_push_current, "cuCtxPushCurrent", 4000, {"cuCtxPushCurrent_v2"});
  need(a.ctx_pop_current, "cuCtxPopCurrent", 4000, {"cuCtxPopCurrent_v2"});
  need(a.ctx_synchronize, "cuCtxSynchronize", 2000, {"cuCtxSynchronize"});
  need(a.module_load_data_ex, "cuModuleLoadDataEx", 2010, {"cuModuleLoadDataEx"});
  need(a.module_unload, "cuModuleUnload", 2000, {"cuModuleUnload"});
  need(a.module_get_function, "cuModuleGetFunction", 2000, {"cuModuleGetFunction"});
  need(a.func_get_attribute, "cuFuncGetAttribute", 2020, {"cuFuncGetAttribute"});
  need(a.func_set_attribute, "cuFuncSetAttribute", 9000, {"cuFuncSetAttribute"});
  r.resolve(a.func_get_name, "cuFuncGetName", 12030, {"cuFuncGetName"});  // only for messages
  need(a.mem_alloc, "cuMemAlloc", 3020, {"cuMemAlloc_v2"});
  need(a.mem_free, "cuMemFree", 3020, {"cuMemFree_v2"});
  need(a.memcpy_htod, "cuMemcpyHtoD", 3020, {"cuMemcpyHtoD_v2"});
  need(a.memcpy_dtoh, "cuMemcpyDtoH", 3020, {"cuMemcpyDtoH_v2"});
  need(a.memcpy_dtod, "cuMemcpyDtoD", 3020, {"cuMemcpyDtoD_v2"});
  need(a.memset_d8, "cuMemsetD8", 3020, {"cuMemsetD8_v2"});
  need(a.memset_d8_async, "cuMemsetD8Async", 3020, {"cuMemsetD8Async"});
  need(a.event_create, "cuEventCreate", 2000, {"cuEventCreate"});
  need(a.event_record, "cuEventRecord", 2000, {"cuEventRecord"});
  need(a.event_synchronize, "cuEventSynchronize", 2000, {"cuEventSynchronize"});
  // _v2 (12.8+) and the original share a signature; either measures the same interval.
  need(a.event_elapsed_time, "cuEventElapsedTime", 12080,
       {"cuEventElapsedTime_v2", "cuEventElapsedTime"});
  need(a.event_destroy, "cuEventDestroy", 4000, {"cuEventDestroy_v2"});
  need(a.stream_create, "cuStreamCreate", 2000, {"cuStreamCreate"});
  need(a.stream_synchronize, "cuStreamSynchronize", 2000, {"cuStreamSynchronize"});
  need(a.stream_wait_event, "cuStreamWaitEvent", 3020, {"cuStreamWaitEvent"});
  need(a.stream_destroy, "cuStreamDestroy", 4000, {"cuStreamDestroy_v2"});
  need(a.launch_kernel, "cuLaunchKernel", 4000, {"cuLaunchKernel"});
  return missing;
}

DeviceInfo query_device(const Api& a, int ordinal) {
  auto check = [&](CUresult r, const char* what) {
    if (r != CUDA_SUCCESS)
      throw CudaError(r, "querying CUDA device " + std::to_string(ordinal) + ": " + what);
  };
  CUdevice dev = 0;
  check(a.device_get(&dev, ordinal), "cuDeviceGet");
  DeviceInfo info;
  info.ordinal = ordinal;
  char name[256] = {};
  check(a.device_get_name(name, sizeof(name) - 1, dev), "cuDeviceGetName");
  info.name = name;
  check(a.device_total_mem(&info.total_memory, dev), "cuDeviceTotalMem");
  auto attr = [&](CUdevice_attribute which, int& out, const char* label) {
    check(a.device_get_attribute(&out, which, dev), label);
  };
  attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, info.cc_major, "compute capability");
  attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, info.cc_minor, "compute capability");
  attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, info.multiprocessors, "multiprocessor count");
  attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, info.l2_bytes, "L2 size");
  attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, info.max_shared_per_block_optin,
       "opt-in shared memory per block");
  attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, info.shared_per_multiprocessor,
       "shared memory per multiprocessor");
  return info;
}

void load(Loader& l) {
  auto fail = [&](CUresult code, std::string reason) {
    l.code = code;
    l.reason = std::move(reason);
    spdlog::debug("dualjit: CUDA driver unavailable: {}", l.reason);
  };
  // RTLD_LOCAL: the driver's symbols must not satisfy anyone else's undefined references.
  l.library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!l.library) {
    const char* err = dlerror();
    return fail(CUDA_ERROR_NO_DEVICE, std::string("cannot load libcuda.so.1 (") +
                                          (err ? err : "unknown dlopen error") +
                                          "); is the NVIDIA driver installed?");
  }
  if (std::string missing = resolve_all(l.library, l.api); !missing.empty())
    return fail(CUDA_ERROR_NOT_FOUND,
                "libcuda.so.1 has no entry point " + missing + " (driver older than required?)");
  const Api& a = l.api;
  jit::disable_nvrtc_cache();  // before cuInit, which reads it (see jit/nvrtc_compiler.h)
  if (CUresult r = a.init(0); r != CUDA_SUCCESS) return fail(r, "cuInit failed: " + error_text(r));
  if (CUresult r = a.driver_get_version(&l.version); r != CUDA_SUCCESS)
    return fail(r, "cuDriverGetVersion failed: " + error_text(r));
  int count = 0;
  if (CUresult r = a.device_get_count(&count); r != CUDA_SUCCESS)
    return fail(r, "cuDeviceGetCount failed: " + error_text(r));
  if (count < 1) return fail(CUDA_ERROR_NO_DEVICE, "the CUDA driver reports no devices");
  try {
    for (int i = 0; i < count; ++i) l.devices.push_back(query_device(a, i));
  } catch (const CudaError& e) {
    return fail(e.code, e.what());
  }
  l.available = true;
  l.code = CUDA_SUCCESS;
  l.reason.clear();
  spdlog::debug("dualjit: CUDA driver {}, {} device(s), device 0: {} ({})", l.version, count,
                l.devices[0].name, l.devices[0].arch());
}

Loader& loader() {
  static Loader l;
  static std::once_flag once;
  std::call_once(once, [] { load(l); });
  return l;
}

// The API, or a CudaError saying why there is none; `what` names the caller's operation.
const Api& api(const std::string& what) {
  const Loader& l = loader();
  if (!l.available) throw CudaError(l.code, what + ": CUDA driver unavailable: " + l.reason);
  return l.api;
}

void check(CUresult r, const std::string& what) {
  if (r != CUDA_SUCCESS) throw CudaError(r, what);
}

std::string kernel_name(const Api& a, CUfunction f) {
  const char* name = nullptr;
  if (a.func_get_name && a.func_get_name(&name, f) == CUDA_SUCCESS && name) return name;
  return "<unnamed kernel>";
}

// The calling thread's context, making the selected device's primary context current if it has
// none: a rank's thread that has not touched CUDA yet must allocate on the rank's GPU, where its
// modules are loaded, not on device 0.
CUcontext current_or_primary(const Api& a) {
  CUcontext ctx = nullptr;
  check(a.ctx_get_current(&ctx), "cuCtxGetCurrent");
  return ctx ? ctx : Context::primary().handle();
}

// Makes `ctx` current for a scope when it is not already (objects may be used or destroyed on
// another thread than the one that created them).
class ContextScope {
 public:
  ContextScope(const Api& a, CUcontext ctx) : a_(a) {
    CUcontext current = nullptr;
    if (ctx && a.ctx_get_current(&current) == CUDA_SUCCESS && current != ctx &&
        a.ctx_push_current(ctx) == CUDA_SUCCESS)
      pushed_ = true;
  }
  ~ContextScope() {
    CUcontext popped = nullptr;
    if (pushed_) a_.ctx_pop_current(&popped);
  }
  ContextScope(const ContextScope&) = delete;
  ContextScope& operator=(const ContextScope&) = delete;

 private:
  const Api& a_;
  bool pushed_ = false;
};

// Destructors cannot throw; a failure there is logged. At process exit the driver may already
// be shut down, which is not worth a message.
void report_in_destructor(CUresult r, const char* what) {
  if (r != CUDA_SUCCESS && r != CUDA_ERROR_DEINITIALIZED)
    spdlog::warn("dualjit: {} failed: {}", what, error_text(r));
}

bool looks_binary(const std::vector<char>& image) {
  auto starts = [&](std::string_view magic) {
    return image.size() >= magic.size() &&
           std::memcmp(image.data(), magic.data(), magic.size()) == 0;
  };
  return starts(
             "\x7f"
             "ELF") ||
         starts("\x50\xed\x55\xba");  // fatbin
}

}  // namespace

CudaError::CudaError(CUresult code, const std::string& what)
    : std::runtime_error(what + ": " + error_text(code)), code(code) {}

bool driver_available() {
  try {
    return loader().available;
  } catch (...) {
    return false;  // e.g. bad_alloc inside the loader; "never throws" is the contract
  }
}

std::string driver_unavailable_reason() {
  try {
    const Loader& l = loader();
    return l.available ? std::string() : l.reason;
  } catch (const std::exception& e) {
    return e.what();
  }
}

int driver_version() {
  api("driver_version()");
  return loader().version;
}

std::string DeviceInfo::arch() const {
  return "sm_" + std::to_string(cc_major) + std::to_string(cc_minor);
}

std::vector<DeviceInfo> devices() {
  api("devices()");
  return loader().devices;
}

namespace {
std::atomic<int> selected{0};
}  // namespace

void select_device(int ordinal) {
  api("select_device(" + std::to_string(ordinal) + ")");
  const auto& all = loader().devices;
  if (ordinal < 0 || ordinal >= static_cast<int>(all.size()))
    throw CudaError(CUDA_ERROR_INVALID_DEVICE, "select_device(" + std::to_string(ordinal) +
                                                   "): no such device (" +
                                                   std::to_string(all.size()) + " present)");
  selected.store(ordinal);
  // The calling thread may hold another device's context from earlier calls: buffers it
  // allocates from now on belong with the modules that primary() loads.
  Context::primary(ordinal);
}

int selected_device() {
  return selected.load();
}

Context& Context::primary(int ordinal) {
  const std::string what = "Context::primary(" + std::to_string(ordinal) + ")";
  const Api& a = api(what);
  const auto& all = loader().devices;
  if (ordinal < 0 || ordinal >= static_cast<int>(all.size()))
    throw CudaError(CUDA_ERROR_INVALID_DEVICE,
                    what + ": no such device (" + std::to_string(all.size()) + " present)");
  // Retained once and never released: the primary context lives as long as the process, and
  // releasing during static destruction races with the driver's own teardown.
  static std::mutex mutex;
  static std::map<int, std::unique_ptr<Context>> contexts;
  Context* context = nullptr;
  {
    std::lock_guard lock(mutex);
    auto& slot = contexts[ordinal];
    if (!slot) {
      CUdevice dev = 0;
      check(a.device_get(&dev, ordinal), what + ": cuDeviceGet");
      CUcontext ctx = nullptr;
      check(a.primary_ctx_retain(&ctx, dev), what + ": retaining the primary context");
      slot.reset(new Context(ctx, all[ordinal]));
      spdlog::debug("dualjit: retained primary context of device {} ({})", ordinal,
                    all[ordinal].name);
    }
    context = slot.get();
  }
  check(a.ctx_set_current(context->ctx_), what + ": making the primary context current");
  return *context;
}

void Context::synchronize() {
  const Api& a = api("Context::synchronize");
  check(a.ctx_set_current(ctx_), "Context::synchronize: cuCtxSetCurrent");
  check(a.ctx_synchronize(),
        "synchronizing the context of device " + std::to_string(info_.ordinal));
}

Module::Module(const std::vector<char>& image, const std::string& name_for_errors)
    : name_(name_for_errors) {
  const std::string what = "loading CUDA module '" + name_ + "'";
  const Api& a = api(what);
  if (image.empty()) throw std::invalid_argument(what + ": the image is empty");
  ctx_ = current_or_primary(a);
  ContextScope scope(a, ctx_);
  // PTX is read as a C string: make sure a terminator follows it.
  std::vector<char> terminated;
  const void* data = image.data();
  if (!looks_binary(image) && image.back() != '\0') {
    terminated.reserve(image.size() + 1);
    terminated.assign(image.begin(), image.end());
    terminated.push_back('\0');
    data = terminated.data();
  }
  std::vector<char> error_log(16 * 1024, '\0'), info_log(16 * 1024, '\0');
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {error_log.data(), reinterpret_cast<void*>(uintptr_t{error_log.size() - 1}),
                    info_log.data(), reinterpret_cast<void*>(uintptr_t{info_log.size() - 1})};
  CUresult r = a.module_load_data_ex(&module_, data, 4, options, values);
  std::string error_text_log(error_log.data()), info_text(info_log.data());
  if (r != CUDA_SUCCESS) {
    module_ = nullptr;
    throw CudaError(r,
                    what + (error_text_log.empty() ? std::string()
                                                   : " (JIT error log: " + error_text_log + ")"));
  }
  spdlog::debug("dualjit: loaded CUDA module '{}' ({} bytes){}{}", name_, image.size(),
                info_text.empty() ? "" : ": ", info_text);
}

Module::~Module() {
  reset();
}

Module::Module(Module&& other) noexcept
    : module_(std::exchange(other.module_, nullptr)),
      ctx_(std::exchange(other.ctx_, nullptr)),
      name_(std::move(other.name_)) {}

Module& Module::operator=(Module&& other) noexcept {
  if (this != &other) {
    reset();
    module_ = std::exchange(other.module_, nullptr);
    ctx_ = std::exchange(other.ctx_, nullptr);
    name_ = std::move(other.name_);
  }
  return *this;
}

void Module::reset() noexcept {
  if (!module_) return;
  const Api& a = loader().api;  // a module exists, so the driver was loaded
  ContextScope scope(a, ctx_);
  report_in_destructor(a.module_unload(module_), "cuModuleUnload");
  module_ = nullptr;
}

CUfunction Module::function(const std::string& name) const {
  const std::string what = "looking up kernel '" + name + "' in CUDA module '" + name_ + "'";
  const Api& a = api(what);
  if (!module_) throw std::logic_error(what + ": the module was moved from");
  ContextScope scope(a, ctx_);
  CUfunction f = nullptr;
  check(a.module_get_function(&f, module_, name.c_str()), what);
  return f;
}

FunctionAttributes attributes(CUfunction f) {
  const Api& a = api("reading kernel attributes");
  auto get = [&](CUfunction_attribute which, int& out) {
    if (CUresult r = a.func_get_attribute(&out, which, f); r != CUDA_SUCCESS)
      throw CudaError(r, "reading attributes of kernel '" + kernel_name(a, f) + "'");
  };
  FunctionAttributes attrs;
  get(CU_FUNC_ATTRIBUTE_NUM_REGS, attrs.registers);
  get(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, attrs.local_bytes);
  get(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, attrs.shared_bytes);
  get(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, attrs.max_threads_per_block);
  return attrs;
}

void set_max_dynamic_shared(CUfunction f, int bytes) {
  const Api& a = api("setting a kernel's dynamic shared memory");
  if (CUresult r = a.func_set_attribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes);
      r != CUDA_SUCCESS)
    throw CudaError(r, "allowing " + std::to_string(bytes) +
                           " bytes of dynamic shared memory for kernel '" + kernel_name(a, f) +
                           "'");
}

void prefer_shared_memory(CUfunction f) {
  const Api& a = api("preferring shared memory for a kernel");
  if (CUresult r = a.func_set_attribute(f, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
                                        CU_SHAREDMEM_CARVEOUT_MAX_SHARED);
      r != CUDA_SUCCESS)
    throw CudaError(r, "preferring shared memory for kernel '" + kernel_name(a, f) + "'");
}

DeviceBuffer::DeviceBuffer(size_t bytes) : bytes_(bytes) {
  const std::string what = "allocating " + std::to_string(bytes) + " bytes of device memory";
  const Api& a = api(what);
  ctx_ = current_or_primary(a);
  if (bytes == 0) return;  // cuMemAlloc rejects 0; an empty buffer is still a valid object
  ContextScope scope(a, ctx_);
  check(a.mem_alloc(&ptr_, bytes), what);
}

DeviceBuffer::~DeviceBuffer() {
  reset();
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : ptr_(std::exchange(other.ptr_, 0)),
      bytes_(std::exchange(other.bytes_, 0)),
      ctx_(std::exchange(other.ctx_, nullptr)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    reset();
    ptr_ = std::exchange(other.ptr_, 0);
    bytes_ = std::exchange(other.bytes_, 0);
    ctx_ = std::exchange(other.ctx_, nullptr);
  }
  return *this;
}

void DeviceBuffer::reset() noexcept {
  if (ptr_) {
    const Api& a = loader().api;
    ContextScope scope(a, ctx_);
    report_in_destructor(a.mem_free(ptr_), "cuMemFree");
  }
  ptr_ = 0;
  bytes_ = 0;
}

namespace {
void check_range(const char* op, size_t offset, size_t bytes, size_t size) {
  if (offset > size || bytes > size - offset)
    throw std::out_of_range(std::string("DeviceBuffer::") + op + ": " + std::to_string(bytes) +
                            " bytes at offset " + std::to_string(offset) +
                            " exceed the buffer of " + std::to_string(size) + " bytes");
}
}  // namespace

void DeviceBuffer::upload(const void* src, size_t bytes, size_t offset) {
  check_range("upload", offset, bytes, bytes_);
  if (bytes == 0) return;
  const Api& a = api("DeviceBuffer::upload");
  ContextScope scope(a, ctx_);
  check(a.memcpy_htod(ptr_ + offset, src, bytes), "DeviceBuffer::upload of " +
                                                      std::to_string(bytes) + " bytes at offset " +
                                                      std::to_string(offset));
}

void DeviceBuffer::download(void* dst, size_t bytes, size_t offset) const {
  check_range("download", offset, bytes, bytes_);
  if (bytes == 0) return;
  const Api& a = api("DeviceBuffer::download");
  ContextScope scope(a, ctx_);
  check(a.memcpy_dtoh(dst, ptr_ + offset, bytes), "DeviceBuffer::download of " +
                                                      std::to_string(bytes) + " bytes at offset " +
                                                      std::to_string(offset));
}

void DeviceBuffer::copy_from(const DeviceBuffer& src, size_t bytes) {
  check_range("copy_from", 0, bytes, std::min(bytes_, src.bytes_));
  if (bytes == 0) return;
  const Api& a = api("DeviceBuffer::copy_from");
  ContextScope scope(a, ctx_);
  check(a.memcpy_dtod(ptr_, src.ptr_, bytes),
        "DeviceBuffer::copy_from of " + std::to_string(bytes) + " bytes");
}

void DeviceBuffer::fill_bytes(unsigned char value) {
  if (bytes_ == 0) return;
  const Api& a = api("DeviceBuffer::fill_bytes");
  ContextScope scope(a, ctx_);
  check(a.memset_d8(ptr_, value, bytes_),
        "DeviceBuffer::fill_bytes over " + std::to_string(bytes_) + " bytes");
}

void DeviceBuffer::fill_bytes_async(unsigned char value, CUstream stream) {
  fill_bytes_async(value, stream, bytes_);
}

void DeviceBuffer::fill_bytes_async(unsigned char value, CUstream stream, size_t bytes) {
  if (bytes > bytes_)
    throw std::out_of_range("DeviceBuffer::fill_bytes_async: " + std::to_string(bytes) +
                            " bytes of a buffer of " + std::to_string(bytes_));
  if (bytes == 0) return;
  const Api& a = api("DeviceBuffer::fill_bytes_async");
  ContextScope scope(a, ctx_);
  check(a.memset_d8_async(ptr_, value, bytes, stream),
        "DeviceBuffer::fill_bytes_async over " + std::to_string(bytes) + " bytes");
}

void DeviceBuffer::check_multiple(size_t element_size) const {
  if (bytes_ % element_size != 0)
    throw std::invalid_argument("DeviceBuffer::to_vector: " + std::to_string(bytes_) +
                                " bytes are not a whole number of " + std::to_string(element_size) +
                                "-byte elements");
}

Stream::Stream() {
  const Api& a = api("creating a CUDA stream");
  ctx_ = current_or_primary(a);
  ContextScope scope(a, ctx_);
  check(a.stream_create(&stream_, CU_STREAM_NON_BLOCKING), "creating a CUDA stream");
}

Stream::~Stream() {
  if (!stream_) return;
  const Api& a = loader().api;
  ContextScope scope(a, ctx_);
  report_in_destructor(a.stream_destroy(stream_), "cuStreamDestroy");
}

void Stream::synchronize() {
  const Api& a = api("Stream::synchronize");
  ContextScope scope(a, ctx_);
  check(a.stream_synchronize(stream_), "waiting for a CUDA stream");
}

void Stream::wait(CUstream stream, const Event& event) {
  const Api& a = api("Stream::wait");
  check(a.stream_wait_event(stream, event.handle(), 0), "making a CUDA stream wait for an event");
}

Event::Event() {
  const Api& a = api("creating a CUDA event");
  ctx_ = current_or_primary(a);
  ContextScope scope(a, ctx_);
  check(a.event_create(&event_, CU_EVENT_DEFAULT), "creating a CUDA event");
}

Event::~Event() {
  reset();
}

Event::Event(Event&& other) noexcept
    : event_(std::exchange(other.event_, nullptr)), ctx_(std::exchange(other.ctx_, nullptr)) {}

Event& Event::operator=(Event&& other) noexcept {
  if (this != &other) {
    reset();
    event_ = std::exchange(other.event_, nullptr);
    ctx_ = std::exchange(other.ctx_, nullptr);
  }
  return *this;
}

void Event::reset() noexcept {
  if (!event_) return;
  const Api& a = loader().api;
  ContextScope scope(a, ctx_);
  report_in_destructor(a.event_destroy(event_), "cuEventDestroy");
  event_ = nullptr;
}

void Event::record(CUstream stream) {
  const Api& a = api("Event::record");
  if (!event_) throw std::logic_error("Event::record: the event was moved from");
  ContextScope scope(a, ctx_);
  check(a.event_record(event_, stream), "recording a CUDA event");
}

void Event::synchronize() {
  const Api& a = api("Event::synchronize");
  if (!event_) throw std::logic_error("Event::synchronize: the event was moved from");
  ContextScope scope(a, ctx_);
  check(a.event_synchronize(event_), "waiting for a CUDA event");
}

float Event::elapsed_ms(const Event& start, const Event& stop) {
  const Api& a = api("Event::elapsed_ms");
  if (!start.event_ || !stop.event_)
    throw std::logic_error("Event::elapsed_ms: an event was moved from");
  ContextScope scope(a, stop.ctx_);
  check(a.event_synchronize(stop.event_), "Event::elapsed_ms: waiting for the stop event");
  float ms = 0.0f;
  check(a.event_elapsed_time(&ms, start.event_, stop.event_),
        "Event::elapsed_ms: measuring between two events");
  return ms;
}

void launch(CUfunction f, Dim3 grid, Dim3 block, unsigned shared_bytes, void** args,
            CUstream stream) {
  const Api& a = api("launching a CUDA kernel");
  CUresult r = a.launch_kernel(f, grid.x, grid.y, grid.z, block.x, block.y, block.z, shared_bytes,
                               stream, args, nullptr);
  if (r != CUDA_SUCCESS) {
    auto dims = [](Dim3 d) {
      return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) +
             ")";
    };
    throw CudaError(r, "launching kernel '" + kernel_name(a, f) + "' with grid " + dims(grid) +
                           " block " + dims(block) + " and " + std::to_string(shared_bytes) +
                           " bytes of dynamic shared memory");
  }
}

void check_last(const char* what) {
  const Api& a = api(what);
  check(a.ctx_synchronize(), what);
}

void download(void* dst, const void* device_src, size_t bytes) {
  if (bytes == 0) return;
  const Api& a = api("cuda::download");
  ContextScope scope(a, current_or_primary(a));
  check(
      a.memcpy_dtoh(dst, static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(device_src)), bytes),
      "cuda::download of " + std::to_string(bytes) + " bytes");
}

void upload(void* device_dst, const void* src, size_t bytes) {
  if (bytes == 0) return;
  const Api& a = api("cuda::upload");
  ContextScope scope(a, current_or_primary(a));
  check(
      a.memcpy_htod(static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(device_dst)), src, bytes),
      "cuda::upload of " + std::to_string(bytes) + " bytes");
}

void copy_on_device(void* device_dst, const void* device_src, size_t bytes) {
  if (bytes == 0) return;
  const Api& a = api("cuda::copy_on_device");
  ContextScope scope(a, current_or_primary(a));
  check(a.memcpy_dtod(static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(device_dst)),
                      static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(device_src)), bytes),
        "cuda::copy_on_device of " + std::to_string(bytes) + " bytes");
}

}  // namespace dualjit::cuda
