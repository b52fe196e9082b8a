#include "master/fleet_json.h"

#include <cmath>

namespace gpumeter::master {
namespace {

Json nullable_text(std::string_view text) {
  if (text.empty()) return nullptr;
  return std::string(text);
}

std::string dumped(const Json& json) {
  // Replacement characters, not an exception, for text that is not UTF-8.
  return json.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Json head_json(std::string_view source, std::string_view fleet_error) {
  Json head;
  head["schema_version"] = kFleetSchemaVersion;
  head["source"] = std::string(source);
  head["error"] = nullable_text(fleet_error);
  return head;
}

// A node's keys before "status".
Json node_fields(const NodeView& node) {
  Json json;
  json["name"] = node.identity.name;
  json["url"] = node.identity.url;
  json["state"] = to_string(node.state);
  // Milliseconds are all a person or a page needs; more digits only make noise.
  json["age_seconds"] =
      node.age_seconds ? Json(std::round(*node.age_seconds * 1000) / 1000) : Json(nullptr);
  json["error"] = nullable_text(node.error);
  return json;
}

Json poll_json(const PollCounters& counters) {
  return {{"attempts", counters.attempts},
          {"failures", counters.failures},
          {"skipped", counters.skipped},
          {"consecutive_failures", counters.consecutive_failures}};
}

// The node as text: its fields, then its status document as kept, then its counters.
void append_node(std::string& out, const NodeView& node) {
  std::string fields = dumped(node_fields(node));
  fields.pop_back();  // the closing brace: more keys follow
  out += fields;
  out += R"(,"status":)";
  out += node.status ? node.status->text : "null";
  out += R"(,"poll":)";
  out += dumped(poll_json(node.counters));
  out += '}';
}

}  // namespace

Json fleet_json(std::span<const NodeView> nodes, std::string_view source,
                std::string_view fleet_error) {
  Json document = head_json(source, fleet_error);
  Json& array = document["nodes"] = Json::array();
  for (const NodeView& node : nodes) {
    Json json = node_fields(node);
    json["status"] = node.status ? node.status->parse() : Json(nullptr);
    json["poll"] = poll_json(node.counters);
    array.push_back(std::move(json));
  }
  return document;
}

Json fleet_json(const FleetState& fleet, std::string_view source) {
  const auto nodes = fleet.nodes(FleetState::Clock::now());
  return fleet_json(nodes, source, fleet.fleet_error());
}

std::string fleet_text(std::span<const NodeView> nodes, std::string_view source,
                       std::string_view fleet_error) {
  std::size_t size = 256;
  for (const NodeView& node : nodes) size += 512 + (node.status ? node.status->text.size() : 0);
  std::string out;
  out.reserve(size);  // one allocation for documents of tens of megabytes
  out += dumped(head_json(source, fleet_error));
  out.pop_back();  // the closing brace: "nodes" follows
  out += R"(,"nodes":[)";
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (i > 0) out += ',';
    append_node(out, nodes[i]);
  }
  out += "]}";
  return out;
}

std::string fleet_text(const FleetState& fleet, std::string_view source) {
  const auto nodes = fleet.nodes(FleetState::Clock::now());
  return fleet_text(nodes, source, fleet.fleet_error());
}

}  // namespace gpumeter::master
