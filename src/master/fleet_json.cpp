// SPDX-License-Identifier: MIT
#include "master/fleet_json.h"

#include <cmath>
#include <map>
#include <string>
#include <vector>

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

// The nodes by the host name their last reading gives: two nodes with one name are one
// machine configured twice, or two machines that call themselves the same (cloned images).
// Either way they are flagged, never merged.
using NamesByHost = std::map<std::string, std::vector<std::string>, std::less<>>;

NamesByHost names_by_host(std::span<const NodeView> nodes) {
  NamesByHost names;
  for (const NodeView& node : nodes) {
    if (node.status && !node.status->host.empty())
      names[node.status->host].push_back(node.identity.name);
  }
  return names;
}

Json same_host_as(const NodeView& node, const NamesByHost& names) {
  Json others = Json::array();
  if (!node.status || node.status->host.empty()) return others;
  for (const std::string& name : names.find(node.status->host)->second) {
    if (name != node.identity.name) others.push_back(name);
  }
  return others;
}

// A node's keys before "status".
Json node_fields(const NodeView& node, const NamesByHost& names) {
  Json json;
  json["name"] = node.identity.name;
  json["url"] = node.identity.url;
  json["state"] = to_string(node.state);
  // Milliseconds are all a person or a page needs; more digits only make noise.
  json["age_seconds"] =
      node.age_seconds ? Json(std::round(*node.age_seconds * 1000) / 1000) : Json(nullptr);
  json["error"] = nullable_text(node.error);
  json["same_host_as"] = same_host_as(node, names);
  return json;
}

Json poll_json(const PollCounters& counters) {
  return {{"attempts", counters.attempts},
          {"failures", counters.failures},
          {"skipped", counters.skipped},
          {"consecutive_failures", counters.consecutive_failures}};
}

// The node as text: its fields, then its status document as kept, then its counters.
void append_node(std::string& out, const NodeView& node, const NamesByHost& names) {
  std::string fields = dumped(node_fields(node, names));
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
  const NamesByHost names = names_by_host(nodes);
  for (const NodeView& node : nodes) {
    Json json = node_fields(node, names);
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
  const NamesByHost names = names_by_host(nodes);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (i > 0) out += ',';
    append_node(out, nodes[i], names);
  }
  out += "]}";
  return out;
}

std::string fleet_text(const FleetState& fleet, std::string_view source) {
  const auto nodes = fleet.nodes(FleetState::Clock::now());
  return fleet_text(nodes, source, fleet.fleet_error());
}

}  // namespace gpumeter::master
