// SPDX-License-Identifier: MIT
// How every entry point runs: under the library's lock, with the checks every NVML call
// makes in the same order (initialised, valid handle, GPU not lost, scripted fault, feature
// supported), and with no C++ exception ever crossing the C ABI.
#pragma once

#include <exception>
#include <optional>
#include <string>
#include <utility>

#include "sim/features.h"
#include "sim/lib/library.h"

namespace gpumeter::sim::lib {

// What a device call's body gets to work with.
struct DeviceCall {
  Library& library;
  std::size_t index;
  const DeviceSpec& spec;
  SimUs now;                             // µs since the epoch
  const MigInstanceSpec* mig = nullptr;  // set when the handle is a MIG handle of this GPU

  const Timeline& timeline() const { return library.timeline(); }
  double t() const { return seconds(now); }

  // A caller's lastSeenTimeStamp (µs since the Unix epoch) in scenario time; -1 when it is
  // before the scenario began, so that every sample is newer.
  SimUs scenario_time(std::uint64_t last_seen) const {
    if (last_seen <= static_cast<std::uint64_t>(library.epoch_us())) return -1;
    return static_cast<SimUs>(last_seen) - library.epoch_us();
  }
  // A scenario time as the driver's sample stamps give it (µs since the Unix epoch).
  std::uint64_t stamp(SimUs time) const {
    return static_cast<std::uint64_t>(library.epoch_us() + time);
  }
};

// Runs `body`, turning an escaping exception into UNKNOWN (and one line on stderr).
template <class Body>
abi::Return guarded(const char* function, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::exception& e) {
    Library::instance().report(std::string(function) + ": internal error: " + e.what());
  } catch (...) {
    Library::instance().report(std::string(function) + ": internal error");
  }
  return abi::kErrorUnknown;
}

// A call that needs an initialised library but no device.
template <class Body>
abi::Return system_call(const char* function, Body&& body) noexcept {
  return guarded(function, [&] {
    Library& library = Library::instance();
    std::lock_guard lock(library.mutex());
    if (!library.initialized()) return abi::kErrorUninitialized;
    library.refresh_pids();
    library.log_call(function);
    library.charge(function);
    if (auto fault = library.flaky(function, std::nullopt)) return *fault;
    return body(library);
  });
}

// A call on one device (or, with `allow_mig`, on a MIG handle, for which the body sees the
// parent GPU and DeviceCall::mig); `feature` is what the GPU must support for the call to
// succeed. A MIG handle where none is expected is NOT_SUPPORTED, as on real drivers.
template <class Body>
abi::Return any_device_call(const char* function, abi::Device device,
                            std::optional<Feature> feature, bool allow_mig, Body&& body) noexcept {
  return guarded(function, [&] {
    Library& library = Library::instance();
    std::lock_guard lock(library.mutex());
    if (!library.initialized()) return abi::kErrorUninitialized;
    library.refresh_pids();
    library.log_call(function);
    library.charge(function);
    const std::optional<MigRef> mig = library.mig_of(device);
    if (mig && !allow_mig) return abi::kErrorNotSupported;
    const std::optional<std::size_t> index = mig ? mig->device : library.index_of(device);
    if (!index) return abi::kErrorInvalidArgument;
    const SimUs now = library.now();
    if (library.timeline().lost(*index, seconds(now))) return abi::kErrorGpuIsLost;
    if (auto fault = library.flaky(function, index)) return *fault;
    const DeviceSpec& spec = library.scenario().devices[*index];
    if (feature && !spec.supports(*feature)) return abi::kErrorNotSupported;
    return body(DeviceCall{library, *index, spec, now, mig ? mig->instance : nullptr});
  });
}

template <class Body>
abi::Return device_call(const char* function, abi::Device device, std::optional<Feature> feature,
                        Body&& body) noexcept {
  return any_device_call(function, device, feature, false, std::forward<Body>(body));
}

// A call that also answers for MIG handles (memory, processes, identity, GPM).
template <class Body>
abi::Return mig_aware_call(const char* function, abi::Device device, std::optional<Feature> feature,
                           Body&& body) noexcept {
  return any_device_call(function, device, feature, true, std::forward<Body>(body));
}

// Stores `value` through a caller's pointer; INVALID_ARGUMENT for NULL.
template <class T, class V>
abi::Return store(T* out, V value) {
  if (out == nullptr) return abi::kErrorInvalidArgument;
  *out = static_cast<T>(value);
  return abi::kSuccess;
}

// Whether a process runs in this MIG instance.
inline bool runs_on(const ProcessSpec& process, const MigInstanceSpec& instance) {
  return process.mig && process.mig->gpu_instance == instance.gpu_instance &&
         process.mig->compute_instance == instance.compute_instance;
}

// Bytes the processes of a MIG instance use at the call's time.
std::uint64_t mig_memory_used(const DeviceCall& call);

// Copies `text` and its NUL into a caller's buffer of `length` bytes; INSUFFICIENT_SIZE
// when it does not fit.
abi::Return copy_string(std::string_view text, char* out, unsigned length);

}  // namespace gpumeter::sim::lib
