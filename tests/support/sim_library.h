// SPDX-License-Identifier: MIT
// Opens a build of the simulated libnvidia-ml.so.1 with dlopen, as gpumeter's loader and
// NVIDIA's bindings do, and runs NVML sessions against it with a pinned clock.
//
// Each variant is opened once per test process (by path, RTLD_LOCAL) and never closed; the
// three variants are distinct files, so glibc keeps three independent copies even though
// they share one SONAME.
#pragma once

#include <dlfcn.h>
#include <stdlib.h>  // setenv, unsetenv: POSIX

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

#include "nvml/abi.h"

namespace gpumeter::sim::testing {

namespace abi = nvml::abi;

// A fixed epoch (2023-11-14, µs), so that every time stamp in a test is predictable.
inline constexpr std::int64_t kEpochUs = 1'700'000'000'000'000;

class SimLibrary {
 public:
  // variant: "sim", "sim-r535-cc" or "sim-legacy".
  static SimLibrary& open(const std::string& variant) {
    static std::map<std::string, SimLibrary> libraries;
    auto it = libraries.find(variant);
    if (it == libraries.end()) it = libraries.emplace(variant, SimLibrary(variant)).first;
    return it->second;
  }

  bool exports(const char* symbol) const { return dlsym(handle_, symbol) != nullptr; }

  // The entry point `symbol`, as a pointer of the given signature; throws if absent.
  template <class Fn>
  Fn* fn(const char* symbol) const {
    void* address = dlsym(handle_, symbol);
    if (address == nullptr) throw std::runtime_error(std::string("not exported: ") + symbol);
    return reinterpret_cast<Fn*>(address);
  }

 private:
  explicit SimLibrary(const std::string& variant) {
    const auto path =
        std::filesystem::path(GPUMETER_TEST_LIBRARY_ROOT) / variant / "libnvidia-ml.so.1";
    handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle_ == nullptr) throw std::runtime_error(dlerror());
  }

  void* handle_ = nullptr;
};

// Sets the simulator's environment: the scenario, the epoch, and a frozen "now".
inline void set_clock(std::int64_t now_us) {
  setenv("GPUMETER_SIM_NOW_US", std::to_string(now_us).c_str(), 1);
}

inline void set_environment(const std::filesystem::path& scenario, double t_seconds) {
  setenv("GPUMETER_SIM_SCENARIO", scenario.c_str(), 1);
  setenv("GPUMETER_SIM_EPOCH_US", std::to_string(kEpochUs).c_str(), 1);
  set_clock(kEpochUs + static_cast<std::int64_t>(t_seconds * 1e6));
}

// One nvmlInit_v2 ... nvmlShutdown on a library, at scenario time t (frozen until moved).
class Session {
 public:
  Session(SimLibrary& library, const std::filesystem::path& scenario, double t_seconds = 100)
      : library_(library) {
    set_environment(scenario, t_seconds);
    init_result_ = library_.fn<abi::InitFn>("nvmlInit_v2")();
  }
  ~Session() {
    if (init_result_ == abi::kSuccess) library_.fn<abi::ShutdownFn>("nvmlShutdown")();
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  abi::Return init_result() const { return init_result_; }
  void at(double t_seconds) const {
    set_clock(kEpochUs + static_cast<std::int64_t>(t_seconds * 1e6));
  }

  abi::Device device(unsigned index) const {
    abi::Device handle = nullptr;
    library_.fn<abi::HandleByIndexFn>("nvmlDeviceGetHandleByIndex_v2")(index, &handle);
    return handle;
  }

  template <class Fn>
  Fn* fn(const char* symbol) const {
    return library_.fn<Fn>(symbol);
  }

 private:
  SimLibrary& library_;
  abi::Return init_result_ = abi::kErrorUninitialized;
};

}  // namespace gpumeter::sim::testing
