#include "backends/cpu/host_compiler.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <spdlog/spdlog.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>
#include <utility>

extern char** environ;

namespace dualjit::cpu {
namespace {

namespace fs = std::filesystem;

std::string temp_base() {
  const char* dir = std::getenv("TMPDIR");
  return dir && *dir ? dir : "/tmp";
}

// A private directory (mkdtemp, mode 0700) removed with everything in it at scope exit.
class TempDir {
 public:
  explicit TempDir(const std::string& what) {
    std::string pattern = temp_base() + "/dualjit-host-XXXXXX";
    if (!mkdtemp(pattern.data()))
      throw std::runtime_error(what + ": cannot create a temporary directory under " + temp_base() +
                               ": " + std::strerror(errno));
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
    if (ec) spdlog::warn("dualjit: cannot remove temporary directory {}: {}", path_, ec.message());
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

struct ProcessResult {
  int exit_status = 0;  // exit code, or -signal when the process was killed
  std::string output;   // stdout and stderr, interleaved
};

// Runs argv[0] (looked up on PATH) without a shell and collects its output.
ProcessResult run_process(const std::vector<std::string>& args, const std::string& what) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    throw std::runtime_error(what + ": pipe failed: " + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    throw HostCompileError(what + ": cannot run '" + args[0] + "': " + std::strerror(rc), "", "");
  }
  ProcessResult result;
  char buffer[4096];
  for (;;) {
    ssize_t n = read(fds[0], buffer, sizeof(buffer));
    if (n > 0) {
      result.output.append(buffer, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
  return result;
}

// The executable a compiler name refers to, following PATH and symbolic links
// (/usr/bin/c++ -> /usr/bin/x86_64-linux-gnu-g++-12); the name itself if it cannot be found.
std::string resolve_executable(const std::string& compiler) {
  std::error_code ec;
  if (compiler.find('/') != std::string::npos) {
    auto p = fs::canonical(compiler, ec);
    return ec ? compiler : p.string();
  }
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    fs::path candidate = fs::path(dir.empty() ? "." : dir) / compiler;
    if (access(candidate.c_str(), X_OK) == 0) {
      auto p = fs::canonical(candidate, ec);
      if (!ec) return p.string();
    }
  }
  return compiler;
}

std::string join_command(const std::vector<std::string>& args) {
  std::string s;
  for (const auto& a : args) s += (s.empty() ? "" : " ") + a;
  return s;
}

std::string file_stem_for(const std::string& kernel_name) {
  std::string stem;
  for (char c : kernel_name.substr(0, 64))
    stem += (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-') ? c : '_';
  return stem.empty() ? "kernel" : stem;
}

void replace_all(std::string& text, const std::string& from, const std::string& to) {
  for (size_t pos = 0; (pos = text.find(from, pos)) != std::string::npos; pos += to.size())
    text.replace(pos, from.size(), to);
}

// Generated code can produce thousands of errors; the first ones are what matters.
std::string truncated(const std::string& text, size_t limit = 16 * 1024) {
  if (text.size() <= limit) return text;
  return text.substr(0, limit) + "\n... (" + std::to_string(text.size() - limit) +
         " more bytes of compiler output)\n";
}

// Numbered source lines around each "file:LINE:COL: error" the compiler reported in `log`;
// error lines are marked with '>'.
std::string source_excerpt(const std::string& file_name, const std::string& log,
                           const std::string& source) {
  std::vector<std::string> lines;
  std::stringstream in(source);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::set<int> error_lines;
  std::regex location(
      std::regex_replace(file_name, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") +
      R"(:(\d+):(\d+): (?:fatal )?error)");
  for (auto it = std::sregex_iterator(log.begin(), log.end(), location);
       it != std::sregex_iterator() && error_lines.size() < 10; ++it)
    error_lines.insert(std::stoi((*it)[1].str()));
  const int context = 2;
  std::set<int> shown;
  for (int e : error_lines)
    for (int l = e - context; l <= e + context; ++l)
      if (l >= 1 && l <= static_cast<int>(lines.size())) shown.insert(l);
  std::string out;
  int previous = 0;
  for (int l : shown) {
    if (previous && l != previous + 1) out += "      ...\n";
    char number[32];
    std::snprintf(number, sizeof(number), "%s%5d | ", error_lines.count(l) ? ">" : " ", l);
    out += number + lines[l - 1] + "\n";
    previous = l;
  }
  return out;
}

void write_file(const std::string& path, const char* data, size_t size, const std::string& what) {
  std::ofstream out(path, std::ios::binary);
  out.write(data, static_cast<std::streamsize>(size));
  out.close();
  if (!out) throw std::runtime_error(what + ": cannot write " + path);
}

// Generated code is built with -fopenmp, so loading it may be what brings the OpenMP runtime
// into the process (the executable's own link often drops it with --as-needed). Its worker
// threads outlive the parallel region; were the runtime unloaded with the last dlclose, they
// would crash in unmapped code. Make whichever runtime is loaded permanent.
void pin_openmp_runtime() {
  for (const char* name : {"libgomp.so.1", "libomp.so.5", "libomp.so", "libiomp5.so"})
    dlopen(name, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);  // no-op unless already loaded
}

std::vector<char> read_file(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(what + ": cannot read " + path);
  return std::vector<char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

std::string default_host_compiler() {
  if (const char* env = std::getenv("DUALJIT_HOST_CXX"); env && *env) return env;
#ifdef DUALJIT_HOST_CXX
  return DUALJIT_HOST_CXX;
#else
  return "c++";
#endif
}

std::string HostCompileOptions::canonical() const {
  std::string s = "compiler=" + compiler + "\n";
  for (const auto& f : flags) s += "flag=" + f + "\n";
  return s;
}

HostCompileError::HostCompileError(const std::string& message, std::string kernel, std::string log)
    : std::runtime_error(message), kernel_(std::move(kernel)), log_(std::move(log)) {}

std::string host_compiler_identity(const HostCompileOptions& options) {
  static std::mutex mutex;
  static std::map<std::string, std::string> cache;
  {
    std::lock_guard lock(mutex);
    if (auto it = cache.find(options.compiler); it != cache.end()) return it->second;
  }
  const std::string what = "querying the version of host compiler '" + options.compiler + "'";
  ProcessResult r = run_process({options.compiler, "--version"}, what);
  std::string first_line = r.output.substr(0, r.output.find('\n'));
  if (r.exit_status != 0 || first_line.empty())
    throw HostCompileError(what + " failed (exit status " + std::to_string(r.exit_status) + "):\n" +
                               truncated(r.output),
                           "", r.output);
  std::string identity = first_line + " [" + resolve_executable(options.compiler) + "]";
  std::lock_guard lock(mutex);
  cache.emplace(options.compiler, identity);
  return identity;
}

HostCompileResult host_compile(const std::string& kernel_name, const std::string& source,
                               const HostCompileOptions& options) {
  const std::string what = "host compile of kernel '" + kernel_name + "'";
  auto start = std::chrono::steady_clock::now();
  TempDir dir(what);
  const std::string stem = file_stem_for(kernel_name);
  const std::string source_name = stem + ".cpp";
  const std::string source_path = dir.path() + "/" + source_name;
  const std::string output_path = dir.path() + "/" + stem + ".so";
  write_file(source_path, source.data(), source.size(), what);

  std::vector<std::string> args{options.compiler};
  args.insert(args.end(), options.flags.begin(), options.flags.end());
  args.insert(args.end(), {source_path, "-o", output_path});
  ProcessResult r = run_process(args, what);
  // The temporary directory is gone by the time anyone reads the log: name files by kernel.
  std::string log = r.output;
  replace_all(log, dir.path() + "/", "");

  if (r.exit_status != 0) {
    std::string command = join_command(args);
    replace_all(command, dir.path() + "/", "");
    std::string message =
        what + " failed (" +
        (r.exit_status > 0 ? "exit status " + std::to_string(r.exit_status)
                           : "killed by signal " + std::to_string(-r.exit_status)) +
        ")\ncommand: " + command + "\ncompiler output:\n" + truncated(log);
    if (std::string excerpt = source_excerpt(source_name, log, source); !excerpt.empty())
      message += "generated source around the errors:\n" + excerpt;
    spdlog::debug("dualjit: {}", message);
    throw HostCompileError(message, kernel_name, log);
  }
  HostCompileResult result;
  result.shared_object = read_file(output_path, what);
  result.log = log;
  result.compile_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  spdlog::debug("dualjit: host-compiled '{}' in {:.3f} s ({} bytes){}{}", kernel_name,
                result.compile_seconds, result.shared_object.size(), log.empty() ? "" : ":\n", log);
  return result;
}

SharedObject::SharedObject(const std::vector<char>& bytes, const std::string& name_for_errors)
    : name_(name_for_errors) {
  const std::string what = "loading shared object '" + name_ + "'";
  std::string path = temp_base() + "/dualjit-so-XXXXXX";
  int fd = mkostemp(path.data(), O_CLOEXEC);
  if (fd < 0)
    throw std::runtime_error(what + ": cannot create a temporary file under " + temp_base() + ": " +
                             std::strerror(errno));
  size_t written = 0;
  while (written < bytes.size()) {
    ssize_t n = write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = errno;
      close(fd);
      unlink(path.c_str());
      throw std::runtime_error(what + ": cannot write " + path + ": " + std::strerror(err));
    }
    written += static_cast<size_t>(n);
  }
  close(fd);
  // A unique path per load: dlopen returns the already-loaded handle for a path it has seen.
  handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  std::string error = handle_ ? "" : dlerror();
  unlink(path.c_str());  // the mapping stays valid; nothing is left behind on disk
  if (!handle_) throw std::runtime_error(what + ": " + error);
  pin_openmp_runtime();
  spdlog::debug("dualjit: loaded shared object '{}' ({} bytes)", name_, bytes.size());
}

SharedObject::~SharedObject() {
  if (handle_ && dlclose(handle_) != 0)
    spdlog::warn("dualjit: dlclose of shared object '{}' failed: {}", name_, dlerror());
}

SharedObject::SharedObject(SharedObject&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)), name_(std::move(other.name_)) {}

SharedObject& SharedObject::operator=(SharedObject&& other) noexcept {
  if (this != &other) {
    if (handle_) dlclose(handle_);
    handle_ = std::exchange(other.handle_, nullptr);
    name_ = std::move(other.name_);
  }
  return *this;
}

void* SharedObject::symbol(const std::string& name) const {
  const std::string what = "symbol '" + name + "' in shared object '" + name_ + "'";
  if (!handle_) throw std::logic_error(what + ": the object was moved from");
  dlerror();  // clear any stale error: a symbol may legitimately be null
  void* p = dlsym(handle_, name.c_str());
  if (const char* error = dlerror()) throw std::runtime_error(what + " not found: " + error);
  if (!p) throw std::runtime_error(what + " is null");
  return p;
}

}  // namespace dualjit::cpu
