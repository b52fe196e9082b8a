// SPDX-License-Identifier: MIT
// `daemon` and `master` as gpumeter-serve adds them: the commands themselves.
#pragma once

#include "cli/cli.h"

namespace gpumeter::cli {

const ServeCommands& serve_commands();

}  // namespace gpumeter::cli
