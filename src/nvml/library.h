// SPDX-License-Identifier: MIT
// The NVML loader: dlopen of libnvidia-ml.so.1 (or the simulator) and one table of function
// pointers generated from GPUMETER_NVML_ENTRY_POINTS (entry_points.h).
//
// Internal to src/nvml/: the table carries NVML's own types. Only the backend uses it.
#pragma once

#include <array>
#include <cstddef>
#include <expected>
#include <string>
#include <string_view>

#include "core/error.h"
#include "nvml/abi.h"
#include "nvml/entry_points.h"

namespace gpumeter::nvml {

// One resolved entry point. `fn` is null when none of the member's symbols exists: the
// feature is unavailable on this driver, which is never an error by itself.
template <class Fn>
struct Entry {
  Fn* fn = nullptr;
  int found = -1;                // index into the member's fallback list; -1 when absent
  const char* symbol = nullptr;  // the name that was found (a string literal), or null

  explicit operator bool() const noexcept { return fn != nullptr; }
};

// The candidate symbols of every member, in order of preference, as listed in
// entry_points.h: SymbolNames::compute_processes[1] is
// "nvmlDeviceGetComputeRunningProcesses_v2".
struct SymbolNames {
#define GPUMETER_NVML_NAMES(member, type, ...) \
  static constexpr auto member = std::to_array<const char*>({__VA_ARGS__});
  GPUMETER_NVML_ENTRY_POINTS(GPUMETER_NVML_NAMES)
#undef GPUMETER_NVML_NAMES
};

// Every entry point, one member per row of GPUMETER_NVML_ENTRY_POINTS.
struct EntryPoints {
#define GPUMETER_NVML_MEMBER(member, type, ...) Entry<abi::type> member;
  GPUMETER_NVML_ENTRY_POINTS(GPUMETER_NVML_MEMBER)
#undef GPUMETER_NVML_MEMBER
};

// Environment variable that names the library when no path is configured.
inline constexpr std::string_view kLibraryEnv = "GPUMETER_NVML_LIBRARY";
// The driver's soname, used when neither a path nor the environment names one.
inline constexpr std::string_view kDefaultLibrary = "libnvidia-ml.so.1";

// The path that Library::open uses: `configured` if not empty, else $GPUMETER_NVML_LIBRARY
// if set and not empty, else "libnvidia-ml.so.1".
std::string resolve_library_path(std::string configured);

// Bytes per element that a process-list entry (compute/graphics/MPS processes) writes:
// 24 for the _v3 and _v2 symbols, 16 for the unsuffixed one, 0 when the entry is absent.
// (The 32-byte _v3 of drivers 535.43.02-535.86.05 is never selected: see Library.)
std::size_t process_element_size(const Entry<abi::DeviceProcessesFn>& entry) noexcept;

// A loaded NVML library. Move-only; the destructor dlcloses it (NVML must be shut down
// by then: the backend owns that). Does not call nvmlInit.
//
// Symbol policy:
//  - every member takes the first symbol of its list that dlsym finds;
//  - nvmlInit and the device count/handle-by-index pair are essential: without them open()
//    fails. Count and handle always come from the same version (a v1 count skips devices
//    that a v2 index lookup includes), so a mismatched pair is re-resolved at the older one;
//  - drivers 535.43.02-535.86.05 write 32-byte elements from the _v3 process calls. They
//    are recognised, as nvitop does, by exporting nvmlDeviceGetConfComputeMemSizeInfo
//    without nvmlDeviceGetRunningProcessDetailList; there the process members use _v2.
class Library {
 public:
  // Loads `path` (resolved with resolve_library_path) with RTLD_NOW | RTLD_LOCAL.
  // Errors: ErrorCode::library_not_found when dlopen fails (one line naming the library,
  // dlerror's reason and what to do) or when an essential symbol is missing.
  static std::expected<Library, Error> open(std::string path);

  Library(Library&& other) noexcept;
  Library& operator=(Library&& other) noexcept;
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;
  ~Library();

  const EntryPoints& api() const noexcept { return api_; }
  // The path or soname as given to dlopen.
  const std::string& path() const noexcept { return path_; }
  // True when the 535.43.02-535.86.05 process-list stride was detected and avoided.
  bool avoided_v3_stride() const noexcept { return avoided_v3_stride_; }

 private:
  Library(void* handle, std::string path, const EntryPoints& api, bool avoided_v3_stride);
  void close() noexcept;

  void* handle_ = nullptr;
  std::string path_;
  EntryPoints api_;
  bool avoided_v3_stride_ = false;
};

}  // namespace gpumeter::nvml
