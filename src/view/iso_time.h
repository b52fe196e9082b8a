// SPDX-License-Identifier: MIT
// Times as JSON documents write them: ISO 8601 in UTC, to the second.
#pragma once

#include <string>

#include "core/model.h"

namespace gpumeter::view {

// "2024-05-01T12:00:00Z": UTC, to the second (fractions are dropped, not rounded).
std::string iso8601_utc(TimeUs time_us);

}  // namespace gpumeter::view
