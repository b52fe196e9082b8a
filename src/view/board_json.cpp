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

}  // namespace

void put_board(Json& gpu, Json& unavailable, const Device& device) {
  if (!device.board) {
    gpu["board"] = nullptr;
    unavailable["board"] = to_string(device.board.error());
    return;
  }
  Json board = Json::object();
  Json& rails = board["rails"] = Json::array();
  for (const PowerRail& rail : device.board->rails) rails.push_back(rail_json(rail));
  Json& temperatures = board["temperatures"] = Json::array();
  for (const TemperatureSensor& sensor : device.board->temperatures)
    temperatures.push_back(sensor_json(sensor));
  Json board_unavailable = Json::object();
  put(board, board_unavailable, "engines", device.board->engines,
      [](const std::vector<EngineClock>& engines) {
        Json out = Json::array();
        for (const EngineClock& engine : engines) out.push_back(engine_json(engine));
        return out;
      });
  board["unavailable"] = std::move(board_unavailable);
  gpu["board"] = std::move(board);
}

}  // namespace gpumeter::view
