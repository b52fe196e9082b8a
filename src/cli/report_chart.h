// SPDX-License-Identifier: MIT
// `gpumeter report --chart`: the report's rows as horizontal bar charts, one per figure
// (GPU-hours, SM busy-hours, energy), fitted to the terminal's width.
#pragma once

#include <cstddef>
#include <string>

#include "view/usage_report.h"

namespace gpumeter::cli {

// The window line, then three charts whose bars are the rows in the report's order, labelled
// by their keys. With quotas, a user over quota has a red GPU-hours bar and "OVER" after its
// value, and the over-quota lines follow. An empty report is the "no usage recorded" line.
std::string render_usage_charts(const view::UsageReport& report, std::size_t width, bool color);

}  // namespace gpumeter::cli
