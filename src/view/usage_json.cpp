// SPDX-License-Identifier: MIT
#include "view/usage_json.h"

#include "view/group_by.h"
#include "view/iso_time.h"

namespace gpumeter::view {
namespace {

using store::GroupBy;

void put_process(Json& row, const store::UsageRow& usage) {
  row["pid"] = nullable(usage.pid);
  const bool known = usage.process_start_time_us && *usage.process_start_time_us != 0;
  row["process_start"] = known ? Json(iso8601_utc(*usage.process_start_time_us)) : Json(nullptr);
  row["process_start_time_us"] = known ? Json(*usage.process_start_time_us) : Json(nullptr);
  row["command"] = text_or_null(usage.command);
}

void put_keys(Json& row, const store::UsageRow& usage, const std::vector<GroupBy>& group_by) {
  for (const GroupBy by : group_by) {
    switch (by) {
      case GroupBy::host: row["host"] = usage.host; break;
      case GroupBy::user: row["user"] = text_or_null(usage.user); break;
      case GroupBy::gpu:
        row["gpu_index"] = nullable(usage.gpu_index);
        row["gpu_uuid"] = text_or_null(usage.gpu_uuid);
        break;
      case GroupBy::process: put_process(row, usage); break;
      case GroupBy::container: row["container"] = text_or_null(usage.container); break;
      default:
        row["period"] = usage.period;
        put_time(row, "period_start", usage.period_start_us.value_or(0));
        break;
    }
  }
}

// SM busy hours, the SM percent and the energy share cover the held hours whose SM use is
// known; sm_unknown_gpu_hours says how much is not, and why (null when nothing is unknown).
// Without per-process figures (a fleet report from Prometheus), peak_memory_bytes and processes
// are null.
Json figures(const store::UsageRow& usage, bool per_process) {
  return Json{{"gpu_hours", usage.gpu_hours},
              {"sm_busy_hours", nullable(usage.sm_busy_hours)},
              {"sm_percent_while_held", nullable(usage.sm_percent_while_held)},
              {"energy_kwh", nullable(usage.energy_kwh)},
              {"peak_memory_bytes", per_process ? Json(usage.peak_memory_bytes) : Json(nullptr)},
              {"processes", per_process ? Json(usage.processes) : Json(nullptr)},
              {"sm_unknown_gpu_hours", usage.sm_unknown_hours},
              {"sm_unknown_reason", usage.sm_unknown_hours > 0
                                        ? Json(usage.sm_unknown_reason.value_or("unknown"))
                                        : Json(nullptr)}};
}

Json quota_json(const QuotaUse& use) {
  Json quota{{"user", use.user},
             {"gpu_hours", use.quota.gpu_hours},
             {"period", period_name(use.quota.period)},
             {"period_label", use.period_label}};
  put_time(quota, "period_start", use.period_start_us);
  quota["used_gpu_hours"] = use.used_gpu_hours;
  quota["percent"] = use.percent();
  quota["over"] = use.over();
  return quota;
}

Json quota_section(const QuotaSummary& summary) {
  Json over = Json::array();
  for (const QuotaUse& use : summary.over) over.push_back(quota_json(use));
  return Json{{"file", summary.file}, {"over", std::move(over)}};
}

}  // namespace

void put_window(Json& document, TimeUs since_us, TimeUs until_us) {
  put_time(document, "since", since_us);
  put_time(document, "until", until_us);
}

Json usage_json(const UsageReport& report) {
  Json document{
      {"schema_version", kReportSchemaVersion}, {"report", "usage"}, {"database", report.database}};
  put_window(document, report.since_us, report.until_us);
  Json group = Json::array();
  for (const GroupBy by : report.group_by) group.push_back(std::string(group_name(by)));
  document["group_by"] = std::move(group);
  Json rows = Json::array();
  for (std::size_t i = 0; i < report.rows.size(); ++i) {
    Json row = Json::object();
    put_keys(row, report.rows[i], report.group_by);
    row.update(figures(report.rows[i], report.per_process_figures));
    if (report.quota) {
      const auto& use = report.quota->rows[i];
      row["quota"] = use ? quota_json(*use) : Json(nullptr);
    }
    rows.push_back(std::move(row));
  }
  document["rows"] = std::move(rows);
  document["total"] = figures(report.total, report.per_process_figures);
  document["quota"] = report.quota ? quota_section(*report.quota) : Json(nullptr);
  if (report.vgpu) {
    document["vgpu"] = Json{{"vms", report.vgpu->vms},
                            {"gpus", report.vgpu->gpus},
                            {"vgpu_hours", report.vgpu->vgpu_hours},
                            {"sm_busy_hours", report.vgpu->sm_busy_hours}};
  } else {
    document["vgpu"] = nullptr;
  }
  return document;
}

}  // namespace gpumeter::view
