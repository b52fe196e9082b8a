// `gpumeter report --format json`: the usage report and the idle holders in a stable,
// versioned shape (schemas/report.schema.json, docs/report.md). The conventions are those of
// docs/json.md: numbers are numbers, units in the keys, `*_time_us` with an ISO 8601 twin.
#pragma once

#include "cli/idle_report.h"
#include "cli/list_json.h"
#include "cli/usage_report.h"

namespace gpumeter::cli {

inline constexpr int kReportSchemaVersion = 1;

// {"schema_version", "report": "usage", "database", "since", "since_time_us", "until",
//  "until_time_us", "group_by", "rows", "total", "quota"}; a row holds the keys of its group
// and the figures, and "quota" (with --quota) its user's standing.
Json usage_json(const UsageReport& report);

// {"schema_version", "report": "idle", "database", the window, "min_idle_seconds",
//  "max_sm_percent", "holders"}.
Json idle_json(const IdleReport& report);

}  // namespace gpumeter::cli
