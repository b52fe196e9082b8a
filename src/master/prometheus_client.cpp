// SPDX-License-Identifier: MIT
#include "master/prometheus_client.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

#include "master/node.h"

namespace gpumeter::master {
namespace {

// Prometheus writes sample values as strings: "0.42", "NaN", "+Inf", "-Inf".
std::optional<double> sample_value(const Json& text) {
  if (!text.is_string()) return std::nullopt;
  const std::string& value = text.get_ref<const std::string&>();
  if (value == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (value == "+Inf") return std::numeric_limits<double>::infinity();
  if (value == "-Inf") return -std::numeric_limits<double>::infinity();
  double number = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
  if (error != std::errc{} || end != value.data() + value.size()) return std::nullopt;
  return number;
}

// The string member `key` of `object`, if it is one.
const std::string* string_member(const Json& object, const char* key) {
  const auto found = object.find(key);
  return found == object.end() ? nullptr : found->get_ptr<const std::string*>();
}

std::expected<PromSample, std::string> parse_sample(const Json& item) {
  PromSample sample;
  if (!item.is_object() || !item.contains("metric") || !item["metric"].is_object() ||
      !item.contains("value") || !item["value"].is_array() || item["value"].size() != 2 ||
      !item["value"][0].is_number()) {
    return std::unexpected("expected {\"metric\": {...}, \"value\": [time, \"value\"]} items");
  }
  for (const auto& [name, label] : item["metric"].items()) {
    const auto* text = label.get_ptr<const std::string*>();
    if (text == nullptr) return std::unexpected("expected string label values");
    sample.labels[name] = *text;
  }
  const auto value = sample_value(item["value"][1]);
  if (!value) return std::unexpected("expected sample values written as strings");
  sample.value = *value;
  sample.time_seconds = item["value"][0].get<double>();
  return sample;
}

// The query as a URL's query value: everything but RFC 3986's unreserved characters escaped.
std::string url_encoded(std::string_view text) {
  std::string encoded;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) != 0 || c == '-' || c == '_' || c == '.' || c == '~') {
      encoded += c;
    } else {
      encoded += fmt::format("%{:02X}", byte);
    }
  }
  return encoded;
}

QueryResult read_answer(HttpResult result) {
  if (!result) return std::unexpected(std::move(result.error().message));
  if (result->status != 200 && result->status != 400 && result->status != 422) {
    return std::unexpected(fmt::format("HTTP {}", result->status));
  }
  // Prometheus explains bad queries (400, 422) in the same JSON shape as answers.
  return parse_query_answer(result->body);
}

}  // namespace

QueryResult parse_query_answer(const std::string& body) {
  const Json answer = Json::parse(body, nullptr, false);
  if (answer.is_discarded() || !answer.is_object())
    return std::unexpected("the answer is not JSON");
  const std::string* status = string_member(answer, "status");
  if (status == nullptr || *status != "success") {
    const std::string* error = string_member(answer, "error");
    return std::unexpected(
        fmt::format("query failed: {}", error != nullptr ? *error : "no reason given"));
  }
  const auto data = answer.find("data");
  const std::string* type = data == answer.end() ? nullptr : string_member(*data, "resultType");
  if (type == nullptr || *type != "vector" || !data->contains("result") ||
      !(*data)["result"].is_array()) {
    return std::unexpected("expected a vector result");
  }
  std::vector<PromSample> samples;
  for (const Json& item : answer["data"]["result"]) {
    auto sample = parse_sample(item);
    if (!sample) return std::unexpected(sample.error());
    samples.push_back(std::move(*sample));
  }
  return samples;
}

PrometheusClient::PrometheusClient(const AgentUrl& url, const ClientOptions& options)
    : url_(url), options_(options) {}

PrometheusClient::~PrometheusClient() = default;

std::vector<QueryResult> PrometheusClient::query_all(std::span<const std::string> queries,
                                                     const std::stop_token& stop) {
  std::vector<HttpRequest> requests;
  requests.reserve(queries.size());
  for (const std::string& promql : queries) {
    requests.push_back({.url = url_,
                        .target = url_.path("/api/v1/query") + "?query=" + url_encoded(promql),
                        .options = options_,
                        .limits = {.max_body_bytes = kMaxPrometheusAnswerBytes}});
  }
  std::vector<HttpResult> results = client_.get_all(requests, stop);
  std::vector<QueryResult> answers;
  answers.reserve(results.size());
  for (HttpResult& result : results) answers.push_back(read_answer(std::move(result)));
  return answers;
}

QueryResult PrometheusClient::query(const std::string& promql) {
  return std::move(query_all(std::span(&promql, 1)).front());
}

}  // namespace gpumeter::master
