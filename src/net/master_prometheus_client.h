// The part of a Prometheus server's HTTP API that the master reads: instant queries
// (GET /api/v1/query) whose result is a vector of labelled samples.
#pragma once

#include <chrono>
#include <expected>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "net/master_http_client.h"
#include "net/master_url.h"

namespace gpumeter::net {

struct PromSample {
  std::map<std::string, std::string> labels;  // "__name__" too, when the query keeps it
  double value = 0;                           // NaN and ±Inf as Prometheus sent them
  double time_seconds = 0;                    // the evaluation time
};

inline constexpr int kDefaultPrometheusPort = 9090;

class PrometheusClient {
 public:
  PrometheusClient(const AgentUrl& url, const ClientOptions& options);
  ~PrometheusClient();
  PrometheusClient(const PrometheusClient&) = delete;
  PrometheusClient& operator=(const PrometheusClient&) = delete;

  // Runs an instant query. Error: one line, e.g. "cannot connect", "HTTP 400: parse error
  // at char 5: ...", "expected a vector result". Calls must not overlap.
  std::expected<std::vector<PromSample>, std::string> query(const std::string& promql);

 private:
  std::string path_;
  std::chrono::milliseconds timeout_;
  std::unique_ptr<httplib::ClientImpl> client_;
};

// Parses the body of a query's answer (exposed for tests).
std::expected<std::vector<PromSample>, std::string> parse_query_answer(const std::string& body);

}  // namespace gpumeter::net
