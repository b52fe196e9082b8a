// SPDX-License-Identifier: MIT
// How long a process held GPU memory on one GPU within a window: the GPU-seconds of the
// history's ledger (docs/store.md). Read from the change-only memory step function the series
// keep (core/memory_series.h). Pure arithmetic, no I/O.
#pragma once

#include <cstdint>
#include <optional>

#include "core/attribution.h"
#include "core/process_key.h"
#include "core/series.h"

namespace gpumeter {

struct HeldTime {
  // Seconds within the window during which the process held more than 0 bytes.
  double seconds = 0.0;
  // The first and the last instant of holding within the window; absent when it held nothing.
  std::optional<TimeUs> first_us;
  std::optional<TimeUs> last_us;
};

// The time `key` held memory on `device` (DeviceIdentity::index) within `window`. The amount at
// t is the last stored sample at or before t (the sampler stores 0 once when a process leaves
// the GPU's process list); it is known from the first stored sample until the process was last
// read, and nothing is counted outside that span: not before the process was first seen, and
// not after its last reading, where the sampler has not caught up (or the amount could no
// longer be read). Nothing when the series hold nothing of the process on that device.
HeldTime held_time(const Series& series, const ProcessKey& key, std::uint32_t device,
                   Window window);

}  // namespace gpumeter
