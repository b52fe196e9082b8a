// SPDX-License-Identifier: MIT
// Event sets: the scenario's XID faults ("faults": {"xid": [...]}) delivered to the sets that
// registered the GPU for XID events before the fault's time, one per nvmlEventSetWait_v2, in
// time order. Only XID events are modelled (nvmlDeviceGetSupportedEventTypes says so).
#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <thread>

#include "sim/lib/call.h"
#include "sim/lib/exports.h"

// What a set holds: when each GPU was registered, and how far through the scenario's XID
// faults (sorted by time) it has read.
struct gpumeter::nvml::abi::EventSetOpaque {
  std::map<std::size_t, gpumeter::sim::SimUs> registered_at;  // by device index
  std::size_t next_fault = 0;
};

namespace gpumeter::sim::lib {
namespace {

// Sets this library created and has not freed (under the library's lock).
std::set<abi::EventSet>& live_sets() {
  static std::set<abi::EventSet> sets;
  return sets;
}

struct Outcome {
  abi::Return code = abi::kErrorTimeout;
  std::optional<SimUs> next_at;  // when the set's next event falls due, if any is scripted
};

// Takes the set's next due event into `data`; faults on GPUs the set did not register before
// the fault's time are passed over, as a driver never reports them to it.
Outcome take_next(Library& library, abi::EventSet set, abi::EventData* data) {
  const std::vector<XidFault>& faults = library.scenario().faults.xid;
  const SimUs now = library.now();
  while (set->next_fault < faults.size()) {
    const XidFault& fault = faults[set->next_fault];
    const auto at = static_cast<SimUs>(fault.at_s * 1e6);
    if (at > now) return Outcome{abi::kErrorTimeout, at};
    ++set->next_fault;
    const auto registered = set->registered_at.find(fault.device);
    if (registered == set->registered_at.end() || registered->second > at) continue;
    *data = abi::EventData{library.handle(fault.device), abi::kEventTypeXidCriticalError,
                           fault.code, abi::kValueNotAvailableU32, abi::kValueNotAvailableU32};
    return Outcome{abi::kSuccess, std::nullopt};
  }
  return Outcome{};
}

}  // namespace
}  // namespace gpumeter::sim::lib

using namespace gpumeter::sim;       // NOLINT(google-build-using-namespace): C entry points
using namespace gpumeter::sim::lib;  // NOLINT(google-build-using-namespace)

abi::Return nvmlEventSetCreate(abi::EventSet* set) {
  return system_call("nvmlEventSetCreate", [&](Library&) {
    if (set == nullptr) return abi::kErrorInvalidArgument;
    *set = new abi::EventSetOpaque{};  // NOLINT(cppcoreguidelines-owning-memory): C ABI
    live_sets().insert(*set);
    return abi::kSuccess;
  });
}

abi::Return nvmlEventSetFree(abi::EventSet set) {
  return system_call("nvmlEventSetFree", [&](Library&) {
    if (live_sets().erase(set) == 0) return abi::kErrorInvalidArgument;
    delete set;  // NOLINT(cppcoreguidelines-owning-memory): allocated by nvmlEventSetCreate
    return abi::kSuccess;
  });
}

abi::Return nvmlDeviceGetSupportedEventTypes(abi::Device device, std::uint64_t* types) {
  return device_call(
      "nvmlDeviceGetSupportedEventTypes", device, Feature::events,
      [&](const DeviceCall&) { return store(types, abi::kEventTypeXidCriticalError); });
}

// Registering for a type the simulator does not model is NOT_SUPPORTED, as a driver answers
// for a type the board lacks; the XID bit among others registers.
abi::Return nvmlDeviceRegisterEvents(abi::Device device, unsigned long long types,
                                     abi::EventSet set) {
  return device_call("nvmlDeviceRegisterEvents", device, Feature::events,
                     [&](const DeviceCall& call) {
                       if (!live_sets().contains(set)) return abi::kErrorInvalidArgument;
                       if ((types & abi::kEventTypeXidCriticalError) == 0)
                         return abi::kErrorNotSupported;
                       set->registered_at.try_emplace(call.index, call.now);
                       return abi::kSuccess;
                     });
}

// With a timeout, waits (without the library's lock) until the next scripted event falls due
// or the timeout passes, whichever is first, and looks once more.
abi::Return nvmlEventSetWait_v2(abi::EventSet set, abi::EventData* data, unsigned timeout_ms) {
  Outcome outcome;
  const abi::Return code = system_call("nvmlEventSetWait_v2", [&](Library& library) {
    if (!live_sets().contains(set) || data == nullptr) return abi::kErrorInvalidArgument;
    outcome = take_next(library, set, data);
    return outcome.code;
  });
  if (code != abi::kErrorTimeout || timeout_ms == 0) return code;
  return guarded("nvmlEventSetWait_v2", [&] {
    Library& library = Library::instance();
    auto wait = std::chrono::milliseconds(timeout_ms);
    if (outcome.next_at) {
      std::lock_guard lock(library.mutex());
      const auto due =
          std::chrono::microseconds(std::max<SimUs>(0, *outcome.next_at - library.now()));
      wait = std::min(wait, std::chrono::ceil<std::chrono::milliseconds>(due));
    }
    std::this_thread::sleep_for(wait);
    std::lock_guard lock(library.mutex());
    if (!library.initialized() || !live_sets().contains(set)) return abi::kErrorUninitialized;
    return take_next(library, set, data).code;
  });
}
