// SPDX-License-Identifier: MIT
// Reading one of NVML's running-process lists (compute, graphics or MPS).
//
// Internal to src/nvml/. Separate from the device reader so that the sizing protocol and
// the stride guard can be tested with fake entry points.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/model.h"
#include "nvml/device_query.h"
#include "nvml/library.h"

namespace gpumeter::nvml {

// One element of a process list, decoded.
struct ListedProcess {
  Pid pid = 0;
  Maybe<std::uint64_t> used_memory_bytes;  // not_supported when the driver says "N/A"
  std::optional<MigInstance> mig;          // absent without MIG or with v1 (16-byte) entries
};

// Attempts at sizing a list before giving up with Unavailable::error (it kept growing).
inline constexpr int kProcessListAttempts = 4;
// Elements allocated beyond the count the driver asked for, as the list may grow.
inline constexpr unsigned kProcessListSlack = 8;

// Reads the list with NVML's sizing protocol: call with count 0 (SUCCESS: empty;
// INSUFFICIENT_SIZE: the count needed), then with room for the need plus slack, again when
// the list grew meanwhile, at most kProcessListAttempts times.
// The element size comes from the resolved symbol (process_element_size). The buffer is
// prefilled with a sentinel byte; if the driver wrote past count * element size, or did
// not reach the last element, it uses another layout than assumed and the result is
// Unavailable::error instead of garbage.
// Errors: the reason for the failing code (not_supported when the entry is absent).
Maybe<std::vector<ListedProcess>> read_process_list(DeviceQuery& query,
                                                    const Entry<abi::DeviceProcessesFn>& entry);

}  // namespace gpumeter::nvml
