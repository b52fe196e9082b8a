// SPDX-License-Identifier: MIT
#include "cli/master_serve.h"

#include <fmt/format.h>
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <stop_token>
#include <thread>
#include <utility>

#include "cli/commands.h"
#include "cli/report_prometheus.h"
#include "core/wall_clock.h"
#include "daemon/systemd_notify.h"
#include "master/fleet_json.h"
#include "master/routes.h"
#include "master/ticker.h"
#include "net/dashboard_routes.h"
#include "net/health_route.h"
#include "net/http_server.h"
#include "net/token_file.h"
#include "net/usage_route.h"

namespace gpumeter::cli {
namespace {

std::expected<net::HttpConfig, Error> http_config(const MasterSettings& settings) {
  auto listen = net::parse_listen(settings.listen);
  if (!listen) {
    return std::unexpected(Error{ErrorCode::invalid_input, "--listen: " + listen.error().message});
  }
  net::HttpConfig config{.listen = *listen,
                         .insecure = settings.insecure,
                         .tls_certificate = settings.tls_cert,
                         .tls_key = settings.tls_key};
  if (settings.token_file) {
    auto token = net::read_token_file(*settings.token_file);
    if (!token) return std::unexpected(std::move(token.error()));
    config.token = std::move(*token);
  }
  return config;
}

// A month's report by day is a hundred queries, each over a day of samples: longer than a poll.
constexpr std::chrono::seconds kUsageTimeout{30};

void add_routes(net::HttpServer& server, MasterFleet& fleet, const MasterSettings& settings,
                const std::atomic<TimeUs>& last_round) {
  const MasterConfig& config = settings.config;
  net::register_dashboard_routes(server);
  if (settings.prometheus) {
    net::add_usage_route(
        server, {.fleet = prometheus_usage_source(*settings.prometheus, {.timeout = kUsageTimeout}),
                 .quotas = settings.quotas ? &*settings.quotas : nullptr,
                 .now_us = wall_clock_us});
  }
  master::add_fleet_route(server,
                          [&fleet] { return master::fleet_text(fleet.state(), fleet.source()); });
  net::add_health_route(server, {.last_round_us = [&last_round]() -> std::optional<TimeUs> {
                                   const TimeUs last = last_round.load();
                                   if (last == 0) return std::nullopt;
                                   return last;
                                 },
                                 .interval = config.interval,
                                 .now_us = wall_clock_us});
}

}  // namespace

StopSignals::StopSignals() {
  sigemptyset(&set_);
  sigaddset(&set_, SIGTERM);
  sigaddset(&set_, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set_, &previous_);
}

StopSignals::~StopSignals() {
  pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
}

int StopSignals::wait() const {
  int signal = 0;
  sigwait(&set_, &signal);
  return signal;
}

int serve_master(const MasterSettings& settings, MasterFleet& fleet, const StopSignals& signals,
                 MasterLog& log, std::ostream& err) {
  auto config = http_config(settings);
  if (!config) return report(err, config.error());
  for (const std::string& warning : net::security_warnings(*config)) {
    log.line("warning: " + warning);
  }
  auto server = net::HttpServer::open(*config);
  if (!server) return report(err, server.error());
  std::atomic<TimeUs> last_round{0};
  add_routes(**server, fleet, settings, last_round);
  const auto round = [&fleet, &last_round](const std::stop_token& stop) {
    fleet.refresh(stop);
    last_round = wall_clock_us();
  };
  std::stop_source stopping;
  int signal = 0;
  // The stop signal is awaited beside the rounds, so that it cuts the first round short too.
  std::jthread waiter([&signals, &signal, &stopping] {
    signal = signals.wait();
    stopping.request_stop();
  });
  round(stopping.get_token());  // the first request finds every node polled once
  if (!stopping.stop_requested()) {
    const master::Ticker ticker(settings.config.interval, round, false);
    (*server)->start();
    log.line(fmt::format(
        "serving the fleet ({} nodes from {}) on {}/api/v1/fleet, polling every "
        "{}ms",
        fleet.state().size(), fleet.source(), (*server)->url(), settings.config.interval.count()));
    daemon::notify_systemd("READY=1\nSTATUS=polling");
    waiter.join();
  }
  if (waiter.joinable()) waiter.join();  // `signal` is written before the stop is requested
  daemon::notify_systemd("STOPPING=1");
  log.line(fmt::format("stopping ({})", signal == SIGTERM ? "SIGTERM" : "SIGINT"));
  (*server)->stop();
  return 0;
}

}  // namespace gpumeter::cli
