#include "view/board_json.h"

namespace gpumeter::view {
namespace {

Json rail_json(const PowerRail& rail) {
  Json out = Json::object();
  Json unavailable = Json::object();
  out["name"] = rail.name;
  put(out, unavailable, "volts", rail.volts);
  put(out, unavailable, "amperes", rail.amperes);
  put(out, unavailable, "watts", rail.watts);
  out["unavailable"] = std::move(unavailable);
  return out;
}

Json sensor_json(const TemperatureSensor& sensor) {
  Json out = Json::object();
  Json unavailable = Json::object();
  out["name"] = sensor.name;
  put(out, unavailable, "celsius", sensor.celsius);
  out["unavailable"] = std::move(unavailable);
  return out;
}

Json engine_json(const EngineClock& engine) {
  Json out = Json::object();
  Json unavailable = Json::object();
  out["name"] = engine.name;
  put(out, unavailable, "on", engine.on);
  put(out, unavailable, "clock_mhz", engine.clock_mhz);
  out["unavailable"] = std::move(unavailable);
  return out;
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
