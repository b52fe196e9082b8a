// SPDX-License-Identifier: MIT
// What one poll of one node yields, and the states a node of the fleet can be in
// (docs/master.md, "States").
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace gpumeter::master {

// Documents keep their keys in the order they were written, as `gpumeter list --json` prints.
using Json = nlohmann::ordered_json;

enum class NodeState : std::uint8_t {
  ok,            // the last poll returned a valid status document
  unreachable,   // no answer: connection refused or reset, a timeout, a TLS failure, a 5xx
  unauthorized,  // the agent refused the token (401 or 403)
  garbage,       // an answer that is not a status document (bad JSON, wrong shape, a 4xx)
  stale,         // answers, but its reading has not changed for `stale_after` poll intervals
};

// "ok", "unreachable", ... as the fleet document spells them.
std::string_view to_string(NodeState state) noexcept;

// A checked status document, kept as text: the fleet route writes it out as it is, and a parsed
// tree of a large document would take several times the memory of its text.
struct StatusDocument {
  std::string text;          // one JSON object, on one line or not
  std::int64_t time_us = 0;  // the reading's own time ("time_us")
  std::string host;          // the name the machine gives itself ("host"), to spot duplicates

  Json parse() const { return Json::parse(text); }
};

// The result of one poll. `document` is set exactly when `state` is ok; `error` is one line
// for a person when it is not.
struct PollOutcome {
  NodeState state = NodeState::unreachable;
  std::string error;
  std::shared_ptr<const StatusDocument> document;

  // A document that check_status_document() accepted; `text`, when given, is the exact text it
  // was parsed from (an agent's answer, kept byte for byte), else it is written out.
  static PollOutcome good(const Json& document);
  static PollOutcome good(const Json& document, std::string text);
  static PollOutcome failed(NodeState state, std::string error);
};

}  // namespace gpumeter::master
