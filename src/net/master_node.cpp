#include "net/master_node.h"

#include <utility>

namespace gpumeter::net {

std::string_view to_string(NodeState state) noexcept {
  switch (state) {
    case NodeState::ok: return "ok";
    case NodeState::unreachable: return "unreachable";
    case NodeState::unauthorized: return "unauthorized";
    case NodeState::garbage: return "garbage";
    case NodeState::stale: return "stale";
  }
  return "unreachable";
}

PollOutcome PollOutcome::good(Json document) {
  return PollOutcome{NodeState::ok, {}, std::make_shared<const Json>(std::move(document))};
}

PollOutcome PollOutcome::failed(NodeState state, std::string error) {
  return PollOutcome{state, std::move(error), nullptr};
}

}  // namespace gpumeter::net
