// SPDX-License-Identifier: MIT
// How the master gets one node's status document: over HTTP from an agent's
// GET /api/v1/status, or for "self" straight from this machine's sources (no HTTP to itself).
#pragma once

#include <chrono>
#include <cstddef>
#include <expected>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "core/error.h"
#include "master/http_client.h"
#include "master/node.h"
#include "master/url.h"

namespace gpumeter::master {

// Fetches one node's status document; one poll per call. Calls of one fetcher must not
// overlap; different fetchers may run at once.
class StatusFetcher {
 public:
  virtual ~StatusFetcher() = default;
  // Polls on its own and waits for the outcome. Never throws: every failure is an outcome.
  virtual PollOutcome fetch() = 0;

  // An agent over HTTP: the request of a poll, so that the poller can run a whole round's
  // requests at once on one HttpClient and hand each result to read_answer(). Null for a
  // fetcher that reads without HTTP ("self"), whose fetch() the poller calls instead.
  virtual const HttpRequest* request() const noexcept { return nullptr; }
  // The outcome of an answer to request(). Never throws.
  virtual PollOutcome read_answer(HttpResult result) const;
};

struct HttpFetchOptions {
  std::optional<std::string> token;              // sent as "Authorization: Bearer <token>"
  std::optional<std::filesystem::path> ca_file;  // https: trust these certificates only
  std::chrono::milliseconds timeout{2000};       // connect, headers and body: the whole answer
  HttpLimits limits;                             // header bytes and lines, body bytes
};

// GET <url>/api/v1/status. https verifies the agent's certificate and host name (against
// `ca_file`, or the system's certificates). An answer that breaks a limit is garbage.
std::unique_ptr<StatusFetcher> make_http_fetcher(const AgentUrl& url, HttpFetchOptions options);

// This machine's `list --json` document, read by the caller's sources; an error becomes an
// unreachable outcome with its message.
using SelfReader = std::function<std::expected<Json, Error>()>;
std::unique_ptr<StatusFetcher> make_self_fetcher(SelfReader reader);

}  // namespace gpumeter::master
