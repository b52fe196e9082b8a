// SPDX-License-Identifier: MIT
// `gpumeter report --plot FILE.svg`: GPU-hours by user over the report's window, one column of
// stacked bars per hour, day or month, as a standalone SVG (cli/svg_chart.h).
#pragma once

#include <expected>
#include <filesystem>
#include <optional>
#include <vector>

#include "cli/svg_chart.h"
#include "core/error.h"
#include "store/usage.h"
#include "view/report_time.h"

namespace gpumeter::cli {

// At most this many columns: a finer period that would give more is replaced by a coarser one.
inline constexpr std::size_t kMaxPlotColumns = 400;

// The period of each column: the report's own when it has one, else hours for a window of up to
// two days, days up to 92 days, months beyond; then coarser while there would be more than
// kMaxPlotColumns columns.
view::CalendarPeriod plot_period(std::optional<view::CalendarPeriod> grouping, TimeUs since_us,
                                 TimeUs until_us);

// The chart of `rows` (usage grouped by user and `period`, local time, over [since, until)):
// one column per period of the window, empty ones included; the nine users with the most
// GPU-hours each a series, bottom-up from the largest, and the rest together as "others".
StackedBars usage_plot(const std::vector<store::UsageRow>& rows, view::CalendarPeriod period,
                       TimeUs since_us, TimeUs until_us);

// Runs the query (its window and filters, grouped by user and plot_period()) and writes the
// SVG to `path`. Errors: those of store::usage; invalid_input when the file cannot be written.
std::expected<void, Error> write_usage_plot(store::Store& store, const store::UsageQuery& query,
                                            const std::filesystem::path& path);

}  // namespace gpumeter::cli
