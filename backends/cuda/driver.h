// CUDA Driver API, loaded at run time with dlopen("libcuda.so.1").
//
// Nothing here links libcuda: binaries start on machines without a driver and
// driver_available() reports "no GPU" cleanly. Entry points are resolved with cuGetProcAddress,
// each at the explicit ABI version of the cudaTypedefs.h function type we call it through.
//
// Calls that need a context use the calling thread's current one; if the thread has none, the
// primary context of the selected device (select_device, 0 until set) is made current
// (Context::primary()).
#pragma once

#include <cuda.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace dualjit::cuda {

// A failed driver call. Message: "<what we were doing>: <error name> (<error string>)".
class CudaError : public std::runtime_error {
 public:
  CudaError(CUresult code, const std::string& what);
  CUresult code;
};

// True when libcuda loads, cuInit succeeds and there is at least one device. Never throws.
bool driver_available();
// Why driver_available() is false ("" when it is true).
std::string driver_unavailable_reason();
// cuDriverGetVersion (e.g. 13000); throws CudaError when the driver is unavailable.
int driver_version();

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  size_t total_memory = 0;
  int multiprocessors = 0;
  int l2_bytes = 0;
  int max_shared_per_block_optin = 0;
  int shared_per_multiprocessor = 0;  // all its blocks' shared memory together
  std::string arch() const;           // "sm_90"
};

// All devices, queried once. Throws CudaError when the driver is unavailable.
std::vector<DeviceInfo> devices();

// The device that Context::primary() without an ordinal, and any thread with no current context,
// uses from now on (0 until set); its primary context becomes current on the calling thread. One
// process per GPU (an MPI rank) selects its own before its first allocation. Throws CudaError
// naming the ordinal when there is no such device.
void select_device(int ordinal);
int selected_device();

// The primary context of one device, retained for the life of the process.
class Context {
 public:
  // Retains the primary context of `ordinal` (once) and makes it current on the calling thread.
  static Context& primary(int ordinal);
  static Context& primary() { return primary(selected_device()); }
  const DeviceInfo& device() const { return info_; }
  CUcontext handle() const { return ctx_; }
  // Makes this context current and waits for all its work; throws CudaError on a failed kernel.
  void synchronize();

  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

 private:
  Context(CUcontext ctx, DeviceInfo info) : ctx_(ctx), info_(std::move(info)) {}
  CUcontext ctx_;
  DeviceInfo info_;
};

// A loaded CUBIN/PTX/fatbin image.
class Module {
 public:
  // cuModuleLoadDataEx; on failure the CudaError carries the JIT error log.
  Module(const std::vector<char>& image, const std::string& name_for_errors);
  ~Module();
  Module(Module&& other) noexcept;
  Module& operator=(Module&& other) noexcept;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  // Throws CudaError naming the module and the function.
  CUfunction function(const std::string& name) const;
  const std::string& name() const { return name_; }
  CUmodule handle() const { return module_; }

 private:
  void reset() noexcept;
  CUmodule module_ = nullptr;
  CUcontext ctx_ = nullptr;
  std::string name_;
};

struct FunctionAttributes {
  int registers = 0;
  int local_bytes = 0;   // per thread; > 0 means spills or local arrays
  int shared_bytes = 0;  // static shared memory
  int max_threads_per_block = 0;
};
FunctionAttributes attributes(CUfunction f);
// Allows launches of `f` with up to `bytes` of dynamic shared memory (needed above 48 KiB).
void set_max_dynamic_shared(CUfunction f, int bytes);
// Asks for the largest shared-memory carveout of the SM's L1 for `f`: without it the driver may
// pick one that holds fewer of its blocks than registers allow.
void prefer_shared_memory(CUfunction f);

