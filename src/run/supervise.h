// SPDX-License-Identifier: MIT
// The wait of `gpumeter run`: until the command has exited, and every process that gpumeter
// adopted meanwhile as their subreaper (orphaned grandchildren) too. Meanwhile it passes
// signals on, follows the tree every interval, and reaps: the kernel then adds each reaped
// process's CPU time and peak RSS to gpumeter's RUSAGE_CHILDREN, which is how the run's CPU
// figures are exact.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <vector>

#include "core/model.h"
#include "run/signals.h"

namespace gpumeter::run {

struct SuperviseHooks {
  std::function<void()> tick;              // every interval
  std::function<void(Pid)> exiting;        // a child of gpumeter, exited, about to be reaped
  std::function<std::vector<Pid>()> tree;  // who gets the signals once the command is gone
};

// Returns the command's wait status (as waitpid gives it). A signal that a process sent to
// gpumeter goes on to the command (to the rest of the tree once the command has exited); one
// the kernel sent, as the terminal's Ctrl-C, has reached the command already and is not sent
// again. Precondition: signals.fd() >= 0.
int supervise(pid_t command, RunSignals& signals, std::chrono::milliseconds interval,
              const SuperviseHooks& hooks);

}  // namespace gpumeter::run
