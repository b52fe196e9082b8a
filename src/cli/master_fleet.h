// SPDX-License-Identifier: MIT
// What `gpumeter master` polls, built from its settings: a poller over the config file's
// agents (HTTP agents with their tokens, "self" read directly) or over a Prometheus server,
// behind one face for the command to run rounds and render the fleet.
#pragma once

#include <expected>
#include <functional>
#include <memory>
#include <mutex>
#include <ostream>
#include <stop_token>
#include <string>
#include <string_view>

#include "cli/master_options.h"
#include "cli/master_self.h"
#include "core/error.h"
#include "master/fleet.h"
#include "master/poller.h"
#include "master/prometheus_poller.h"

namespace gpumeter::cli {

// Lines on stderr from any thread, whole, each prefixed "gpumeter master: ".
class MasterLog {
 public:
  explicit MasterLog(std::ostream& err) : err_(err) {}
  void line(const std::string& text);

 private:
  std::mutex mutex_;
  std::ostream& err_;
};

class MasterFleet {
 public:
  // Reads the agents' token files and builds the poller (no poll yet). Warns on `log` about
  // tokens sent in clear text and, in Prometheus mode, about [[agent]] tables left unused.
  // Errors: an unreadable or malformed token file (naming it).
  static std::expected<std::unique_ptr<MasterFleet>, Error> open(const MasterSettings& settings,
                                                                 const GlobalOptions& global,
                                                                 MasterLog& log);

  // One poll round (returns when every poll ended, or at once when `stop` is requested).
  void refresh(const std::stop_token& stop = {});
  const master::FleetState& state() const noexcept;
  std::string_view source() const noexcept { return prometheus_ ? "prometheus" : "agents"; }

 private:
  MasterFleet() = default;

  std::unique_ptr<SelfReading> self_;  // before the poller, whose "self" fetcher reads it
  std::unique_ptr<master::Poller> poller_;
  std::unique_ptr<master::PrometheusPoller> prometheus_;
};

}  // namespace gpumeter::cli
