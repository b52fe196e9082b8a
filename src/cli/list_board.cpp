// SPDX-License-Identifier: MIT
#include "cli/list_board.h"

#include <fmt/format.h>

#include "view/humanize.h"

namespace gpumeter::cli {
namespace {

std::string figure(const Maybe<double>& value, std::string_view unit, int decimals) {
  if (!value) return std::string(view::kNotAvailable);
  return fmt::format("{:.{}f}{}", *value, decimals, unit);
}

std::string rail_text(const PowerRail& rail) {
  return fmt::format("{} {} ({} {})", rail.name, figure(rail.watts, "W", 2),
                     figure(rail.volts, "V", 2), figure(rail.amperes, "A", 2));
}

std::string sensor_text(const TemperatureSensor& sensor) {
  return fmt::format("{} {}", sensor.name, figure(sensor.celsius, "C", 1));
}

template <class Item, class Text>
std::string joined(const std::vector<Item>& items, Text text) {
  std::string out;
  for (const Item& item : items) out += (out.empty() ? "" : ", ") + text(item);
  return out;
}

std::string engine_text(const EngineClock& engine) {
  if (engine.on && !*engine.on) return engine.name + " off";
  return fmt::format("{} {}", engine.name, figure(engine.clock_mhz, "MHz", 0));
}

}  // namespace

std::string board_lines(const Snapshot& snapshot) {
  std::string out;
  for (const Device& device : snapshot.gpus.devices) {
    if (!device.board) continue;
    const std::uint32_t index = device.identity.index;
    if (!device.board->rails.empty())
      out += fmt::format("GPU {} rails: {}\n", index, joined(device.board->rails, rail_text));
    if (!device.board->temperatures.empty()) {
      out += fmt::format("GPU {} temperatures: {}\n", index,
                         joined(device.board->temperatures, sensor_text));
    }
    if (device.board->engines && !device.board->engines->empty()) {
      out +=
          fmt::format("GPU {} engines: {}\n", index, joined(*device.board->engines, engine_text));
    }
  }
  return out;
}

}  // namespace gpumeter::cli
