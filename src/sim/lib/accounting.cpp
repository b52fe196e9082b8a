// Accounting: lifetime averages per process, kept after the process exits until the
// driver's circular buffer wraps.
#include <algorithm>
#include <cmath>
#include <ranges>

#include "sim/lib/call.h"
#include "sim/lib/exports.h"

namespace gpumeter::sim::lib {
namespace {

// A MIG-enabled GPU forces accounting off, whatever its scenario says.
bool accounting_on(const DeviceSpec& spec) {
  return spec.accounting_enabled && !mig_enabled(spec);
}

// Accounting calls need the feature and the mode enabled.
template <class Body>
abi::Return accounting_call(const char* function, abi::Device device, Body&& body) {
  return device_call(function, device, Feature::accounting, [&](const DeviceCall& call) {
    if (!accounting_on(call.spec)) return abi::kErrorNotSupported;
    return body(call);
  });
}

abi::AccountingStats stats_of(const DeviceCall& call, const AccountingRecord& r) {
  abi::AccountingStats stats{};
  stats.gpu_utilization = r.gpu_utilization;
  stats.memory_utilization = r.memory_utilization;
  stats.max_memory_usage = r.max_memory_bytes;
  stats.time = r.time_ms;
  stats.start_time =
      static_cast<std::uint64_t>(call.library.epoch_us() + std::llround(r.start_s * 1e6));
  stats.is_running = r.running ? 1 : 0;
  return stats;
}

}  // namespace
}  // namespace gpumeter::sim::lib

using namespace gpumeter::sim;       // NOLINT(google-build-using-namespace): C entry points
using namespace gpumeter::sim::lib;  // NOLINT(google-build-using-namespace)

abi::Return nvmlDeviceGetAccountingMode(abi::Device device, unsigned* mode) {
  return device_call(
      "nvmlDeviceGetAccountingMode", device, Feature::accounting, [&](const DeviceCall& call) {
        return store(mode, accounting_on(call.spec) ? abi::kFeatureEnabled : abi::kFeatureDisabled);
      });
}

abi::Return nvmlDeviceGetAccountingBufferSize(abi::Device device, unsigned* size) {
  return accounting_call("nvmlDeviceGetAccountingBufferSize", device, [&](const DeviceCall& call) {
    return store(size, call.spec.accounting_buffer_size);
  });
}

abi::Return nvmlDeviceGetAccountingPids(abi::Device device, unsigned* count, unsigned* pids) {
  return accounting_call("nvmlDeviceGetAccountingPids", device, [&](const DeviceCall& call) {
    if (count == nullptr) return abi::kErrorInvalidArgument;
    const auto records = call.timeline().accounting(call.index, call.t());
    const auto need = static_cast<unsigned>(records.size());
    if (*count < need) {
      *count = need;
      return abi::kErrorInsufficientSize;
    }
    if (need > 0 && pids == nullptr) return abi::kErrorInvalidArgument;
    std::ranges::transform(records, pids, &AccountingRecord::pid);
    *count = need;
    return abi::kSuccess;
  });
}

// On pid reuse the newest record wins, as the driver keeps only the last process.
abi::Return nvmlDeviceGetAccountingStats(abi::Device device, unsigned pid,
                                         abi::AccountingStats* stats) {
  return accounting_call("nvmlDeviceGetAccountingStats", device, [&](const DeviceCall& call) {
    if (stats == nullptr) return abi::kErrorInvalidArgument;
    const auto records = call.timeline().accounting(call.index, call.t());
    const auto newest =
        std::ranges::find(records | std::views::reverse, pid, &AccountingRecord::pid);
    if (newest == (records | std::views::reverse).end()) return abi::kErrorNotFound;
    *stats = stats_of(call, *newest);
    return abi::kSuccess;
  });
}
