// What one poll of one node yields, and the states a node of the fleet can be in
// (docs/master.md, "States").
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace gpumeter::net {

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

// The result of one poll. `document` is set exactly when `state` is ok; `error` is one line
// for a person when it is not.
struct PollOutcome {
  NodeState state = NodeState::unreachable;
  std::string error;
  std::shared_ptr<const Json> document;

  static PollOutcome good(Json document);
  static PollOutcome failed(NodeState state, std::string error);
};

}  // namespace gpumeter::net
