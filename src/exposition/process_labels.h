// SPDX-License-Identifier: MIT
// The label values that name a GPU process in the exposition: its owner and its command.
#pragma once

#include <string>

#include "core/model.h"

namespace gpumeter::exposition {

// The owner as `list` shows it: the user name, else the uid as a number, else "?" (an owner
// that cannot be seen: no permission, another pid namespace, a process that exited).
std::string owner_label(const Maybe<HostProcess>& host);

// The short command as `list` shows it (view::short_command of the command line, else the
// kernel's name for the process), else "" (Prometheus reads an empty label as no label).
std::string command_label(const Maybe<HostProcess>& host);

}  // namespace gpumeter::exposition
