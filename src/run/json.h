// SPDX-License-Identifier: MIT
// `gpumeter run --json FILE`: what the summary says, as a versioned document. Numbers are
// numbers, units are in the key names, absent values are null with their reason under the
// sibling "unavailable" object. Specified by schemas/run.schema.json, documented in
// docs/run.md; a change that breaks a reader bumps kRunSchemaVersion.
#pragma once

#include "run/result.h"
#include "view/json.h"

namespace gpumeter::run {

inline constexpr int kRunSchemaVersion = 1;

view::Json run_json(const RunResult& result);

}  // namespace gpumeter::run
