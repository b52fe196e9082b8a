// SPDX-License-Identifier: MIT
#include "nvml/library.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <utility>
#include <vector>

namespace gpumeter::nvml {

std::string resolve_library_path(std::string configured) {
  if (!configured.empty()) return configured;
  const char* env = std::getenv(std::string(kLibraryEnv).c_str());
  if (env != nullptr && *env != '\0') return env;
  return std::string(kDefaultLibrary);
}

std::size_t process_element_size(const Entry<abi::DeviceProcessesFn>& entry) noexcept {
  if (!entry) return 0;
  const std::string_view name = entry.symbol;
  if (name.ends_with("_v3") || name.ends_with("_v2")) return sizeof(abi::ProcessInfoV2);
  return sizeof(abi::ProcessInfoV1);
}

namespace {

// The first of names[first..] that the library exports.
template <class Fn, std::size_t N>
Entry<Fn> resolve(void* handle, const std::array<const char*, N>& names, std::size_t first) {
  for (std::size_t i = first; i < N; ++i) {
    if (void* symbol = dlsym(handle, names[i])) {
      // dlsym hands back functions as void*; POSIX guarantees the round trip.
      return {std::bit_cast<Fn*>(symbol), static_cast<int>(i), names[i]};
    }
  }
  return {};
}

EntryPoints resolve_all(void* handle) {
  EntryPoints api;
#define GPUMETER_NVML_RESOLVE(member, type, ...) \
  api.member = resolve<abi::type>(handle, SymbolNames::member, 0);
  GPUMETER_NVML_ENTRY_POINTS(GPUMETER_NVML_RESOLVE)
#undef GPUMETER_NVML_RESOLVE
  return api;
}

static_assert(SymbolNames::device_count.size() == SymbolNames::handle_by_index.size(),
              "count and handle lists must pair up position by position");

// Count and handle must be of one version; with a mismatch both take the older one. If
// the library lacks that one, the pair is left incomplete and open() reports it.
void pair_count_with_handle(void* handle, EntryPoints& api) {
  if (!api.device_count || !api.handle_by_index) return;
  if (api.device_count.found == api.handle_by_index.found) return;
  const auto older =
      static_cast<std::size_t>(std::max(api.device_count.found, api.handle_by_index.found));
  api.device_count = resolve<abi::CountFn>(handle, SymbolNames::device_count, older);
  api.handle_by_index = resolve<abi::HandleByIndexFn>(handle, SymbolNames::handle_by_index, older);
  if (api.device_count.found != api.handle_by_index.found) {
    api.device_count = {};
    api.handle_by_index = {};
  }
}

bool in_v3_stride_window(const EntryPoints& api) {
  return api.conf_compute_mem_size && !api.process_detail_list;
}

// Skips the _v3 symbol (index 0) of one process-list member.
void use_older_than_v3(void* handle, Entry<abi::DeviceProcessesFn>& entry,
                       const std::array<const char*, 3>& names) {
  if (entry.found == 0) entry = resolve<abi::DeviceProcessesFn>(handle, names, 1);
}

bool avoid_v3_stride(void* handle, EntryPoints& api) {
  if (!in_v3_stride_window(api)) return false;
  use_older_than_v3(handle, api.compute_processes, SymbolNames::compute_processes);
  use_older_than_v3(handle, api.graphics_processes, SymbolNames::graphics_processes);
  use_older_than_v3(handle, api.mps_processes, SymbolNames::mps_processes);
  return true;
}

// What an essential member lacks, for the message, e.g. "nvmlInit_v2 or nvmlInit".
std::vector<std::string> missing_essentials(const EntryPoints& api) {
  std::vector<std::string> missing;
  if (!api.init) missing.push_back(fmt::format("{}", fmt::join(SymbolNames::init, " or ")));
  if (!api.device_count || !api.handle_by_index) {
    missing.emplace_back("nvmlDeviceGetCount and nvmlDeviceGetHandleByIndex of one version");
  }
  return missing;
}

Error load_error(const std::string& path, const char* reason) {
  return {ErrorCode::library_not_found,
          fmt::format("NVML ({}) could not be loaded: {}. Is the NVIDIA driver installed? "
                      "Set {} to its path, or use --simulate.",
                      path, reason != nullptr ? reason : "unknown reason", kLibraryEnv)};
}

Error unusable_error(const std::string& path, const std::vector<std::string>& missing) {
  return {ErrorCode::library_not_found,
          fmt::format("NVML ({}) is not usable: it lacks {}. "
                      "Set {} to the driver's libnvidia-ml.so.1, or use --simulate.",
                      path, fmt::join(missing, " and "), kLibraryEnv)};
}

}  // namespace

std::expected<Library, Error> Library::open(std::string path) {
  path = resolve_library_path(std::move(path));
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return std::unexpected(load_error(path, dlerror()));
  EntryPoints api = resolve_all(handle);
  pair_count_with_handle(handle, api);
  const bool avoided = avoid_v3_stride(handle, api);
  if (auto missing = missing_essentials(api); !missing.empty()) {
    dlclose(handle);
    return std::unexpected(unusable_error(path, missing));
  }
  return Library(handle, std::move(path), api, avoided);
}

Library::Library(void* handle, std::string path, const EntryPoints& api, bool avoided_v3_stride)
    : handle_(handle), path_(std::move(path)), api_(api), avoided_v3_stride_(avoided_v3_stride) {}

Library::Library(Library&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)),
      path_(std::move(other.path_)),
      api_(std::exchange(other.api_, {})),
      avoided_v3_stride_(other.avoided_v3_stride_) {}

Library& Library::operator=(Library&& other) noexcept {
  if (this != &other) {
    close();
    handle_ = std::exchange(other.handle_, nullptr);
    path_ = std::move(other.path_);
    api_ = std::exchange(other.api_, {});
    avoided_v3_stride_ = other.avoided_v3_stride_;
  }
  return *this;
}

Library::~Library() {
  close();
}

void Library::close() noexcept {
  if (handle_ != nullptr) dlclose(std::exchange(handle_, nullptr));
}

}  // namespace gpumeter::nvml
