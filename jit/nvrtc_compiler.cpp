#include "jit/nvrtc_compiler.h"

#include <dlfcn.h>
#include <link.h>
#include <nvrtc.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>

namespace dualjit::jit {
namespace {

constexpr int kContextLines = 3;
constexpr size_t kMaxErrorSites = 8;  // enough to locate the problem, short enough to read

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

// Line numbers of errors in a compiler log, in order of appearance, without repeats.
std::vector<int> error_lines(const std::string& log) {
  // NVRTC: "name.cu(12): error: ..."; GCC/Clang: "name.cpp:12:5: error: ...".
  static const std::regex re(R"((?:\((\d+)\)|:(\d+):\d+):\s*(?:fatal |catastrophic )?error)");
  std::vector<int> lines;
  std::set<int> seen;
  for (auto it = std::sregex_iterator(log.begin(), log.end(), re); it != std::sregex_iterator();
       ++it) {
    const std::string digits = (*it)[1].matched ? (*it)[1].str() : (*it)[2].str();
    const int n = std::atoi(digits.c_str());
    if (n > 0 && seen.insert(n).second) lines.push_back(n);
    if (lines.size() >= kMaxErrorSites) break;
  }
  return lines;
}

std::string source_context(std::string_view source, const std::vector<int>& lines) {
  const auto src = split_lines(source);
  std::ostringstream out;
  for (int line : lines) {
    if (line > int(src.size())) continue;
    out << "source around line " << line << ":\n";
    const int first = std::max(1, line - kContextLines);
    const int last = std::min(int(src.size()), line + kContextLines);
    for (int i = first; i <= last; ++i) {
      char number[16];
      std::snprintf(number, sizeof number, "%5d", i);
      out << (i == line ? ">> " : "   ") << number << " | " << src[i - 1] << '\n';
    }
  }
  return out.str();
}

std::string nvrtc_log(nvrtcProgram program) {
  size_t size = 0;
  if (nvrtcGetProgramLogSize(program, &size) != NVRTC_SUCCESS || size == 0) return {};
  std::string log(size, '\0');
  if (nvrtcGetProgramLog(program, log.data()) != NVRTC_SUCCESS) return {};
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

struct ParsedArch {
  bool cubin = true;
  int number = 0;
  std::string suffix;  // "a" / "f" feature suffixes, kept only when compiling the exact arch
};

ParsedArch parse_arch(const std::string& arch) {
  static const std::regex re(R"((sm|compute)_(\d+)([a-z]?))");
  std::smatch m;
  if (!std::regex_match(arch, m, re)) {
    throw std::invalid_argument("dualjit: malformed CUDA architecture '" + arch +
                                "' (expected sm_XX or compute_XX)");
  }
  return {m[1] == "sm", std::stoi(m[2]), m[3]};
}

// The NVRTC options for a given (already resolved) architecture.
std::vector<std::string> option_list(const CompileOptions& options, const std::string& arch) {
  if (options.opt_level < 0 || options.opt_level > 3) {
    throw std::invalid_argument("dualjit: opt_level must be 0..3, got " +
                                std::to_string(options.opt_level));
  }
  std::vector<std::string> list = {"-arch=" + arch, "--std=c++17"};
  if (arch.rfind("sm_", 0) == 0) {
    // ptxas runs only for CUBIN; -v puts the resource report into the log.
    list.push_back("-Xptxas=-v");
    list.push_back("-Xptxas=-O" + std::to_string(options.opt_level));
  }
  if (options.fast_math) list.push_back("--use_fast_math");
  if (!options.fused_multiply_add) list.push_back("--fmad=false");
  list.insert(list.end(), options.extra.begin(), options.extra.end());
  return list;
}

// Picks what to compile for: the requested arch if NVRTC supports it, else PTX for the highest
// supported virtual arch not above it (the driver JIT-compiles that PTX for the device).
std::string resolve_arch(const std::string& requested, const std::string& kernel_name) {
  const ParsedArch parsed = parse_arch(requested);
  const auto supported = nvrtc_supported_archs();
  const std::string exact = "sm_" + std::to_string(parsed.number);
  if (std::find(supported.begin(), supported.end(), exact) != supported.end()) return requested;
  int best = -1;
  for (const auto& s : supported) {
    const int n = std::stoi(s.substr(3));
    if (n <= parsed.number) best = std::max(best, n);
  }
  if (best < 0) {
    throw CompileError(kernel_name, "", "",
                       "architecture " + requested + " is older than every architecture this " +
                           nvrtc_identity() + " supports");
  }
  const std::string fallback = "compute_" + std::to_string(best);
  spdlog::warn("dualjit: {} does not support {}; compiling kernel '{}' to PTX for {}",
               nvrtc_identity(), requested, kernel_name, fallback);
  return fallback;
}

struct ProgramDeleter {
  void operator()(nvrtcProgram* p) const {
    nvrtcDestroyProgram(p);
    delete p;
  }
};

int capture_int(const std::smatch& m, int group) {
  return m[group].matched ? std::stoi(m[group].str()) : 0;
}

}  // namespace

std::string CompileOptions::canonical() const {
  std::string text = "arch=" + arch + "\n";
  for (const auto& option : option_list(*this, arch)) text += option + "\n";
  return text;
}

CompileError::CompileError(std::string kernel_name, std::string log, std::string_view source,
                           std::string_view what)
    : std::runtime_error([&] {
        std::string msg = "dualjit: kernel '" + kernel_name + "': " + std::string(what);
        if (!log.empty()) msg += "\ncompiler log:\n" + log;
        const std::string context = source_context(source, error_lines(log));
        if (!context.empty()) msg += "\n" + context;
        return msg;
      }()),
      kernel_name_(std::move(kernel_name)),
      log_(std::move(log)) {}

PtxasReport parse_ptxas_report(const std::string& log, const std::string& kernel_name) {
  static const std::regex entry_re(R"(Compiling entry function '([^']+)')");
  static const std::regex props_re(R"(Function properties for (\S+))");
  static const std::regex stack_re(
      R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex used_re(R"(Used (\d+) registers)");
  static const std::regex smem_re(R"((\d+) bytes smem)");
  static const std::regex cmem_re(R"((\d+) bytes cmem\[\d+\])");

  const auto lines = split_lines(log);
  // Report the named kernel; a single-kernel log whose entry is mangled still matches.
  std::vector<std::string> entries;
  for (const auto& line : lines) {
    std::smatch m;
    if (std::regex_search(line, m, entry_re)) entries.push_back(m[1]);
  }
  std::string target = kernel_name;
  if (std::find(entries.begin(), entries.end(), kernel_name) == entries.end() &&
      entries.size() == 1) {
    target = entries.front();
  }

  const bool sole = entries.size() == 1;
  PtxasReport report;
  std::string entry, props;
  for (const auto& line : lines) {
    if (line.rfind("ptxas", 0) != 0) continue;
    std::smatch m;
    if (std::regex_search(line, m, entry_re)) {
      entry = m[1];
      props.clear();
    } else if (std::regex_search(line, m, props_re)) {
      props = m[1];
    }
    const bool in_entry = entry == target;
    if (in_entry || props == target) report.raw += line + "\n";
    if (props == target && std::regex_search(line, m, stack_re)) {
      report.stack_bytes = capture_int(m, 1);
      report.spill_store_bytes = capture_int(m, 2);
      report.spill_load_bytes = capture_int(m, 3);
    } else if (sole && !props.empty() && std::regex_search(line, m, stack_re)) {
      report.function_spill_store_bytes += capture_int(m, 2);
    }
    if (in_entry && std::regex_search(line, m, used_re)) {
      report.registers = capture_int(m, 1);
      if (std::regex_search(line, m, smem_re)) report.shared_bytes = capture_int(m, 1);
      report.constant_bytes = 0;
      for (auto it = std::sregex_iterator(line.begin(), line.end(), cmem_re);
           it != std::sregex_iterator(); ++it) {
        report.constant_bytes += std::stoi((*it)[1].str());
      }
    }
  }
  return report;
}

void disable_nvrtc_cache() {
  static std::once_flag once;
  std::call_once(once, [] { setenv("CUDA_CACHE_DISABLE", "1", /*overwrite=*/0); });
}

CompiledImage nvrtc_compile(const std::string& kernel_name, const std::string& source,
                            const CompileOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  disable_nvrtc_cache();
  CompiledImage out;
  out.kernel_name = kernel_name;
  out.arch = resolve_arch(options.arch, kernel_name);
  out.is_cubin = out.arch.rfind("sm_", 0) == 0;

  const auto option_strings = option_list(options, out.arch);
  std::vector<const char*> argv;
  for (const auto& s : option_strings) argv.push_back(s.c_str());

  const std::string file_name = kernel_name + ".cu";
  std::unique_ptr<nvrtcProgram, ProgramDeleter> program(new nvrtcProgram{});
  nvrtcResult rc =
      nvrtcCreateProgram(program.get(), source.c_str(), file_name.c_str(), 0, nullptr, nullptr);
  if (rc != NVRTC_SUCCESS) {
    delete program.release();
    throw CompileError(kernel_name, "", source,
                       std::string("nvrtcCreateProgram failed: ") + nvrtcGetErrorString(rc));
  }
  rc = nvrtcCompileProgram(*program, int(argv.size()), argv.data());
  out.log = nvrtc_log(*program);
  if (rc != NVRTC_SUCCESS) {
    throw CompileError(kernel_name, out.log, source,
                       std::string("NVRTC compilation for ") + out.arch + " failed (" +
                           nvrtcGetErrorString(rc) + ")");
  }

  size_t size = 0;
  rc = out.is_cubin ? nvrtcGetCUBINSize(*program, &size) : nvrtcGetPTXSize(*program, &size);
  if (rc == NVRTC_SUCCESS && size > 0) {
    out.image.resize(size);
    rc = out.is_cubin ? nvrtcGetCUBIN(*program, out.image.data())
                      : nvrtcGetPTX(*program, out.image.data());
  }
  if (rc != NVRTC_SUCCESS || size == 0) {
    throw CompileError(kernel_name, out.log, "",
                       std::string("NVRTC produced no ") + (out.is_cubin ? "CUBIN" : "PTX") +
                           " for " + out.arch + " (" + nvrtcGetErrorString(rc) + ")");
  }

  out.ptxas = parse_ptxas_report(out.log, kernel_name);
  if (out.is_cubin && out.ptxas.registers < 0) {
    spdlog::debug(
        "dualjit: no ptxas report for '{}': NVRTC served it from the driver's JIT cache "
        "(CUDA_CACHE_DISABLE=1 forces a real compile)",
        kernel_name);
  }
  out.compile_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  spdlog::debug(
      "dualjit: compiled kernel '{}' for {} in {:.3f} s ({} bytes, {} registers, {} B "
      "spill stores, {} B spill loads)",
      kernel_name, out.arch, out.compile_seconds, out.image.size(), out.ptxas.registers,
      out.ptxas.spill_store_bytes, out.ptxas.spill_load_bytes);
  return out;
}

std::vector<std::string> nvrtc_supported_archs() {
  static const std::vector<std::string> archs = [] {
    std::vector<std::string> list;
    int count = 0;
    if (nvrtcGetNumSupportedArchs(&count) != NVRTC_SUCCESS || count <= 0) return list;
    std::vector<int> numbers(count);
    if (nvrtcGetSupportedArchs(numbers.data()) != NVRTC_SUCCESS) return list;
    std::sort(numbers.begin(), numbers.end());
    for (int n : numbers) list.push_back("sm_" + std::to_string(n));
    return list;
  }();
  return archs;
}

namespace {

// The file the process actually loaded NVRTC from, with symlinks resolved.
std::string loaded_nvrtc_path() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&nvrtcVersion), &info) && info.dli_fname &&
      std::string_view(info.dli_fname).find("nvrtc") != std::string_view::npos) {
    return info.dli_fname;
  }
  // A statically linked executable's PLT can shadow the address; search loaded objects.
  std::string found;
  dl_iterate_phdr(
      [](dl_phdr_info* phdr, size_t, void* data) {
        const std::string_view name = phdr->dlpi_name ? phdr->dlpi_name : "";
        if (name.find("libnvrtc.") != std::string_view::npos) {
          *static_cast<std::string*>(data) = std::string(name);
          return 1;
        }
        return 0;
      },
      &found);
  return found;
}

}  // namespace

std::string nvrtc_identity() {
  static const std::string identity = [] {
    int major = 0, minor = 0;
    nvrtcVersion(&major, &minor);
    std::string id = "nvrtc " + std::to_string(major) + "." + std::to_string(minor);
    const std::string path = loaded_nvrtc_path();
    if (path.empty()) return id + " (library file unknown)";
    char real[PATH_MAX];
    const std::string resolved = realpath(path.c_str(), real) ? real : path;
    // The file name alone may omit the build (libnvrtc.so.13); size and mtime pin it.
    struct stat st {};
    id += " (" + std::filesystem::path(resolved).filename().string();
    if (stat(resolved.c_str(), &st) == 0) {
      id += ", " + std::to_string(st.st_size) + " bytes, mtime " + std::to_string(st.st_mtime);
    }
    return id + ")";
  }();
  return identity;
}

}  // namespace dualjit::jit
