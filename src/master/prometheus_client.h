// SPDX-License-Identifier: MIT
// The part of a Prometheus server's HTTP API that the master reads: instant queries
// (GET /api/v1/query) whose result is a vector of labelled samples, several at once, with the
// bounds of the master's HTTP client (a larger body: one answer holds the whole fleet).
#pragma once

#include <chrono>
#include <expected>
#include <map>
#include <optional>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

#include "master/http_client.h"
#include "master/url.h"

namespace gpumeter::master {

struct PromSample {
  std::map<std::string, std::string> labels;  // "__name__" too, when the query keeps it
  double value = 0;                           // NaN and ±Inf as Prometheus sent them
  double time_seconds = 0;                    // the evaluation time
};

inline constexpr int kDefaultPrometheusPort = 9090;

// An answer of every GPU series of a large fleet runs to tens of MiB; more is not an answer
// this master could hold for every round.
inline constexpr std::size_t kMaxPrometheusAnswerBytes = std::size_t{256} * 1024 * 1024;

using QueryResult = std::expected<std::vector<PromSample>, std::string>;

class PrometheusClient {
 public:
  PrometheusClient(const AgentUrl& url, const ClientOptions& options);
  ~PrometheusClient();
  PrometheusClient(const PrometheusClient&) = delete;
  PrometheusClient& operator=(const PrometheusClient&) = delete;

  // Runs the instant queries at once; one result per query, in order, within the timeout.
  // Error: one line, e.g. "cannot connect", "query failed: parse error at char 5: ...",
  // "expected a vector result". When `stop` is requested it returns at once (failures).
  // Calls must not overlap.
  std::vector<QueryResult> query_all(std::span<const std::string> queries,
                                     const std::stop_token& stop = {});
  QueryResult query(const std::string& promql);

 private:
  AgentUrl url_;
  ClientOptions options_;
  HttpClient client_;
};

// Parses the body of a query's answer (exposed for tests).
QueryResult parse_query_answer(const std::string& body);

}  // namespace gpumeter::master
