// SPDX-License-Identifier: MIT
#include "jetson/thermal.h"

#include <algorithm>
#include <cctype>

namespace gpumeter::jetson {
namespace {

constexpr std::string_view kThermal = "/sys/class/thermal";
// Millidegrees outside these are a sensor's placeholder (tegrastats prints -256 °C for one
// that is off), not a temperature.
constexpr std::int64_t kColdestMilli = -40'000;
constexpr std::int64_t kHottestMilli = 150'000;

std::string lower(std::string text) {
  std::ranges::transform(text, text.begin(),
                         [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

}  // namespace

std::vector<TemperatureSensor> read_thermal_zones(const Sysfs& sysfs) {
  std::vector<TemperatureSensor> zones;
  for (const std::string& entry : sysfs.list(kThermal)) {
    if (!entry.starts_with("thermal_zone")) continue;
    const std::string dir = join(kThermal, entry);
    const auto type = sysfs.text(join(dir, "type"));
    if (!type || type->empty() || lower(*type).starts_with("pmic")) continue;
    TemperatureSensor zone{*type, std::unexpected(Unavailable::error)};
    const auto milli = sysfs.integer(join(dir, "temp"));
    if (!milli) {
      zone.celsius = std::unexpected(milli.error());
    } else if (*milli > kColdestMilli && *milli < kHottestMilli) {
      zone.celsius = static_cast<double>(*milli) / 1000.0;
    }
    zones.push_back(std::move(zone));
  }
  return zones;
}

Maybe<double> gpu_temperature(const std::vector<TemperatureSensor>& zones) {
  const auto gpu = std::ranges::find_if(
      zones, [](const TemperatureSensor& zone) { return lower(zone.name).starts_with("gpu"); });
  if (gpu == zones.end()) return std::unexpected(Unavailable::not_supported);
  return gpu->celsius;
}

}  // namespace gpumeter::jetson
