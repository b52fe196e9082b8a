// SPDX-License-Identifier: MIT
#include "store/aggregate.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>

namespace gpumeter::store {
namespace {

std::string insert_sql(std::string_view table) {
  std::string columns = "bucket_us, device_id, samples";
  std::string parameters = "?1, ?2, ?3";
  int parameter = 3;
  for (const Gauge& gauge : kGauges) {
    for (const std::string_view suffix : {"_min", "_avg", "_max"}) {
      columns += fmt::format(", {}{}", gauge.column(), suffix);
      parameters += fmt::format(", ?{}", ++parameter);
    }
  }
  columns += fmt::format(", {}", kEnergyColumn);
  parameters += fmt::format(", ?{}", ++parameter);
  return fmt::format("INSERT OR REPLACE INTO {} ({}) VALUES ({})", table, columns, parameters);
}

}  // namespace

void GaugeAggregate::merge(double lowest, double average, double highest, std::int64_t count) {
  min = std::min(min, lowest);
  max = std::max(max, highest);
  sum += average * static_cast<double>(count);
  samples += count;
}

std::optional<double> GaugeAggregate::average() const {
  if (samples == 0) return std::nullopt;
  return sum / static_cast<double>(samples);
}

std::expected<void, Error> store_aggregates(sqlite::Connection& connection, std::string_view table,
                                            const Aggregates& aggregates) {
  const std::string sql = insert_sql(table);
  for (const auto& [key, aggregate] : aggregates) {
    auto statement = connection.cached(sql);
    if (!statement) return std::unexpected(std::move(statement.error()));
    (*statement)->bind_all(key.second, key.first, aggregate.samples);
    int parameter = 3;
    for (const GaugeAggregate& gauge : aggregate.gauges) {
      const bool any = gauge.samples > 0;
      (*statement)->bind(++parameter, any ? std::optional(gauge.min) : std::nullopt);
      (*statement)->bind(++parameter, gauge.average());
      (*statement)->bind(++parameter, any ? std::optional(gauge.max) : std::nullopt);
    }
    (*statement)->bind(++parameter, aggregate.energy_joules);
    if (auto done = (*statement)->run(); !done) return done;
  }
  return {};
}

}  // namespace gpumeter::store
