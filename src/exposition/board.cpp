// SPDX-License-Identifier: MIT
// gpumeter_board_*: an embedded board's power rails and temperature sensors (Jetson:
// docs/jetson.md), labelled with their GPU's labels and the rail's or sensor's name.
#include <array>

#include "exposition/parts.h"

namespace gpumeter::exposition {
namespace {

struct RailFigure {
  const char* name;
  const char* help;
  Maybe<double> PowerRail::* value;
};

constexpr std::array kRailFigures{
    RailFigure{"gpumeter_board_rail_power_watts", "Power through one of the board's rails",
               &PowerRail::watts},
    RailFigure{"gpumeter_board_rail_voltage_volts", "Voltage of one of the board's rails",
               &PowerRail::volts},
    RailFigure{"gpumeter_board_rail_current_amperes", "Current through one of the board's rails",
               &PowerRail::amperes},
};

}  // namespace

void append_board_metrics(fmt::memory_buffer& out, const Snapshot& snapshot,
                          const std::vector<Labels>& labels) {
  for (const RailFigure& figure : kRailFigures) {
    Family family(out, figure.name, MetricType::gauge, figure.help);
    for (std::size_t i = 0; i < labels.size(); ++i) {
      const auto& board = snapshot.gpus.devices[i].board;
      if (!board) continue;
      for (const PowerRail& rail : board->rails) {
        const Maybe<double>& value = rail.*figure.value;
        if (value) family.sample(labels[i].with("rail", rail.name), *value);
      }
    }
  }
  Family active(out, "gpumeter_board_engine_active", MetricType::gauge,
                "1 while the engine's clock is enabled (the engine is working), else 0");
  Family clock(out, "gpumeter_board_engine_clock_hertz", MetricType::gauge,
               "Clock rate of one of the board's fixed-function engines");
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const auto& board = snapshot.gpus.devices[i].board;
    if (!board || !board->engines) continue;
    for (const EngineClock& engine : *board->engines) {
      const Labels engine_labels = labels[i].with("engine", engine.name);
      if (engine.on) active.sample(engine_labels, *engine.on ? 1 : 0);
      if (engine.clock_mhz) clock.sample(engine_labels, *engine.clock_mhz * 1e6);
    }
  }
  Family temperature(out, "gpumeter_board_temperature_celsius", MetricType::gauge,
                     "Temperature of one of the board's sensors");
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const auto& board = snapshot.gpus.devices[i].board;
    if (!board) continue;
    for (const TemperatureSensor& sensor : board->temperatures) {
      if (sensor.celsius)
        temperature.sample(labels[i].with("sensor", sensor.name), *sensor.celsius);
    }
  }
}

}  // namespace gpumeter::exposition
