// Compiles generated element code with the host C++ compiler into a shared object, and loads
// shared objects from bytes (so that they can come from the kernel cache).
//
// The compiler runs as a child process (posix_spawn, no shell) in a private temporary
// directory that is removed afterwards.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace dualjit::cpu {

// $DUALJIT_HOST_CXX when set and non-empty, else the compiler dualjit was built with.
std::string default_host_compiler();

struct HostCompileOptions {
  std::string compiler = default_host_compiler();
  // -fno-fast-math: the CPU results must match the reference interpreter and the GPU closely;
  // -ffp-contract=off: every operation rounded on its own (no FMA where the target has one),
  // as in the interpreter and in the GPU's deterministic assembly.
  std::vector<std::string> flags = {"-O2",        "-fPIC",          "-shared",          "-fopenmp",
                                    "-std=c++17", "-fno-fast-math", "-ffp-contract=off"};
  // Unambiguous text of every option, for cache keys.
  std::string canonical() const;
};

// The full first line of `<compiler> --version`, followed by the resolved path of the
// executable in brackets (a "c++" first line alone does not say which compiler it is), e.g.
// "c++ (Debian 12.2.0-14) 12.2.0 [/usr/bin/x86_64-linux-gnu-g++-12]". Cached per compiler.
// Throws HostCompileError when the compiler cannot be run.
std::string host_compiler_identity(const HostCompileOptions& options);

struct HostCompileResult {
  std::vector<char> shared_object;
  double compile_seconds = 0.0;
  std::string log;  // compiler output (warnings); empty on a clean compile
};

// A failed host compile. The message names the kernel, holds the compiler's output and the
// numbered generated-source lines around each reported error.
class HostCompileError : public std::runtime_error {
 public:
  HostCompileError(const std::string& message, std::string kernel, std::string log);
  const std::string& kernel() const { return kernel_; }
  const std::string& log() const { return log_; }

 private:
  std::string kernel_;
  std::string log_;
};

// Compiles `source` into a shared object and returns its bytes.
HostCompileResult host_compile(const std::string& kernel_name, const std::string& source,
                               const HostCompileOptions& options);

// A shared object loaded from bytes with dlopen(RTLD_NOW | RTLD_LOCAL). The bytes go to a
// private temporary file that is unlinked right after loading. Movable, not copyable.
class SharedObject {
 public:
  // Throws std::runtime_error naming the library when the bytes do not load.
  SharedObject(const std::vector<char>& bytes, const std::string& name_for_errors);
  ~SharedObject();
  SharedObject(SharedObject&& other) noexcept;
  SharedObject& operator=(SharedObject&& other) noexcept;
  SharedObject(const SharedObject&) = delete;
  SharedObject& operator=(const SharedObject&) = delete;

  // Throws std::runtime_error naming the library and the symbol when it is missing.
  void* symbol(const std::string& name) const;
  // The symbol as a function pointer: function<void(const double*, double*, long)>("f").
  template <class Fn>
  Fn* function(const std::string& name) const {
    return reinterpret_cast<Fn*>(symbol(name));
  }
  const std::string& name() const { return name_; }

 private:
  void* handle_ = nullptr;
  std::string name_;
};

}  // namespace dualjit::cpu
