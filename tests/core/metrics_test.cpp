// SPDX-License-Identifier: MIT
#include "core/metrics.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace gpumeter::metrics_test {

TEST(Metrics, KeysAreUniqueAndCarryTheirUnit) {
  std::set<std::string_view> keys;
  for (const MetricSpec& row : device_metrics()) {
    EXPECT_TRUE(keys.insert(row.key).second) << row.key;
    EXPECT_FALSE(row.help.empty()) << row.key;
    if (row.unit == "bytes" || row.unit == "percent" || row.unit == "watts" ||
        row.unit == "joules" || row.unit == "celsius") {
      EXPECT_NE(row.key.find(row.unit), std::string_view::npos) << row.key;
    }
  }
}

TEST(Metrics, CountersEndInTotalOrJoules) {
  for (const MetricSpec& row : device_metrics()) {
    if (row.kind != MetricKind::counter) continue;
    EXPECT_TRUE(row.key.ends_with("_total") || row.key.ends_with("_joules")) << row.key;
  }
}

// The /metrics family of each exported row follows Prometheus's naming in the base unit that
// src/exposition converts to: a percent is a ratio, MHz hertz; counters end in _total.
TEST(Metrics, PrometheusNamesAreUniqueAndInTheirBaseUnit) {
  std::set<std::string_view> names;
  for (const MetricSpec& row : device_metrics()) {
    if (row.prometheus.empty()) continue;
    EXPECT_TRUE(names.insert(row.prometheus).second) << row.prometheus;
    EXPECT_TRUE(row.prometheus.starts_with("gpumeter_gpu_")) << row.prometheus;
    std::string_view base = row.unit;
    if (row.unit == "percent") base = "ratio";
    if (row.unit == "MHz") base = "hertz";
    // A number without a unit (a P-state, a bitmask, a 0/1 flag, an XID code) has no unit
    // suffix.
    const bool unitless = base == "pstate" || base == "bitmask" || base == "flag" || base == "code";
    if (row.kind == MetricKind::gauge && !unitless) {
      EXPECT_TRUE(row.prometheus.ends_with(base)) << row.prometheus;
    }
    EXPECT_EQ(row.prometheus.ends_with("_total"), row.kind == MetricKind::counter)
        << row.prometheus;
  }
  EXPECT_GE(names.size(), 20U);
}

TEST(Metrics, LookupByKey) {
  EXPECT_EQ(metric_by_key("memory_used_bytes"), DeviceMetric::memory_used);
  EXPECT_EQ(spec(DeviceMetric::power_draw).key, "power_draw_watts");
  EXPECT_FALSE(metric_by_key("no_such_metric").has_value());
}

}  // namespace gpumeter::metrics_test
