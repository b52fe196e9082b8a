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
#include "net/master_node.h"
#include "net/master_url.h"

namespace gpumeter::net {

// Fetches one node's status document; one poll per call. Calls of one fetcher must not
// overlap; different fetchers may run at once.
class StatusFetcher {
 public:
  virtual ~StatusFetcher() = default;
  // Never throws: every failure is an outcome.
  virtual PollOutcome fetch() = 0;
};

struct HttpFetchOptions {
  std::optional<std::string> token;              // sent as "Authorization: Bearer <token>"
  std::optional<std::filesystem::path> ca_file;  // https: trust these certificates only
  std::chrono::milliseconds timeout{2000};       // to connect, and for the whole answer
  std::size_t max_answer_bytes = std::size_t{16} * 1024 * 1024;
};

// GET <url>/api/v1/status. https verifies the agent's certificate and host name (against
// `ca_file`, or the system's certificates).
std::unique_ptr<StatusFetcher> make_http_fetcher(const AgentUrl& url, HttpFetchOptions options);

// This machine's `list --json` document, read by the caller's sources; an error becomes an
// unreachable outcome with its message.
using SelfReader = std::function<std::expected<Json, Error>()>;
std::unique_ptr<StatusFetcher> make_self_fetcher(SelfReader reader);

}  // namespace gpumeter::net
