// SPDX-License-Identifier: MIT
#include "store/gauges.h"

#include <fmt/format.h>

namespace gpumeter::store {

std::string gauge_columns(std::string_view suffix) {
  std::string columns;
  for (const Gauge& gauge : kGauges) {
    if (!columns.empty()) columns += ", ";
    columns += fmt::format("{}{}", gauge.column(), suffix);
  }
  return columns;
}

}  // namespace gpumeter::store
