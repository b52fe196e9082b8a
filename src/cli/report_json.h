// SPDX-License-Identifier: MIT
// `gpumeter report --idle --format json`: the idle holders in a stable, versioned shape
// (schemas/report.schema.json, docs/report.md); the usage report's JSON is view/usage_json.h.
#pragma once

#include "cli/idle_report.h"
#include "cli/json.h"
#include "view/usage_json.h"

namespace gpumeter::cli {

// {"schema_version", "report": "idle", "database", the window, "min_idle_seconds",
//  "max_sm_percent", "holders"}.
Json idle_json(const IdleReport& report);

}  // namespace gpumeter::cli
