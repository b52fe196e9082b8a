// SPDX-License-Identifier: MIT
#include "net/health_route.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>

#include "net/response.h"

namespace gpumeter::net {
namespace {

void answer(const HealthSource& source, httplib::Response& response) {
  const std::optional<TimeUs> last = source.last_round_us();
  if (!last) {
    reply_json(response,
               nlohmann::json{{"status", "starting"}, {"last_round_age_seconds", nullptr}}, 503);
    return;
  }
  const TimeUs age_us = std::max<TimeUs>(0, source.now_us() - *last);
  if (auto waiting = source.waiting_for_driver ? source.waiting_for_driver() : std::nullopt) {
    reply_json(response,
               nlohmann::json{{"status", "waiting"},
                              {"message", "waiting for the NVIDIA driver"},
                              {"last_error", std::move(*waiting)},
                              {"last_round_age_seconds", static_cast<double>(age_us) / 1e6}},
               503);
    return;
  }
  const bool stale = std::chrono::microseconds(age_us) > stale_after(source.interval);
  reply_json(response,
             nlohmann::json{{"status", stale ? "stale" : "ok"},
                            {"last_round_age_seconds", static_cast<double>(age_us) / 1e6}},
             stale ? 503 : 200);
}

}  // namespace

std::chrono::milliseconds stale_after(std::chrono::milliseconds interval) {
  return std::max<std::chrono::milliseconds>(5 * interval, std::chrono::seconds(10));
}

void add_health_route(HttpServer& server, HealthSource source) {
  server.get(
      "/healthz",
      [source = std::move(source)](const httplib::Request&, httplib::Response& response) {
        answer(source, response);
      },
      Access::open);
}

}  // namespace gpumeter::net
