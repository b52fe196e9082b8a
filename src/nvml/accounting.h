// SPDX-License-Identifier: MIT
// Accounting mode through NVML: the mode, the buffer's size and its records, read into the
// model; and the two root-only calls that change them.
//
// Internal to src/nvml/; the backend calls these on each device.
#pragma once

#include <expected>

#include "core/accounting.h"
#include "nvml/accounting_cache.h"
#include "nvml/device_query.h"

namespace gpumeter::nvml {

// Attempts at sizing the pid list before giving up with Unavailable::error.
inline constexpr int kAccountingPidAttempts = 4;

// The mode, the buffer size, and while the mode is enabled every record (oldest first). A pid
// that left the buffer between the pid list and its stats is skipped. Errors: the reason the
// mode could not be read (not_supported without accounting, gpu_lost, ...); a failing record
// list or buffer size makes only that member absent.
//
// With a `cache` (the GPU's own, kept from read to read), exited records read before are
// taken from it instead of asking the driver again (nvml/accounting_cache.h); the records are
// the same. Without one, every listed pid is asked about.
Maybe<Accounting> read_accounting(DeviceQuery& query, AccountingCache* cache = nullptr);

// nvmlDeviceSetAccountingMode / nvmlDeviceClearAccountingPids. NO_PERMISSION becomes
// needs_root; a refusal on a GPU whose MIG mode reads enabled becomes mig_enabled.
std::expected<void, AccountingRefusal> set_accounting_mode(DeviceQuery& query, bool enabled);
std::expected<void, AccountingRefusal> clear_accounting(DeviceQuery& query);

}  // namespace gpumeter::nvml
