// SPDX-License-Identifier: MIT
// A usage report as every renderer sees it: the window, the grouping, one row per group, the
// total, and with a quota file how each row's user stands against their quota.
#pragma once

#include <expected>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "store/usage.h"
#include "view/quota.h"
#include "view/quota_use.h"
#include "view/usage_source.h"

namespace gpumeter::view {

struct QuotaSummary {
  std::string file;
  // One per report row: the user's period that speaks for the row (worst_use over the row's
  // period, or over the window when the report has no period); absent when no quota limits the
  // user.
  std::vector<std::optional<QuotaUse>> rows;
  std::vector<QuotaUse> over;  // every (user, period) over quota, by user then period
};

// What a vGPU host's VMs used of its GPUs in the window (docs/vgpu.md). The processes inside
// the VMs are not the host's, so no usage row counts them: a vGPU host's report would
// otherwise read as idle GPUs. `report --by vm` has the same per VM.
struct VgpuSummary {
  std::size_t vms = 0;              // distinct VMs (host and VM id)
  std::vector<std::uint32_t> gpus;  // the GPUs they ran on, by index
  double vgpu_hours = 0;            // hours the VMs' instances were active
  double sm_busy_hours = 0;         // Σ SM percent / 100 × hours
};

struct UsageReport {
  std::string database;  // UsageSource::name
  // False when the source keeps no per-process figures (Prometheus): each row's processes and
  // peak_memory_bytes are then unknown, not 0.
  bool per_process_figures = true;
  TimeUs since_us = 0;
  TimeUs until_us = 0;
  std::vector<store::GroupBy> group_by;
  std::vector<store::UsageRow> rows;
  store::UsageRow total;  // everything in the window; zero when nothing was recorded
  std::optional<QuotaSummary> quota;
  // Absent when no VM ran in the window, or when the report is of one user (VMs have none).
  std::optional<VgpuSummary> vgpu;
};

// Runs the report's queries: the grouped rows, the total, the VMs' use (a database only), and
// with `quotas` the quota use of every user (view/quota_use.h). Errors: those of the source's
// usage and of store::vm_usage.
std::expected<UsageReport, Error> build_usage_report(const UsageSource& source,
                                                     const store::UsageQuery& query,
                                                     const QuotaFile* quotas);
std::expected<UsageReport, Error> build_usage_report(store::Store& store,
                                                     const store::UsageQuery& query,
                                                     const QuotaFile* quotas);

// The calendar period of a grouping, if it has one.
std::optional<CalendarPeriod> report_period(const std::vector<store::GroupBy>& group_by);

}  // namespace gpumeter::view
