// SPDX-License-Identifier: MIT
// GET /healthz: whether the sampler still runs rounds, for load balancers and systemd
// watchdogs; open to everyone (it tells nothing about users or processes).
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "core/model.h"
#include "net/http_server.h"

namespace gpumeter::net {

struct HealthSource {
  // The time of the sampler's last round, µs since the Unix epoch; absent before the first.
  std::function<std::optional<TimeUs>()> last_round_us;
  std::chrono::milliseconds interval{1000};  // the sampler's interval
  std::function<TimeUs()> now_us;            // the wall clock
  // The last error opening the driver while the daemon waits for it (core/driver_wait.h);
  // absent once the driver answers. Null: never waiting.
  std::function<std::optional<std::string>()> waiting_for_driver;
};

// How old the last round may be before /healthz says the rounds stopped: five intervals, at
// least ten seconds (a round can take a while on a host with many processes).
std::chrono::milliseconds stale_after(std::chrono::milliseconds interval);

// Registers GET /healthz: 200 {"status":"ok","last_round_age_seconds":0.4}; 503 with
// "status":"starting" (age null) before the first round and "stale" when the last round is
// older than stale_after(interval); 503 with "status":"waiting", "message":"waiting for the
// NVIDIA driver" and "last_error" while the driver cannot be opened (rounds run meanwhile).
void add_health_route(HttpServer& server, HealthSource source);

}  // namespace gpumeter::net
