// SPDX-License-Identifier: MIT
// `gpumeter top --connect ADDRESS`: the screen of `top` over a running daemon's HTTP API
// (cli/top_remote.h), with no sampler and no NVML call of its own; run by gpumeter-serve, which
// has the HTTP client.
#pragma once

#include <span>
#include <string>

#include "cli/commands.h"
#include "cli/top_live.h"

namespace gpumeter::cli {

int run_remote_top(const Output& output, const RemoteTopRequest& request,
                   std::span<const std::string> args);

}  // namespace gpumeter::cli
