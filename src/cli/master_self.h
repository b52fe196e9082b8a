// SPDX-License-Identifier: MIT
// The master's "self" node: this machine read directly, as `gpumeter list --json` reads it,
// with no HTTP to itself. The sources open on the first read and again after a failure to
// open (a driver installed later is picked up), so a master on a machine without a GPU
// driver still serves the rest of the fleet, with "self" unreachable and the reason why.
#pragma once

#include <expected>
#include <optional>

#include "cli/session.h"
#include "core/error.h"
#include "master/node.h"

namespace gpumeter::cli {

class SelfReading {
 public:
  explicit SelfReading(GlobalOptions options) : options_(std::move(options)) {}

  // One reading as a `list --json` document. Errors: those of open_session() and of a
  // collection. Calls must not overlap (the poller makes one at a time).
  std::expected<master::Json, Error> read();

 private:
  GlobalOptions options_;
  std::optional<Session> session_;
};

}  // namespace gpumeter::cli
