// SPDX-License-Identifier: MIT
#include "sim/features.h"

#include <array>

namespace gpumeter::sim {
namespace {

struct FeatureRow {
  Feature feature;
  std::string_view name;
};

constexpr std::array kFeatures{
    FeatureRow{Feature::serial, "serial"},
    FeatureRow{Feature::fan, "fan"},
    FeatureRow{Feature::ecc, "ecc"},
    FeatureRow{Feature::power, "power"},
    FeatureRow{Feature::power_limit, "power_limit"},
    FeatureRow{Feature::energy, "energy"},
    FeatureRow{Feature::temperature, "temperature"},
    FeatureRow{Feature::clocks, "clocks"},
    FeatureRow{Feature::encoder, "encoder"},
    FeatureRow{Feature::decoder, "decoder"},
    FeatureRow{Feature::pcie, "pcie"},
    FeatureRow{Feature::pstate, "pstate"},
    FeatureRow{Feature::utilization, "utilization"},
    FeatureRow{Feature::process_utilization, "process_utilization"},
    FeatureRow{Feature::memory, "memory"},
    FeatureRow{Feature::processes, "processes"},
    FeatureRow{Feature::mps, "mps"},
    FeatureRow{Feature::accounting, "accounting"},
    FeatureRow{Feature::persistence_mode, "persistence_mode"},
    FeatureRow{Feature::compute_mode, "compute_mode"},
    FeatureRow{Feature::minor_number, "minor_number"},
    FeatureRow{Feature::events, "events"},
};
static_assert(kFeatures.size() == kFeatureCount);

}  // namespace

std::optional<Feature> feature_by_name(std::string_view name) noexcept {
  for (const auto& row : kFeatures) {
    if (row.name == name) return row.feature;
  }
  return std::nullopt;
}

std::string feature_names() {
  std::string names;
  for (const auto& row : kFeatures) {
    if (!names.empty()) names += ", ";
    names += row.name;
  }
  return names;
}

}  // namespace gpumeter::sim
