// SPDX-License-Identifier: MIT
#include "master/node.h"

#include <utility>

namespace gpumeter::master {

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

PollOutcome PollOutcome::good(const Json& document) {
  // Replacement characters, not an exception, for a command line that is not UTF-8.
  return good(document, document.dump(-1, ' ', false, Json::error_handler_t::replace));
}

PollOutcome PollOutcome::good(const Json& document, std::string text) {
  // The parser skips a byte-order mark; text spliced into the fleet document must not have one.
  if (text.starts_with("\xEF\xBB\xBF")) text.erase(0, 3);
  const std::int64_t time_us = document.at("time_us").get<std::int64_t>();
  const auto host = document.find("host");
  return PollOutcome{
      NodeState::ok,
      {},
      std::make_shared<const StatusDocument>(StatusDocument{
          .text = std::move(text),
          .time_us = time_us,
          .host = host != document.end() && host->is_string() ? host->get<std::string>() : ""})};
}

PollOutcome PollOutcome::failed(NodeState state, std::string error) {
  return PollOutcome{state, std::move(error), nullptr};
}

}  // namespace gpumeter::master
