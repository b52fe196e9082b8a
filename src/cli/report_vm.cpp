// SPDX-License-Identifier: MIT
#include "cli/report_vm.h"

#include <fmt/format.h>

#include <array>

#include "cli/table.h"
#include "view/humanize.h"

namespace gpumeter::cli {
namespace {

const std::array<Column, 7> kVmColumns{{
    {"VM", Align::left},
    {"TYPE", Align::left},
    {"GPU", Align::right},
    {"VGPU-HOURS", Align::right},
    {"SM BUSY-HOURS", Align::right},
    {"SM % ACTIVE", Align::right},
    {"PEAK FB", Align::right},
}};

std::string hours(double value) {
  return fmt::format("{:.2f}", value);
}

}  // namespace

std::string render_vm_table(const VmReport& report, bool color) {
  std::string out =
      fmt::format("vGPU use per VM from {} to {} UTC ({})\n", view::iso8601_utc(report.since_us),
                  view::iso8601_utc(report.until_us), report.database);
  if (report.rows.empty()) return out + "no vGPU use recorded in this period\n";
  std::vector<Row> rows;
  rows.reserve(report.rows.size());
  for (const store::VmUsageRow& r : report.rows) {
    rows.push_back(
        {{r.vm_id},
         {r.vgpu_type.empty() ? std::string(view::kNotAvailable) : r.vgpu_type},
         {fmt::format("{}", r.gpu_index)},
         {hours(r.vgpu_hours)},
         {hours(r.sm_busy_hours)},
         {r.sm_percent_while_active ? fmt::format("{:.1f}%", *r.sm_percent_while_active)
                                    : std::string(view::kNotAvailable)},
         {r.peak_fb_used_bytes ? view::format_bytes(static_cast<double>(*r.peak_fb_used_bytes))
                               : std::string(view::kNotAvailable)}});
  }
  return out + render_table(kVmColumns, rows, color);
}

std::string render_vm_csv(const VmReport& report) {
  std::string out =
      "host,vm_id,vgpu_type,gpu_uuid,gpu_index,vgpu_hours,sm_busy_hours,sm_percent_while_active,"
      "peak_fb_used_bytes\n";
  for (const store::VmUsageRow& r : report.rows) {
    // VM ids and type names hold no commas or quotes in practice; quote them anyway.
    out += fmt::format(
        "{},\"{}\",\"{}\",{},{},{:.6f},{:.6f},{},{}\n", r.host, r.vm_id, r.vgpu_type, r.gpu_uuid,
        r.gpu_index, r.vgpu_hours, r.sm_busy_hours,
        r.sm_percent_while_active ? fmt::format("{:.3f}", *r.sm_percent_while_active) : "",
        r.peak_fb_used_bytes ? fmt::format("{}", *r.peak_fb_used_bytes) : "");
  }
  return out;
}

view::Json vm_report_json(const VmReport& report) {
  view::Json out = view::Json::object();
  out["schema_version"] = 1;
  out["database"] = report.database;
  view::put_time(out, "since", report.since_us);
  view::put_time(out, "until", report.until_us);
  out["group_by"] = view::Json::array({"vm"});
  view::Json& rows = out["rows"] = view::Json::array();
  for (const store::VmUsageRow& r : report.rows) {
    view::Json row = view::Json::object();
    row["host"] = r.host;
    row["vm_id"] = r.vm_id;
    row["vgpu_type"] = view::text_or_null(r.vgpu_type);
    row["gpu_uuid"] = r.gpu_uuid;
    row["gpu_index"] = r.gpu_index;
    row["vgpu_hours"] = r.vgpu_hours;
    row["sm_busy_hours"] = r.sm_busy_hours;
    row["sm_percent_while_active"] = view::nullable(r.sm_percent_while_active);
    row["peak_fb_used_bytes"] = view::nullable(r.peak_fb_used_bytes);
    rows.push_back(std::move(row));
  }
  return out;
}

}  // namespace gpumeter::cli
