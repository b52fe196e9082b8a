// SPDX-License-Identifier: MIT
#include "cli/usage_keys.h"

#include <fmt/format.h>

#include "view/humanize.h"
#include "view/report_time.h"

namespace gpumeter::cli {
namespace {

using store::GroupBy;

std::string optional_number(const auto& value) {
  return value ? fmt::format("{}", *value) : std::string{};
}

std::string period_header(GroupBy by) {
  switch (by) {
    case GroupBy::hour: return "HOUR";
    case GroupBy::day: return "DAY";
    default: return "MONTH";
  }
}

// "2026-01-31T13" reads better as "2026-01-31 13:00".
std::string period_text(GroupBy by, const std::string& label) {
  if (by != GroupBy::hour || label.size() < 3) return label;
  return fmt::format("{} {}:00", label.substr(0, label.size() - 3), label.substr(label.size() - 2));
}

std::string process_start(const store::UsageRow& row, bool for_csv) {
  if (!row.process_start_time_us || *row.process_start_time_us == 0) return for_csv ? "" : "?";
  return for_csv ? view::iso8601_utc(*row.process_start_time_us)
                 : view::local_minute(*row.process_start_time_us);
}

}  // namespace

std::vector<KeyColumn> table_key_columns(std::span<const GroupBy> group_by) {
  std::vector<KeyColumn> columns;
  for (const GroupBy by : group_by) {
    switch (by) {
      case GroupBy::host: columns.push_back({"HOST", "host"}); break;
      case GroupBy::user: columns.push_back({"USER", "user"}); break;
      case GroupBy::gpu: columns.push_back({"GPU", "gpu_index", Align::right}); break;
      case GroupBy::process:
        columns.push_back({"PID", "pid", Align::right});
        columns.push_back({"STARTED", "process_start"});
        columns.push_back({"COMMAND", "command"});
        break;
      case GroupBy::container: columns.push_back({"CONTAINER", "container"}); break;
      default: columns.push_back({period_header(by), "period"}); break;
    }
  }
  return columns;
}

std::vector<KeyColumn> csv_key_columns(std::span<const GroupBy> group_by) {
  std::vector<KeyColumn> columns;
  for (const KeyColumn& column : table_key_columns(group_by)) {
    columns.push_back(column);
    if (column.csv_name == "gpu_index") columns.push_back({"UUID", "gpu_uuid"});
    if (column.csv_name == "period") columns.push_back({"START", "period_start"});
  }
  return columns;
}

std::vector<std::string> table_key_cells(const store::UsageRow& row,
                                         std::span<const GroupBy> group_by) {
  std::vector<std::string> cells;
  for (const GroupBy by : group_by) {
    switch (by) {
      case GroupBy::host: cells.push_back(row.host); break;
      case GroupBy::user: cells.push_back(row.user.empty() ? "?" : row.user); break;
      case GroupBy::gpu:
        cells.push_back(row.gpu_index ? fmt::format("{}", *row.gpu_index)
                                      : std::string(view::kNotAvailable));
        break;
      case GroupBy::process:
        cells.push_back(optional_number(row.pid));
        cells.push_back(process_start(row, false));
        cells.push_back(cut(row.command, kCommandWidth));
        break;
      case GroupBy::container: cells.push_back(row.container.empty() ? "-" : row.container); break;
      default: cells.push_back(period_text(by, row.period)); break;
    }
  }
  return cells;
}

std::vector<std::string> csv_key_cells(const store::UsageRow& row,
                                       std::span<const GroupBy> group_by) {
  std::vector<std::string> cells;
  for (const GroupBy by : group_by) {
    switch (by) {
      case GroupBy::host: cells.push_back(row.host); break;
      case GroupBy::user: cells.push_back(row.user); break;
      case GroupBy::gpu:
        cells.push_back(optional_number(row.gpu_index));
        cells.push_back(row.gpu_uuid);
        break;
      case GroupBy::process:
        cells.push_back(optional_number(row.pid));
        cells.push_back(process_start(row, true));
        cells.push_back(row.command);
        break;
      case GroupBy::container: cells.push_back(row.container); break;
      default:
        cells.push_back(row.period);
        cells.push_back(row.period_start_us ? view::iso8601_utc(*row.period_start_us)
                                            : std::string{});
        break;
    }
  }
  return cells;
}

std::string cut(std::string_view text, std::size_t width) {
  if (display_width(text) <= width || width == 0) return std::string(text);
  std::string out;
  std::size_t points = 0;
  for (const char c : text) {
    const bool starts_point = (static_cast<unsigned char>(c) & 0xC0U) != 0x80U;
    if (starts_point && ++points == width) break;
    out += c;
  }
  return out + "…";
}

}  // namespace gpumeter::cli
