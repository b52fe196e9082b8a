// An agent over HTTP: GET /api/v1/status with a bounded wait and a bounded answer, and the
// answer sorted into ok, unreachable, unauthorized or garbage.
#include <fmt/format.h>
#include <httplib.h>

#include <utility>

#include "net/master_fetch.h"
#include "net/master_http_client.h"
#include "net/master_status_check.h"

namespace gpumeter::net {
namespace {

using Clock = std::chrono::steady_clock;

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

PollOutcome parse_status(const std::string& body) {
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
  return PollOutcome::good(std::move(document));
}

class HttpFetcher final : public StatusFetcher {
 public:
  HttpFetcher(const AgentUrl& url, HttpFetchOptions options)
      : path_(url.path("/api/v1/status")),
        options_(std::move(options)),
        client_(make_client(
            url,
            {.timeout = options_.timeout, .token = options_.token, .ca_file = options_.ca_file})) {}

  PollOutcome fetch() override {
    std::string body;
    bool too_large = false;
    bool too_slow = false;
    const auto deadline = Clock::now() + options_.timeout;
    const auto receive = [&](const char* data, std::size_t length) {
      too_large = body.size() + length > options_.max_answer_bytes;
      too_slow = Clock::now() > deadline;
      if (too_large || too_slow) return false;
      body.append(data, length);
      return true;
    };
    const httplib::Headers headers{{"Accept", "application/json"},
                                   {"User-Agent", "gpumeter-master"}};
    const httplib::Result result = client_->Get(path_, headers, receive);
    if (too_large) {
      return PollOutcome::failed(NodeState::garbage,
                                 fmt::format("an answer over {} bytes", options_.max_answer_bytes));
    }
    if (too_slow) {
      return PollOutcome::failed(
          NodeState::unreachable,
          fmt::format("no whole answer within {}", seconds_text(options_.timeout)));
    }
    if (!result)
      return PollOutcome::failed(NodeState::unreachable,
                                 describe_failure(result.error(), options_.timeout));
    if (result->status != 200)
      return classify_status(result->status, body, options_.token.has_value());
    return parse_status(body);
  }

 private:
  std::string path_;
  HttpFetchOptions options_;
  std::unique_ptr<httplib::ClientImpl> client_;
};

}  // namespace

std::unique_ptr<StatusFetcher> make_http_fetcher(const AgentUrl& url, HttpFetchOptions options) {
  return std::make_unique<HttpFetcher>(url, std::move(options));
}

}  // namespace gpumeter::net
