// SPDX-License-Identifier: MIT
// `gpumeter report` for people (a table) and for spreadsheets (CSV).
#pragma once

#include <string>
#include <vector>

#include "view/quota_use.h"
#include "view/usage_report.h"

namespace gpumeter::cli {

// A header naming the window and the history file, the table (one line per row, then a TOTAL
// line), and with quotas a line per (user, period) over quota. Columns: the group's keys,
// GPU-HOURS, SM-HOURS (busy), SM% (average while held), ENERGY, PEAK MEM, PROCS; with quotas
// QUOTA, PERIOD, USED and USE%, where an over-quota row says OVER (and is red when `color`).
// An empty report is one line: "no usage recorded between ... and ...".
std::string render_usage_table(const view::UsageReport& report, bool color);

// CSV (quoted as RFC 4180 says, lines ending in "\n"): a header line of the JSON keys
// (docs/report.md), then one line per row; no total. Numbers at full precision, empty fields for
// unknown values.
std::string render_usage_csv(const view::UsageReport& report);

// One line per (user, period) over quota:
// "alice: 512.30 of 500 GPU-hours per month, 2026-11 (102.5%)".
std::string render_over_quota(const std::vector<view::QuotaUse>& over);

// "from 2026-11-01 00:00 to 2026-11-22 10:54 CET".
std::string describe_window(TimeUs since_us, TimeUs until_us);

// "no usage recorded between 2026-11-01 00:00 and 2026-11-22 10:54 CET".
std::string no_usage_line(TimeUs since_us, TimeUs until_us);

// "vGPU host: 4 VMs on GPU 0, 1 used 2.00 vGPU-hours ...": what a vGPU host's VMs used, which
// the usage rows (the host's processes) cannot show; empty when no VM ran in the window.
std::string vgpu_note(const view::UsageReport& report);

// A CSV field, quoted when it holds a comma, a quote or a line break.
std::string csv_field(std::string_view text);

}  // namespace gpumeter::cli