// Device memory (cuMemAlloc/cuMemFree), movable, not copyable. A zero-byte buffer holds no
// allocation and get() == 0.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  size_t bytes() const { return bytes_; }
  CUdeviceptr get() const { return ptr_; }
  CUcontext context() const { return ctx_; }  // the context that owns the allocation
  // Synchronous copies; throw std::out_of_range when [offset, offset + bytes) is outside.
  void upload(const void* src, size_t bytes, size_t offset = 0);
  void download(void* dst, size_t bytes, size_t offset = 0) const;
  void fill_bytes(unsigned char value);
  // Enqueued on `stream`, so it is ordered before the kernels launched there after it.
  void fill_bytes_async(unsigned char value, CUstream stream);
  // The first `bytes` only; throws std::out_of_range beyond the buffer.
  void fill_bytes_async(unsigned char value, CUstream stream, size_t bytes);
  // Device-to-device copy of the first `bytes` of src (asynchronous on the null stream).
  void copy_from(const DeviceBuffer& src, size_t bytes);

  template <class T>
  static DeviceBuffer from(const std::vector<T>& values) {
    static_assert(std::is_trivially_copyable_v<T>);
    DeviceBuffer buffer(values.size() * sizeof(T));
    buffer.upload(values.data(), buffer.bytes());
    return buffer;
  }
  // The whole buffer as Ts; throws std::invalid_argument when bytes() is not a multiple.
  template <class T>
  std::vector<T> to_vector() const {
    static_assert(std::is_trivially_copyable_v<T>);
    check_multiple(sizeof(T));
    std::vector<T> values(bytes_ / sizeof(T));
    download(values.data(), bytes_);
    return values;
  }

 private:
  void reset() noexcept;
  void check_multiple(size_t element_size) const;
  CUdeviceptr ptr_ = 0;
  size_t bytes_ = 0;
  CUcontext ctx_ = nullptr;
};

class Event;

// A non-blocking CUDA stream (cuStreamCreate with CU_STREAM_NON_BLOCKING: it does not wait for
// the legacy null stream, so work on it is ordered only by what is enqueued on it).
class Stream {
 public:
  Stream();
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  CUstream handle() const { return stream_; }
  void synchronize();  // throws CudaError when work on it failed
  // Work enqueued on `stream` after this call starts once `event` (recorded on any stream of
  // the context) has completed: the join of work forked onto several streams.
  static void wait(CUstream stream, const Event& event);

 private:
  CUstream stream_ = nullptr;
  CUcontext ctx_ = nullptr;
};

// A CUDA event for timing (cuEventCreate/cuEventDestroy), movable, not copyable.
class Event {
 public:
  Event();
  ~Event();
  Event(Event&& other) noexcept;
  Event& operator=(Event&& other) noexcept;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  void record(CUstream stream = nullptr);
  void synchronize();
  // Milliseconds between two recorded events; waits for `stop`.
  static float elapsed_ms(const Event& start, const Event& stop);
  CUevent handle() const { return event_; }

 private:
  void reset() noexcept;
  CUevent event_ = nullptr;
  CUcontext ctx_ = nullptr;
};

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

// cuLaunchKernel; throws CudaError naming the kernel and the launch shape if the launch is
// rejected. Errors raised while the kernel runs surface at the next synchronization.
void launch(CUfunction f, Dim3 grid, Dim3 block, unsigned shared_bytes, void** args,
            CUstream stream = nullptr);

// Synchronizes the current context and throws CudaError("<what>: ...") if any work failed.
void check_last(const char* what);

// Copies `bytes` from device memory at `device_src` to the host (synchronous; waits for the
// legacy stream only).
void download(void* dst, const void* device_src, size_t bytes);
// Copies `bytes` from the host to device memory at `device_dst` (synchronous).
void upload(void* device_dst, const void* src, size_t bytes);
// Copies `bytes` between device memory (asynchronous on the legacy stream, ordered with it).
void copy_on_device(void* device_dst, const void* device_src, size_t bytes);

}  // namespace dualjit::cuda
