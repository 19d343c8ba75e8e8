// Compiling CUDA C++ sources with NVRTC (linked normally: it needs no driver and no GPU).

#include "backends/cuda/state.hpp"

#include <kbench/error.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nvrtc.h>

#include <algorithm>
#include <string>
#include <vector>

namespace kbench::cuda::detail {

namespace {

// Owns an nvrtcProgram so that every exit path destroys it.
class program_handle {
 public:
  explicit program_handle(nvrtcProgram p) : m_program(p) {}
  ~program_handle() { nvrtcDestroyProgram(&m_program); }
  program_handle(const program_handle&) = delete;
  program_handle& operator=(const program_handle&) = delete;
  [[nodiscard]] nvrtcProgram get() const { return m_program; }

 private:
  nvrtcProgram m_program;
};

void check_nvrtc(nvrtcResult result, const char* call) {
  if (result != NVRTC_SUCCESS) KBENCH_THROW("{} failed: {}", call, nvrtcGetErrorString(result));
}

std::vector<int> supported_architectures() {
  int count = 0;
  check_nvrtc(nvrtcGetNumSupportedArchs(&count), "nvrtcGetNumSupportedArchs");
  std::vector<int> archs(static_cast<std::size_t>(std::max(count, 0)));
  if (!archs.empty()) check_nvrtc(nvrtcGetSupportedArchs(archs.data()), "nvrtcGetSupportedArchs");
  return archs;
}

std::string program_log(nvrtcProgram program) {
  std::size_t size = 0;
  if (nvrtcGetProgramLogSize(program, &size) != NVRTC_SUCCESS || size <= 1) return {};
  std::string log(size, '\0');
  if (nvrtcGetProgramLog(program, log.data()) != NVRTC_SUCCESS) return {};
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

}  // namespace

compiled_program nvrtc_compile(std::string_view source, const config& defines, int cc_major, int cc_minor) {
  compiled_program out;
  int major = 0;
  int minor = 0;
  check_nvrtc(nvrtcVersion(&major, &minor), "nvrtcVersion");
  out.nvrtc_version = fmt::format("{}.{}", major, minor);

  // A real architecture gives a CUBIN the driver loads as is; when this NVRTC cannot target the device (a GPU
  // newer than the toolkit), PTX for the newest older virtual architecture is JIT-compiled by the driver.
  const int device_arch = cc_major * 10 + cc_minor;
  const std::vector<int> archs = supported_architectures();
  if (std::find(archs.begin(), archs.end(), device_arch) != archs.end()) {
    out.is_cubin = true;
    out.target = fmt::format("sm_{}", device_arch);
  } else {
    int best = 0;
    for (const int a : archs) {
      if (a <= device_arch) best = std::max(best, a);
    }
    if (best == 0) {
      KBENCH_THROW("NVRTC {} cannot compile for compute capability {}.{} (oldest supported: sm_{})",
                   out.nvrtc_version, cc_major, cc_minor,
                   archs.empty() ? 0 : *std::min_element(archs.begin(), archs.end()));
    }
    out.target = fmt::format("compute_{}", best);
  }

  std::vector<std::string> options;
  options.reserve(defines.size() + 1);
  options.push_back("--gpu-architecture=" + out.target);
  for (const auto& [name, value] : defines) options.push_back(fmt::format("-D{}={}", name, value));
  std::vector<const char*> option_ptrs;
  option_ptrs.reserve(options.size());
  for (const std::string& o : options) option_ptrs.push_back(o.c_str());

  const std::string text(source);  // NVRTC wants a NUL-terminated string
  nvrtcProgram raw = nullptr;
  check_nvrtc(nvrtcCreateProgram(&raw, text.c_str(), "kbench.cu", 0, nullptr, nullptr), "nvrtcCreateProgram");
  const program_handle program(raw);

  const nvrtcResult compiled =
      nvrtcCompileProgram(program.get(), static_cast<int>(option_ptrs.size()), option_ptrs.data());
  if (compiled != NVRTC_SUCCESS) {
    KBENCH_THROW("NVRTC {} failed to compile the program for {} ({}; options: {}). Build log:\n{}",
                 out.nvrtc_version, out.target, nvrtcGetErrorString(compiled), fmt::join(options, " "),
                 program_log(program.get()));
  }

  std::size_t size = 0;
  if (out.is_cubin) {
    check_nvrtc(nvrtcGetCUBINSize(program.get(), &size), "nvrtcGetCUBINSize");
    out.image.resize(size);
    check_nvrtc(nvrtcGetCUBIN(program.get(), out.image.data()), "nvrtcGetCUBIN");
  } else {
    check_nvrtc(nvrtcGetPTXSize(program.get(), &size), "nvrtcGetPTXSize");  // includes the NUL
    out.image.resize(size);
    check_nvrtc(nvrtcGetPTX(program.get(), out.image.data()), "nvrtcGetPTX");
  }
  return out;
}

}  // namespace kbench::cuda::detail
