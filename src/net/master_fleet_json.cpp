#include "net/master_fleet_json.h"

#include <cmath>

namespace gpumeter::net {
namespace {

Json nullable_text(std::string_view text) {
  if (text.empty()) return nullptr;
  return std::string(text);
}

Json node_json(const NodeView& node) {
  Json json;
  json["name"] = node.identity.name;
  json["url"] = node.identity.url;
  json["state"] = to_string(node.state);
  // Milliseconds are all a person or a page needs; more digits only make noise.
  json["age_seconds"] =
      node.age_seconds ? Json(std::round(*node.age_seconds * 1000) / 1000) : Json(nullptr);
  json["error"] = nullable_text(node.error);
  json["status"] = node.status ? *node.status : Json(nullptr);
  json["poll"] = {{"attempts", node.counters.attempts},
                  {"failures", node.counters.failures},
                  {"skipped", node.counters.skipped},
                  {"consecutive_failures", node.counters.consecutive_failures}};
  return json;
}

}  // namespace

Json fleet_json(std::span<const NodeView> nodes, std::string_view source,
                std::string_view fleet_error) {
  Json document;
  document["schema_version"] = kFleetSchemaVersion;
  document["source"] = std::string(source);
  document["error"] = nullable_text(fleet_error);
  Json& array = document["nodes"] = Json::array();
  for (const NodeView& node : nodes) array.push_back(node_json(node));
  return document;
}

Json fleet_json(const FleetState& fleet, std::string_view source) {
  const auto nodes = fleet.nodes(FleetState::Clock::now());
  return fleet_json(nodes, source, fleet.fleet_error());
}

}  // namespace gpumeter::net
