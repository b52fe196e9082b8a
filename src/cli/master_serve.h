// SPDX-License-Identifier: MIT
// `gpumeter master` serving: the fleet on its HTTP server (the dashboard, GET /api/v1/fleet,
// GET /healthz), a poll round every interval, until SIGTERM or SIGINT.
#pragma once

#include <csignal>
#include <ostream>

#include "cli/master_fleet.h"
#include "cli/master_options.h"

namespace gpumeter::cli {

// SIGTERM and SIGINT, blocked from construction in this thread and in every thread started
// after it (threads inherit the mask), so that only wait() receives them; the mask is restored
// on destruction. Create it before any thread that must not be interrupted.
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // Waits for one of the signals; returns its number.
  int wait() const;

 private:
  sigset_t set_{};
  sigset_t previous_{};
};

// Opens the server (the security rules of net::HttpServer), runs a first round, then serves
// and polls until a stop signal. Logs the address served and the security warnings. Returns
// the exit status: 0 after a signal; the error's status when the token file or the address
// is refused (nothing is polled then).
int serve_master(const MasterSettings& settings, MasterFleet& fleet, const StopSignals& signals,
                 MasterLog& log, std::ostream& err);

}  // namespace gpumeter::cli
