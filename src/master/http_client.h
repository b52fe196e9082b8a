// SPDX-License-Identifier: MIT
// The master's HTTP client, for agents and for a Prometheus server alike: many GETs at once on
// the calling thread (libcurl's multi interface, no thread per request), each one bounded in
// time (connecting included), in header bytes and lines, and in body bytes; no redirects, no
// keep-alive, no proxies from the environment; https checks the certificate and host name.
// Failures come back as one line for a person (docs/master.md, "Limits of the agent client").
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <expected>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

#include "master/url.h"

namespace gpumeter::master {

struct ClientOptions {
  std::chrono::milliseconds timeout{2000};       // the whole request: connect, headers, body
  std::optional<std::string> token;              // "Authorization: Bearer <token>"
  std::optional<std::filesystem::path> ca_file;  // https: trust these certificates only
};

// What one answer may take; past any of them the request is abandoned at once.
struct HttpLimits {
  std::size_t max_header_bytes = std::size_t{64} * 1024;  // the status line and every header
  std::size_t max_header_lines = 100;                     // the same, counted in lines
  std::size_t max_body_bytes = std::size_t{16} * 1024 * 1024;
};

struct HttpRequest {
  AgentUrl url;        // where to connect (scheme, host, port)
  std::string target;  // the path and query to GET, already encoded: "/api/v1/status"
  ClientOptions options;
  HttpLimits limits;
};

struct HttpAnswer {
  int status = 0;  // 200, 401, ...
  std::string body;
};

struct HttpFailure {
  // `too_large` when an answer broke a limit of HttpLimits (the peer answered, but not like an
  // agent); `no_answer` for everything else: refused, timed out, TLS, a broken connection.
  enum class Kind : std::uint8_t { no_answer, too_large };
  Kind kind = Kind::no_answer;
  std::string message;  // "no answer within 2s", "headers over 65536 bytes", ...
};

using HttpResult = std::expected<HttpAnswer, HttpFailure>;

class HttpClient {
 public:
  // At most `max_connections` requests are in flight at once (at least 1); the others start as
  // earlier ones end, each with its whole timeout.
  explicit HttpClient(std::size_t max_connections = 1024);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // (index of the request, its result)
  using ResultHandler = std::function<void(std::size_t, HttpResult)>;

  // Runs every request, and hands each result to `on_result` on the calling thread as soon as
  // it is in (the others still running meanwhile); returns once every request has ended. When
  // `stop` is requested, returns within a few milliseconds, and the requests still running
  // then get no result. `on_result` must not throw. Calls must not overlap.
  void run_all(std::span<const HttpRequest> requests, const ResultHandler& on_result,
               const std::stop_token& stop = {});

  // The same, with the results in the order of the requests; those cut short by `stop` fail
  // with "stopped before the answer came".
  std::vector<HttpResult> get_all(std::span<const HttpRequest> requests,
                                  const std::stop_token& stop = {});

  HttpResult get(const HttpRequest& request, const std::stop_token& stop = {});

  std::size_t max_connections() const noexcept { return max_connections_; }

 private:
  struct Multi;
  std::size_t max_connections_;
  std::unique_ptr<Multi> multi_;
};

// "2s", "0.3s"
std::string seconds_text(std::chrono::milliseconds duration);

}  // namespace gpumeter::master
