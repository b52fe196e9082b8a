// SPDX-License-Identifier: MIT
// The columns that name a report row's group (user, GPU, process, ...), as a person reads them
// in tables and charts and as scripts read them in CSV.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cli/table.h"
#include "store/usage.h"

namespace gpumeter::cli {

struct KeyColumn {
  std::string header;    // "USER"
  std::string csv_name;  // "user"
  Align align = Align::left;
};

// The key columns of a grouping, in its order. A process is three columns (pid, its start,
// command), a GPU two in CSV (index and uuid) and one in tables, a period two in CSV (label and
// start) and one in tables.
std::vector<KeyColumn> table_key_columns(std::span<const store::GroupBy> group_by);
std::vector<KeyColumn> csv_key_columns(std::span<const store::GroupBy> group_by);

// The cells of those columns for one row. For a person: "?" for an unknown user, "-" outside
// any container, local times, commands cut to 40 characters. For CSV: the stored values, empty
// when unknown, times in ISO 8601 UTC.
std::vector<std::string> table_key_cells(const store::UsageRow& row,
                                         std::span<const store::GroupBy> group_by);
std::vector<std::string> csv_key_cells(const store::UsageRow& row,
                                       std::span<const store::GroupBy> group_by);

// `text` cut to `width` code points, the last one an ellipsis when something was cut.
std::string cut(std::string_view text, std::size_t width);
// The width reports cut a command line to.
inline constexpr std::size_t kCommandWidth = 40;

}  // namespace gpumeter::cli
