// SPDX-License-Identifier: MIT
// Init, shutdown, error strings and system-wide queries.
#include <fstream>
#include <iterator>

#include "sim/lib/call.h"
#include "sim/lib/exports.h"
#include "sim/lib/variant.h"
#include "sim/return_codes.h"

namespace gpumeter::sim::lib {

abi::Return copy_string(std::string_view text, char* out, unsigned length) {
  if (out == nullptr) return abi::kErrorInvalidArgument;
  if (text.size() + 1 > length) return abi::kErrorInsufficientSize;
  text.copy(out, text.size());
  out[text.size()] = '\0';
  return abi::kSuccess;
}

namespace {

abi::Return init(const char* function, bool legacy_v1) {
  return guarded(function, [&] {
    Library& library = Library::instance();
    std::lock_guard lock(library.mutex());
    return library.init(legacy_v1);
  });
}

std::string driver_version(const Library& library) {
  const char* fixed = variant().driver_version;
  return fixed != nullptr ? fixed : library.scenario().driver.driver_version;
}

std::string nvml_version(const Library& library) {
  if (variant().nvml_version != nullptr) return variant().nvml_version;
  return library.initialized() ? library.scenario().driver.nvml_version : DriverSpec{}.nvml_version;
}

int cuda_driver_version(const Library& library) {
  return variant().driver_version != nullptr ? variant().cuda_driver_version
                                             : library.scenario().driver.cuda_driver_version;
}

// What NVML names a process: the scenario's name, else its command, else /proc's view.
std::optional<std::string> process_name(const Timeline& timeline, unsigned pid, bool& hidden) {
  for (const ProcessSpec& p : timeline.scenario().processes) {
    if (timeline.pid_of(p) != pid) continue;
    hidden = p.host && p.host->hidden;
    if (!p.name.empty()) return p.name;
    if (p.host && !p.host->hidden) return p.host->command.front();
    if (!p.real) return std::nullopt;  // a made-up pid: /proc's process of that pid is another
  }
  std::ifstream cmdline("/proc/" + std::to_string(pid) + "/cmdline");
  std::string argv0;
  if (!cmdline || !std::getline(cmdline, argv0, '\0') || argv0.empty()) return std::nullopt;
  return argv0;
}

}  // namespace
}  // namespace gpumeter::sim::lib

using namespace gpumeter::sim;       // NOLINT(google-build-using-namespace): C entry points
using namespace gpumeter::sim::lib;  // NOLINT(google-build-using-namespace)

abi::Return nvmlInit_v2() {
  return init("nvmlInit_v2", false);
}

abi::Return nvmlInit() {
  return init("nvmlInit", true);
}

// The flags change nothing the simulator models: with no GPUs it succeeds anyway.
abi::Return nvmlInitWithFlags(unsigned /*flags*/) {
  return init("nvmlInitWithFlags", false);
}

abi::Return nvmlShutdown() {
  return guarded("nvmlShutdown", [] {
    Library& library = Library::instance();
    std::lock_guard lock(library.mutex());
    return library.shutdown();
  });
}

const char* nvmlErrorString(abi::Return result) {
  return gpumeter::sim::return_code_text(result);
}

abi::Return nvmlSystemGetDriverVersion(char* version, unsigned length) {
  return system_call("nvmlSystemGetDriverVersion", [&](Library& library) {
    return copy_string(driver_version(library), version, length);
  });
}

// Documented to work before nvmlInit; the scenario is only known after it.
abi::Return nvmlSystemGetNVMLVersion(char* version, unsigned length) {
  return guarded("nvmlSystemGetNVMLVersion", [&] {
    Library& library = Library::instance();
    std::lock_guard lock(library.mutex());
    return copy_string(nvml_version(library), version, length);
  });
}

abi::Return nvmlSystemGetCudaDriverVersion_v2(int* version) {
  return system_call("nvmlSystemGetCudaDriverVersion_v2", [&](Library& library) {
    return store(version, cuda_driver_version(library));
  });
}

abi::Return nvmlSystemGetCudaDriverVersion(int* version) {
  return system_call("nvmlSystemGetCudaDriverVersion", [&](Library& library) {
    return store(version, cuda_driver_version(library));
  });
}

// The name is cropped to `length`, as NVIDIA documents, rather than refused.
abi::Return nvmlSystemGetProcessName(unsigned pid, char* name, unsigned length) {
  return system_call("nvmlSystemGetProcessName", [&](Library& library) {
    if (name == nullptr || length == 0) return abi::kErrorInvalidArgument;
    bool hidden = false;
    const std::optional<std::string> found = process_name(library.timeline(), pid, hidden);
    if (hidden) return abi::kErrorNoPermission;
    if (!found) return abi::kErrorNotFound;
    return copy_string(std::string_view(*found).substr(0, length - 1), name, length);
  });
}
