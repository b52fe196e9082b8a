// SPDX-License-Identifier: MIT
// Draining a device's sample buffers (nvmlDeviceGetSamples): power and GPU utilisation, one
// entry per driver sample period.
//
// Internal to src/nvml/. Separate from the backend so that the sizing protocol and the
// lastSeenTimeStamp handling can be tested against the simulated library.
#pragma once

#include <optional>
#include <vector>

#include "core/source.h"
#include "nvml/device_query.h"

namespace gpumeter::nvml {

// Entries allocated beyond the count the sizing call answered, as samples keep arriving.
inline constexpr unsigned kDeviceSampleSlack = 8;
// A count beyond this is taken for a broken driver, not allocated.
inline constexpr unsigned kDeviceSampleMaxCount = 1U << 20;

// The entries of `buffer` newer than `last_seen_us` (the whole buffer when absent), oldest
// first, in the model's units: power in W (the driver reports mW), utilisation in percent.
// Each value is read as the type the driver says it filled.
//  - Sizing: a NULL array answers SUCCESS with the number of entries; the array then gets some
//    slack, and the driver fills up to its size (entries past it wait for the next drain).
//  - NOT_FOUND ("no entry is newer") is an empty vector, not an error.
//  - Entries at or before `last_seen_us` are dropped, should the driver return any.
// Errors: not_supported (no such call or buffer, MIG for utilisation), gpu_lost,
// no_permission, error (any other code, or an absurd count).
Maybe<std::vector<BufferedSample>> read_device_samples(DeviceQuery& query, DeviceBuffer buffer,
                                                       std::optional<TimeUs> last_seen_us);

}  // namespace gpumeter::nvml
