// SPDX-License-Identifier: MIT
#include "jetson/rails.h"

#include <algorithm>
#include <array>
#include <string_view>

namespace gpumeter::jetson {
namespace {

constexpr std::string_view kI2cDevices = "/sys/bus/i2c/devices";
constexpr int kChannels = 3;

Maybe<double> scaled(const Maybe<std::int64_t>& milli) {
  if (!milli) return std::unexpected(milli.error());
  return static_cast<double>(*milli) / 1000.0;
}

// Power from voltage and current where the driver gives no power file.
Maybe<double> product(const Maybe<double>& volts, const Maybe<double>& amperes) {
  if (!volts) return std::unexpected(volts.error());
  if (!amperes) return std::unexpected(amperes.error());
  return *volts * *amperes;
}

void read_iio(const Sysfs& sysfs, const std::string& dir, std::vector<PowerRail>& rails) {
  for (int k = 0; k < kChannels; ++k) {
    const auto name = sysfs.text(join(dir, "rail_name_" + std::to_string(k)));
    if (!name || name->empty()) continue;
    const std::string n = std::to_string(k);
    rails.push_back(PowerRail{*name, scaled(sysfs.integer(join(dir, "in_voltage" + n + "_input"))),
                              scaled(sysfs.integer(join(dir, "in_current" + n + "_input"))),
                              scaled(sysfs.integer(join(dir, "in_power" + n + "_input")))});
  }
}

void read_hwmon(const Sysfs& sysfs, const std::string& dir, std::vector<PowerRail>& rails) {
  for (int k = 1; k <= kChannels; ++k) {
    const std::string n = std::to_string(k);
    const auto label = sysfs.text(join(dir, "in" + n + "_label"));
    if (!label || label->empty() || label->starts_with("NC")) continue;
    PowerRail rail{*label, scaled(sysfs.integer(join(dir, "in" + n + "_input"))),
                   scaled(sysfs.integer(join(dir, "curr" + n + "_input"))),
                   std::unexpected(Unavailable::error)};
    rail.watts = product(rail.volts, rail.amperes);
    rails.push_back(std::move(rail));
  }
}

}  // namespace

std::vector<PowerRail> read_rails(const Sysfs& sysfs) {
  std::vector<PowerRail> rails;
  for (const std::string& device : sysfs.list(kI2cDevices)) {
    const std::string dir = join(kI2cDevices, device);
    const auto name = sysfs.text(join(dir, "name"));
    if (!name || !name->starts_with("ina3221")) continue;
    for (const std::string& child : sysfs.list(dir)) {
      if (child.starts_with("iio:device")) read_iio(sysfs, join(dir, child), rails);
      if (child != "hwmon") continue;
      for (const std::string& hwmon : sysfs.list(join(dir, "hwmon"))) {
        read_hwmon(sysfs, join(join(dir, "hwmon"), hwmon), rails);
      }
    }
  }
  return rails;
}

std::optional<PowerRail> input_rail(const std::vector<PowerRail>& rails) {
  constexpr std::array<std::string_view, 2> kInputs{"VDD_IN", "POM_5V_IN"};
  const auto found = std::ranges::find_if(rails, [&](const PowerRail& rail) {
    return std::ranges::find(kInputs, rail.name) != kInputs.end();
  });
  if (found == rails.end()) return std::nullopt;
  return *found;
}

}  // namespace gpumeter::jetson
