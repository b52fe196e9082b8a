// SPDX-License-Identifier: MIT
// An agent over HTTP: GET /api/v1/status with a bounded wait and a bounded answer, and the
// answer sorted into ok, unreachable, unauthorized or garbage.
#include <fmt/format.h>

#include <utility>

#include "master/fetch.h"
#include "master/status_check.h"

namespace gpumeter::master {
namespace {

// A JSON error body's message ({"error": "..."}), if it has one.
std::string error_detail(const std::string& body) {
  const Json parsed = Json::parse(body, nullptr, false);
  if (parsed.is_object() && parsed.contains("error") && parsed["error"].is_string()) {
    return ": " + parsed["error"].get<std::string>();
  }
  return {};
}

PollOutcome classify_status(int status, const std::string& body, bool sent_token) {
  if (status == 401 || status == 403) {
    return PollOutcome::failed(
        NodeState::unauthorized,
        fmt::format("HTTP {}: {}", status,
                    sent_token ? "the agent refused the token" : "the agent wants a token"));
  }
  const std::string detail = fmt::format("HTTP {}{}", status, error_detail(body));
  if (status >= 500) return PollOutcome::failed(NodeState::unreachable, detail);
  return PollOutcome::failed(NodeState::garbage, detail + " (is the URL an agent's?)");
}

PollOutcome parse_status(std::string body) {
  Json document;
  try {
    document = Json::parse(body);
  } catch (const Json::parse_error& error) {
    return PollOutcome::failed(NodeState::garbage,
                               fmt::format("not JSON (at byte {})", error.byte));
  }
  if (auto checked = check_status_document(document); !checked) {
    return PollOutcome::failed(NodeState::garbage, "not a status document: " + checked.error());
  }
  return PollOutcome::good(document, std::move(body));
}

class HttpFetcher final : public StatusFetcher {
 public:
  HttpFetcher(const AgentUrl& url, HttpFetchOptions options)
      : request_{.url = url,
                 .target = url.path("/api/v1/status"),
                 .options = {.timeout = options.timeout,
                             .token = std::move(options.token),
                             .ca_file = std::move(options.ca_file)},
                 .limits = options.limits} {}

  PollOutcome fetch() override {
    HttpClient client(1);
    return read_answer(client.get(request_));
  }

  const HttpRequest* request() const noexcept override { return &request_; }

  PollOutcome read_answer(HttpResult result) const override {
    if (!result) {
      return PollOutcome::failed(result.error().kind == HttpFailure::Kind::too_large
                                     ? NodeState::garbage
                                     : NodeState::unreachable,
                                 std::move(result.error().message));
    }
    if (result->status != 200) {
      return classify_status(result->status, result->body, request_.options.token.has_value());
    }
    return parse_status(std::move(result->body));
  }

 private:
  HttpRequest request_;
};

}  // namespace

PollOutcome StatusFetcher::read_answer(HttpResult /*result*/) const {
  return PollOutcome::failed(NodeState::unreachable, "internal error: not an HTTP fetcher");
}

std::unique_ptr<StatusFetcher> make_http_fetcher(const AgentUrl& url, HttpFetchOptions options) {
  return std::make_unique<HttpFetcher>(url, std::move(options));
}

}  // namespace gpumeter::master
