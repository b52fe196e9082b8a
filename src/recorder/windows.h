// SPDX-License-Identifier: MIT
// How the recorder cuts time into the windows it records: at every multiple of the record
// interval and at every minute, both on the Unix epoch, so that each process interval lies
// within one minute and the store's per-minute figures are exact (docs/store.md).
#pragma once

#include <vector>

#include "core/attribution.h"

namespace gpumeter::recorder {

// The first multiple of `step_us` after `t`. Precondition: step_us > 0.
TimeUs next_multiple(TimeUs t, TimeUs step_us);
// The last multiple of `step_us` at or before `t`. Precondition: step_us > 0.
TimeUs floor_multiple(TimeUs t, TimeUs step_us);

// [from, until) cut at every multiple of `interval_us` and of a minute inside it, in time
// order; none when until <= from. Precondition: interval_us > 0.
std::vector<Window> record_windows(TimeUs from, TimeUs until, TimeUs interval_us);

}  // namespace gpumeter::recorder
