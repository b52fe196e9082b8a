// SPDX-License-Identifier: MIT
#include "cli/report_table.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <ctime>
#include <iterator>

#include "cli/table.h"
#include "cli/usage_keys.h"
#include "view/humanize.h"
#include "view/report_time.h"
#include "view/sm_unknown.h"

namespace gpumeter::cli {
namespace {

std::string zone_name(TimeUs time_us) {
  const std::time_t seconds = static_cast<std::time_t>(time_us / 1'000'000);
  std::tm fields{};
  localtime_r(&seconds, &fields);
  return fmt::format("{:%Z}", fields);
}

// Whether some held time of the window has no known SM use (processes on a GPU in MIG mode):
// the table then has a column that says how much, and a note that says why.
bool has_unknown_sm(const view::UsageReport& report) {
  return report.total.sm_unknown_hours > 0;
}

std::vector<Column> table_columns(const view::UsageReport& report) {
  std::vector<Column> columns;
  for (const KeyColumn& key : table_key_columns(report.group_by))
    columns.push_back({key.header, key.align});
  for (const char* figure : {"GPU-HOURS", "SM-HOURS", "SM%", "ENERGY", "PEAK MEM", "PROCS"})
    columns.push_back({figure, Align::right});
  if (has_unknown_sm(report)) columns.push_back({"SM N/A-HOURS", Align::right});
  if (report.quota) {
    columns.push_back({"QUOTA", Align::right});
    columns.push_back({"PERIOD", Align::left});
    columns.push_back({"USED", Align::right});
    columns.push_back({"USE%", Align::left});
  }
  return columns;
}

// SM-HOURS, SM% and ENERGY cover the held hours whose SM use is known (N/A when none is);
// with unknown_column, the hours whose SM use is not known follow.
// Without per-process figures (a fleet report from Prometheus), PEAK and PROCS are "-".
void add_figures(Row& row, const store::UsageRow& usage, bool unknown_column, bool per_process) {
  const auto or_na = [](const std::optional<double>& value, const char* format) {
    return value ? fmt::format(fmt::runtime(format), *value) : std::string(view::kNotAvailable);
  };
  row.push_back({fmt::format("{:.2f}", usage.gpu_hours)});
  row.push_back({or_na(usage.sm_busy_hours, "{:.2f}")});
  row.push_back({or_na(usage.sm_percent_while_held, "{:.1f}%")});
  row.push_back({or_na(usage.energy_kwh, "{:.2f}kWh")});
  row.push_back({per_process ? view::format_bytes(static_cast<double>(usage.peak_memory_bytes))
                             : std::string("-")});
  row.push_back({per_process ? fmt::format("{}", usage.processes) : std::string("-")});
  if (unknown_column) {
    row.push_back({usage.sm_unknown_hours > 0 ? fmt::format("{:.2f}", usage.sm_unknown_hours)
                                              : std::string("-")});
  }
}

// Why the SM N/A-HOURS column is there, and what the SM figures beside it cover.
std::string unknown_sm_note(const view::UsageReport& report) {
  return fmt::format(
      "SM N/A-HOURS: GPU-hours whose SM use is unknown ({}); SM-HOURS, SM% and ENERGY cover "
      "the other GPU-hours only.\n",
      view::sm_unknown_text(report.total.sm_unknown_reason));
}

void add_quota(Row& row, const std::optional<view::QuotaUse>& use) {
  if (!use) {
    row.push_back({"-"});
    return;
  }
  const Color color = use->over() ? Color::red : Color::none;
  row.push_back({to_string(use->quota)});
  row.push_back({use->period_label});
  row.push_back({fmt::format("{:.2f}h", use->used_gpu_hours)});
  row.push_back({fmt::format("{:.1f}%{}", use->percent(), use->over() ? " OVER" : ""), color});
}

std::string figure_csv(const store::UsageRow& usage, bool per_process) {
  const auto or_empty = [](const std::optional<double>& value) {
    return value ? fmt::format("{}", *value) : std::string{};
  };
  const auto known = [per_process](auto value) {
    return per_process ? fmt::format("{}", value) : std::string{};
  };
  return fmt::format(
      "{},{},{},{},{},{},{},{}", usage.gpu_hours, or_empty(usage.sm_busy_hours),
      or_empty(usage.sm_percent_while_held), or_empty(usage.energy_kwh),
      known(usage.peak_memory_bytes), known(usage.processes), usage.sm_unknown_hours,
      usage.sm_unknown_hours > 0 ? usage.sm_unknown_reason.value_or("unknown") : std::string{});
}

std::string quota_csv(const std::optional<view::QuotaUse>& use) {
  if (!use) return ",,,,,";
  return fmt::format("{},{},{},{},{},{}", use->quota.gpu_hours,
                     view::period_name(use->quota.period), csv_field(use->period_label),
                     use->used_gpu_hours, use->percent(), use->over() ? "true" : "false");
}

}  // namespace

std::string describe_window(TimeUs since_us, TimeUs until_us) {
  return fmt::format("from {} to {} {}", view::local_minute(since_us), view::local_minute(until_us),
                     zone_name(until_us));
}

std::string no_usage_line(TimeUs since_us, TimeUs until_us) {
  return fmt::format("no usage recorded between {} and {} {}\n", view::local_minute(since_us),
                     view::local_minute(until_us), zone_name(until_us));
}

std::string vgpu_note(const view::UsageReport& report) {
  if (!report.vgpu) return {};
  const view::VgpuSummary& vgpu = *report.vgpu;
  std::string gpus;
  for (const std::uint32_t index : vgpu.gpus) {
    if (!gpus.empty()) gpus += ", ";
    gpus += std::to_string(index);
  }
  return fmt::format(
      "vGPU host: {} VM{} on GPU {} used {:.2f} vGPU-hours ({:.2f} SM busy-hours), which the "
      "processes above do not include; gpumeter report --by vm shows them\n",
      vgpu.vms, vgpu.vms == 1 ? "" : "s", gpus, vgpu.vgpu_hours, vgpu.sm_busy_hours);
}

std::string render_usage_table(const view::UsageReport& report, bool color) {
  if (report.rows.empty())
    return no_usage_line(report.since_us, report.until_us) + vgpu_note(report);
  std::vector<Row> rows;
  for (std::size_t i = 0; i < report.rows.size(); ++i) {
    Row row;
    for (std::string& key : table_key_cells(report.rows[i], report.group_by))
      row.push_back({std::move(key)});
    add_figures(row, report.rows[i], has_unknown_sm(report), report.per_process_figures);
    if (report.quota) add_quota(row, report.quota->rows[i]);
    rows.push_back(std::move(row));
  }
  Row total{{"TOTAL", Color::bold}};
  total.resize(table_key_columns(report.group_by).size());
  add_figures(total, report.total, has_unknown_sm(report), report.per_process_figures);
  rows.push_back(std::move(total));
  std::string out = fmt::format("GPU use {} ({})\n",
                                describe_window(report.since_us, report.until_us), report.database);
  out += render_table(table_columns(report), rows, color);
  if (has_unknown_sm(report)) out += unknown_sm_note(report);
  if (report.quota && !report.quota->over.empty())
    out += "\nover quota:\n" + render_over_quota(report.quota->over);
  out += vgpu_note(report);
  return out;
}

std::string render_usage_csv(const view::UsageReport& report) {
  std::string out;
  for (const KeyColumn& key : csv_key_columns(report.group_by)) out += key.csv_name + ",";
  out +=
      "gpu_hours,sm_busy_hours,sm_percent_while_held,energy_kwh,peak_memory_bytes,processes,"
      "sm_unknown_gpu_hours,sm_unknown_reason";
  if (report.quota) {
    out +=
        ",quota_gpu_hours,quota_period,quota_period_label,quota_used_gpu_hours,quota_percent,"
        "over_quota";
  }
  out += "\n";
  for (std::size_t i = 0; i < report.rows.size(); ++i) {
    for (const std::string& key : csv_key_cells(report.rows[i], report.group_by))
      fmt::format_to(std::back_inserter(out), "{},", csv_field(key));
    out += figure_csv(report.rows[i], report.per_process_figures);
    if (report.quota)
      fmt::format_to(std::back_inserter(out), ",{}", quota_csv(report.quota->rows[i]));
    out += "\n";
  }
  return out;
}

std::string render_over_quota(const std::vector<view::QuotaUse>& over) {
  std::string out;
  for (const view::QuotaUse& use : over) {
    out += fmt::format("{}: {:.2f} of {} GPU-hours per {}, {} ({:.1f}%)\n", use.user,
                       use.used_gpu_hours, use.quota.gpu_hours, view::period_name(use.quota.period),
                       use.period_label, use.percent());
  }
  return out;
}

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + '"';
}

}  // namespace gpumeter::cli
