// SPDX-License-Identifier: MIT
// One aggregate row of a device tier as it is built: the sample count, min / avg / max of each
// gauge and the energy used, from raw samples or from finer aggregates. Internal to src/store.
#pragma once

#include <array>
#include <cstdint>
#include <expected>
#include <limits>
#include <map>
#include <optional>
#include <string_view>
#include <utility>

#include "core/error.h"
#include "core/model.h"
#include "store/gauges.h"
#include "store/sqlite.h"

namespace gpumeter::store {

struct GaugeAggregate {
  double min = std::numeric_limits<double>::infinity();
  double max = -std::numeric_limits<double>::infinity();
  double sum = 0.0;          // Σ value, or Σ avg × samples when merging aggregates
  std::int64_t samples = 0;  // samples that had the value

  // One sample.
  void add(double value) { merge(value, value, value, 1); }
  // An aggregate of `count` samples.
  void merge(double lowest, double average, double highest, std::int64_t count);
  std::optional<double> average() const;
};

struct BucketAggregate {
  std::int64_t samples = 0;
  std::array<GaugeAggregate, kGauges.size()> gauges;
  std::optional<double> energy_joules;  // absent when no sample in the bucket read the counter

  void add_energy(double joules) { energy_joules = energy_joules.value_or(0.0) + joules; }
};

// Aggregates by (device id, bucket start).
using Aggregates = std::map<std::pair<std::int64_t, TimeUs>, BucketAggregate>;

// INSERT OR REPLACE of every aggregate into `table` (device_minutes or device_hours).
std::expected<void, Error> store_aggregates(sqlite::Connection& connection, std::string_view table,
                                            const Aggregates& aggregates);

}  // namespace gpumeter::store
