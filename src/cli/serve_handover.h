// SPDX-License-Identifier: MIT
// `daemon` and `master` as the `gpumeter` executable adds them: each hands the whole command
// line over to gpumeter-serve (cli/install_layout.h) by exec, in the same process, so that a
// service manager's signals and readiness notification reach the daemon unchanged.
#pragma once

#include "cli/cli.h"

namespace gpumeter::cli {

const ServeCommands& handed_over_commands();

}  // namespace gpumeter::cli
