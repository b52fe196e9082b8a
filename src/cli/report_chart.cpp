// SPDX-License-Identifier: MIT
#include "cli/report_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <vector>

#include "cli/bar_chart.h"
#include "cli/report_table.h"
#include "cli/usage_keys.h"
#include "view/sm_unknown.h"

namespace gpumeter::cli {
namespace {

struct Figure {
  const char* title;
  std::function<std::optional<double>(const store::UsageRow&)> value;
  const char* unit;
  bool sm_derived = false;  // covers only the held hours whose SM use is known
};

// Each row's key cells, padded so that the labels' columns line up.
std::vector<std::string> labels_of(const view::UsageReport& report) {
  std::vector<std::vector<std::string>> cells;
  std::vector<std::size_t> widths;
  for (const store::UsageRow& row : report.rows) {
    cells.push_back(table_key_cells(row, report.group_by));
    widths.resize(cells.back().size());
    for (std::size_t i = 0; i < widths.size(); ++i)
      widths[i] = std::max(widths[i], display_width(cells.back()[i]));
  }
  std::vector<std::string> labels;
  for (const std::vector<std::string>& row : cells) {
    std::string label;
    for (std::size_t i = 0; i < row.size(); ++i) {
      label += row[i];
      if (i + 1 < row.size()) label += std::string(widths[i] - display_width(row[i]) + 1, ' ');
    }
    labels.push_back(row.empty() ? std::string("all") : label);
  }
  return labels;
}

bool over_quota(const view::UsageReport& report, std::size_t row) {
  if (!report.quota) return false;
  const std::optional<view::QuotaUse>& use = report.quota->rows[row];
  return use && use->over();
}

std::vector<Bar> bars_of(const view::UsageReport& report, const std::vector<std::string>& labels,
                         const Figure& figure, bool mark_quota) {
  std::vector<Bar> bars;
  for (std::size_t i = 0; i < report.rows.size(); ++i) {
    const std::optional<double> value = figure.value(report.rows[i]);
    Bar bar{.label = labels[i],
            .value = value.value_or(0.0),
            .value_text = value ? fmt::format("{:.2f}{}", *value, figure.unit) : "N/A"};
    // Never an empty bar that reads as idle: say what is unknown.
    if (figure.sm_derived && report.rows[i].sm_unknown_hours > 0) {
      bar.marker = value ? fmt::format("+{:.2f}h N/A", report.rows[i].sm_unknown_hours)
                         : std::string("unknown");
    }
    if (mark_quota && over_quota(report, i)) {
      bar.marker = "OVER";
      bar.color = Color::red;
    }
    bars.push_back(std::move(bar));
  }
  return bars;
}

}  // namespace

std::string render_usage_charts(const view::UsageReport& report, std::size_t width, bool color) {
  if (report.rows.empty()) return no_usage_line(report.since_us, report.until_us);
  const std::vector<Figure> figures{
      {"GPU-hours held", [](const store::UsageRow& row) { return row.gpu_hours; }, "h"},
      {"SM busy-hours", [](const store::UsageRow& row) { return row.sm_busy_hours; }, "h", true},
      {"Energy", [](const store::UsageRow& row) { return row.energy_kwh; }, " kWh", true}};
  std::string out = fmt::format("GPU use {} ({})\n",
                                describe_window(report.since_us, report.until_us), report.database);
  const std::vector<std::string> labels = labels_of(report);
  for (std::size_t i = 0; i < figures.size(); ++i) {
    const std::vector<Bar> bars = bars_of(report, labels, figures[i], i == 0);
    out += '\n' + render_bar_chart(figures[i].title, bars, width, color);
  }
  if (report.total.sm_unknown_hours > 0) {
    out += fmt::format(
        "\nN/A: GPU-hours whose SM use is unknown ({}); the SM and energy bars "
        "cover the other GPU-hours only.\n",
        view::sm_unknown_text(report.total.sm_unknown_reason));
  }
  if (report.quota && !report.quota->over.empty())
    out += "\nover quota:\n" + render_over_quota(report.quota->over);
  return out;
}

}  // namespace gpumeter::cli
