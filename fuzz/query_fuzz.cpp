// SPDX-License-Identifier: MIT
// The HTTP API's query parameters (src/net/query_time, query_params, history_request;
// docs/http.md). The input is a query string, split into parameters by cpp-httplib's own
// parser as the server does it; every parameter value also goes through the time, step and
// duration parsers on its own. Promise: a time is absent or a value, a step at least 1 s, and
// a parsed history request names a non-empty window of at most kMaxHistoryPoints steps.
#include <httplib.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/duration.h"
#include "fuzz_check.h"
#include "net/history_request.h"
#include "net/query_params.h"
#include "net/query_time.h"
#include "view/report_time.h"

namespace {

using namespace gpumeter;

// 2026-11-22T00:00:00Z, fixed so that a crash replays the same way.
constexpr TimeUs kNowUs = 1'795'305'600'000'000;

void check_value(const std::string& value) {
  (void)net::parse_query_time(value, kNowUs);
  (void)view::parse_report_time(value, kNowUs);
  if (const auto step = net::parse_step(value)) {
    fuzz::check(*step >= std::chrono::seconds{1}, "query: a step under 1 s");
  }
  if (const auto duration = parse_duration(value)) {
    fuzz::check(duration->count() >= 0, "query: a negative duration");
  }
  if (const auto seconds = parse_whole_seconds(value)) {
    fuzz::check(parse_duration(value) == *seconds, "query: whole seconds of another duration");
  }
}

void check_history(const httplib::Request& request) {
  const auto parsed = net::parse_history_request(request, kNowUs, std::chrono::milliseconds{1000});
  if (!parsed) {
    fuzz::check(parsed.error().code == ErrorCode::invalid_input, "history: not invalid_input");
    return;
  }
  fuzz::check(parsed->since_us < parsed->until_us, "history: an empty window");
  fuzz::check(parsed->step_us > 0, "history: a step of 0");
  fuzz::check((parsed->until_us - parsed->since_us) / parsed->step_us <= net::kMaxHistoryPoints,
              "history: more buckets than the limit");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  httplib::Request request;
  httplib::detail::parse_query_text(std::string{fuzz::text_of(data, size)}, request.params);
  for (const auto& [name, value] : request.params) {
    check_value(value);
  }
  (void)net::time_param(request, "since", kNowUs - 3'600'000'000, kNowUs);
  check_history(request);
  return 0;
}
