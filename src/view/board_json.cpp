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
  gpu["board"] = std::move(board);
}

}  // namespace gpumeter::view
