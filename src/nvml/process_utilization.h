// SPDX-License-Identifier: MIT
// Draining a device's per-process utilisation samples.
//
// Internal to src/nvml/. Separate from the device reader so that both sizing protocols and
// the lastSeenTimeStamp handling can be tested with fake entry points.
#pragma once

#include <optional>
#include <vector>

#include "core/source.h"
#include "nvml/device_query.h"

namespace gpumeter::nvml {

// Attempts at sizing the sample array before giving up with Unavailable::error.
inline constexpr int kUtilizationAttempts = 4;
// Elements allocated beyond the count the driver asked for, as samples keep arriving.
inline constexpr unsigned kUtilizationSlack = 16;
// A count beyond this is taken for a broken driver, not allocated.
inline constexpr unsigned kUtilizationMaxSamples = 1U << 20;

// The samples newer than `last_seen_us` (everything buffered when absent), oldest first as
// the driver returns them.
//  - Prefers nvmlDeviceGetProcessesUtilizationInfo (with JPEG and OFA): sizing with a NULL
//    array, whose INSUFFICIENT_SIZE answer carries the count needed. Falls back to
//    nvmlDeviceGetProcessUtilization when the newer call is absent or not understood
//    (means_try_older_call); that one's NULL-buffer answer carries a capacity instead.
//    Either way the array gets some slack, and is resized while the driver says it is short.
//  - NOT_FOUND ("no sample is newer") is an empty vector, not an error.
//  - Samples at or before `last_seen_us` are dropped: drivers return such junk for zombie
//    processes. Values are not clamped (the series does that).
// Errors: not_supported (no such call, or MIG), gpu_lost, no_permission, error (any other
// code, or the array never became large enough).
Maybe<std::vector<PidGpuSample>> read_process_utilization(DeviceQuery& query,
                                                          std::optional<TimeUs> last_seen_us);

}  // namespace gpumeter::nvml
