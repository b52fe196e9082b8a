// SPDX-License-Identifier: MIT
#include "view/board_json.h"

namespace gpumeter::view {
namespace {

// {"name": NAME, ...what `fill` puts..., "unavailable": {...}}.
template <class Fill>
Json named(const std::string& name, Fill fill) {
  Json out = Json::object();
  Json unavailable = Json::object();
  out["name"] = name;
  fill(out, unavailable);
  out["unavailable"] = std::move(unavailable);
  return out;
}

Json rail_json(const PowerRail& rail) {
  return named(rail.name, [&](Json& out, Json& unavailable) {
    put(out, unavailable, "volts", rail.volts);
    put(out, unavailable, "amperes", rail.amperes);
    put(out, unavailable, "watts", rail.watts);
  });
}

Json sensor_json(const TemperatureSensor& sensor) {
  return named(sensor.name, [&](Json& out, Json& unavailable) {
    put(out, unavailable, "celsius", sensor.celsius);
  });
}

Json engine_json(const EngineClock& engine) {
  return named(engine.name, [&](Json& out, Json& unavailable) {
    put(out, unavailable, "on", engine.on);
    put(out, unavailable, "clock_mhz", engine.clock_mhz);
  });
}

// Each item of `items` as `item_json` writes it.
template <class Item, class ItemJson>
Json array_of(const std::vector<Item>& items, ItemJson item_json) {
  Json out = Json::array();
  for (const Item& item : items) out.push_back(item_json(item));
  return out;
}

Json board_json(const BoardSensors& sensors) {
  Json board = Json::object();
  Json unavailable = Json::object();
  board["rails"] = array_of(sensors.rails, rail_json);
  board["temperatures"] = array_of(sensors.temperatures, sensor_json);
  put(board, unavailable, "engines", sensors.engines,
      [](const std::vector<EngineClock>& engines) { return array_of(engines, engine_json); });
  board["unavailable"] = std::move(unavailable);
  return board;
}

}  // namespace

void put_board(Json& gpu, Json& unavailable, const Device& device) {
  put(gpu, unavailable, "board", device.board, board_json);
}

}  // namespace gpumeter::view
