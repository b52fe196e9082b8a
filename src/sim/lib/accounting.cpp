// SPDX-License-Identifier: MIT
// Accounting: lifetime averages per process, kept after the process exits until the
// driver's circular buffer wraps. The mode starts as the scenario says; a privileged caller
// may change it and clear the records of exited processes (accounting_state.h).
//
// With the mode disabled, driver 580.159.04 (H200) answers the buffer size, an empty pid
// list (INSUFFICIENT_SIZE with count 0 to a NULL buffer, SUCCESS with 0 to a buffer) and
// NOT_FOUND for any pid's stats, rather than the NOT_SUPPORTED its header documents: the
// simulator does the same.

#include <algorithm>
#include <cmath>

#include "sim/lib/call.h"
#include "sim/lib/exports.h"

namespace gpumeter::sim::lib {
namespace {

// The mode's changes, read again: another process may have changed them.
AccountingChange change_of(const DeviceCall& call) {
  call.library.accounting_state().refresh();
  return call.library.accounting_state().of(call.spec.uuid);
}

// MIG forces the mode off whatever was asked for.
bool enabled(const DeviceCall& call, const AccountingChange& change) {
  return !mig_enabled(call.spec) && change.enabled.value_or(call.spec.accounting_enabled);
}

std::int64_t absolute_us(const DeviceCall& call, double t) {
  return call.library.epoch_us() + std::llround(t * 1e6);
}

// Less the records that a re-enabled mode or a clear removed.
void erase_removed(const DeviceCall& call, const AccountingChange& change,
                   std::vector<AccountingRecord>& records) {
  std::erase_if(records, [&](const AccountingRecord& r) {
    const std::int64_t start = absolute_us(call, r.start_s);
    const std::int64_t end = start + static_cast<std::int64_t>(r.time_ms) * 1000;
    const bool before_enabled = start < change.enabled_at_us;
    const bool cleared = !r.running && end <= change.cleared_at_us;
    return before_enabled || cleared;
  });
}

// The buffer's records, less those that a re-enabled mode or a clear removed; none while
// the mode is off.
std::vector<AccountingRecord> records_of(const DeviceCall& call, const AccountingChange& change) {
  if (!enabled(call, change)) return {};
  auto records = call.timeline().accounting(call.index, call.t());
  erase_removed(call, change, records);
  return records;
}

// records_of(), only those of `pid`.
std::vector<AccountingRecord> records_of(const DeviceCall& call, const AccountingChange& change,
                                         std::uint32_t pid) {
  if (!enabled(call, change)) return {};
  auto records = call.timeline().accounting_of(call.index, call.t(), pid);
  erase_removed(call, change, records);
  return records;
}

// Accounting calls need the feature (not the mode: see above).
template <class Body>
abi::Return accounting_call(const char* function, abi::Device device, Body&& body) {
  return device_call(function, device, Feature::accounting,
                     [&](const DeviceCall& call) { return body(call, change_of(call)); });
}

// Root-only calls: NO_PERMISSION first, then MIG's refusal.
template <class Body>
abi::Return privileged_call(const char* function, abi::Device device, Body&& body) {
  return device_call(function, device, Feature::accounting, [&](const DeviceCall& call) {
    if (!call.library.caller_privileged()) return abi::kErrorNoPermission;
    if (mig_enabled(call.spec)) return abi::kErrorNotSupported;
    return body(call, change_of(call));
  });
}

abi::Return save(const DeviceCall& call, const AccountingChange& change) {
  if (call.library.accounting_state().set(call.spec.uuid, change)) return abi::kSuccess;
  call.library.report(std::string(kStateVariable) + ": the state file could not be written");
  return abi::kErrorUnknown;
}

abi::AccountingStats stats_of(const DeviceCall& call, const AccountingRecord& r) {
  abi::AccountingStats stats{};
  stats.gpu_utilization = r.gpu_utilization;
  stats.memory_utilization = r.memory_utilization;
  stats.max_memory_usage = r.max_memory_bytes;
  stats.time = r.time_ms;
  stats.start_time = static_cast<std::uint64_t>(absolute_us(call, r.start_s));
  stats.is_running = r.running ? 1 : 0;
  return stats;
}

}  // namespace
}  // namespace gpumeter::sim::lib

using namespace gpumeter::sim;       // NOLINT(google-build-using-namespace): C entry points
using namespace gpumeter::sim::lib;  // NOLINT(google-build-using-namespace)

abi::Return nvmlDeviceGetAccountingMode(abi::Device device, unsigned* mode) {
  return device_call("nvmlDeviceGetAccountingMode", device, Feature::accounting,
                     [&](const DeviceCall& call) {
                       const bool on = enabled(call, change_of(call));
                       return store(mode, on ? abi::kFeatureEnabled : abi::kFeatureDisabled);
                     });
}

abi::Return nvmlDeviceGetAccountingBufferSize(abi::Device device, unsigned* size) {
  return accounting_call("nvmlDeviceGetAccountingBufferSize", device,
                         [&](const DeviceCall& call, const AccountingChange&) {
                           return store(size, call.spec.accounting_buffer_size);
                         });
}

abi::Return nvmlDeviceGetAccountingPids(abi::Device device, unsigned* count, unsigned* pids) {
  return accounting_call("nvmlDeviceGetAccountingPids", device,
                         [&](const DeviceCall& call, const AccountingChange& change) {
                           if (count == nullptr) return abi::kErrorInvalidArgument;
                           const auto records = records_of(call, change);
                           const auto need = static_cast<unsigned>(records.size());
                           if (*count < need || pids == nullptr) {
                             *count = need;
                             return abi::kErrorInsufficientSize;
                           }
                           std::ranges::transform(records, pids, &AccountingRecord::pid);
                           *count = need;
                           return abi::kSuccess;
                         });
}

// On pid reuse the newest record wins, as the driver keeps only the last process.
abi::Return nvmlDeviceGetAccountingStats(abi::Device device, unsigned pid,
                                         abi::AccountingStats* stats) {
  return accounting_call("nvmlDeviceGetAccountingStats", device,
                         [&](const DeviceCall& call, const AccountingChange& change) {
                           if (stats == nullptr) return abi::kErrorInvalidArgument;
                           const auto records = records_of(call, change, pid);
                           if (records.empty()) return abi::kErrorNotFound;
                           *stats = stats_of(call, records.back());
                           return abi::kSuccess;
                         });
}

// Enabling starts an empty buffer: processes that started before are not accounted.
// Disabling drops every record. Setting the mode it already has changes nothing.
abi::Return nvmlDeviceSetAccountingMode(abi::Device device, abi::EnableState mode) {
  return privileged_call("nvmlDeviceSetAccountingMode", device,
                         [&](const DeviceCall& call, AccountingChange change) {
                           if (mode != abi::kFeatureEnabled && mode != abi::kFeatureDisabled)
                             return abi::kErrorInvalidArgument;
                           const bool on = mode == abi::kFeatureEnabled;
                           if (enabled(call, change) == on) return abi::kSuccess;
                           change.enabled = on;
                           change.enabled_at_us = on ? absolute_us(call, call.t()) : 0;
                           change.cleared_at_us = 0;
                           return save(call, change);
                         });
}

// Removes the records of processes that have exited; running ones stay.
abi::Return nvmlDeviceClearAccountingPids(abi::Device device) {
  return privileged_call("nvmlDeviceClearAccountingPids", device,
                         [&](const DeviceCall& call, AccountingChange change) {
                           if (!enabled(call, change)) return abi::kErrorNotSupported;
                           change.cleared_at_us = absolute_us(call, call.t());
                           return save(call, change);
                         });
}
