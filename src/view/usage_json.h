// SPDX-License-Identifier: MIT
// `gpumeter report --format json` and `GET /api/v1/usage`: the usage report in a stable,
// versioned shape (schemas/report.schema.json, docs/report.md), with the conventions of
// docs/json.md.
#pragma once

#include "view/json.h"
#include "view/usage_report.h"

namespace gpumeter::view {

inline constexpr int kReportSchemaVersion = 1;

// {"schema_version", "report": "usage", "database", "since", "since_time_us", "until",
//  "until_time_us", "group_by", "rows", "total", "quota"}; a row holds the keys of its group
// and the figures, and "quota" (with a quota file) its user's standing.
Json usage_json(const UsageReport& report);

// The report's window: "since", "since_time_us", "until", "until_time_us".
void put_window(Json& document, TimeUs since_us, TimeUs until_us);

}  // namespace gpumeter::view
