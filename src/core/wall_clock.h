// SPDX-License-Identifier: MIT
// The wall clock in the model's unit: every "now" of gpumeter's own comes from here.
#pragma once

#include "core/model.h"

namespace gpumeter {

// Microseconds since the Unix epoch, from the system clock.
TimeUs wall_clock_us() noexcept;

}  // namespace gpumeter
