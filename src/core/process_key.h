// SPDX-License-Identifier: MIT
// ProcessKey: one process over its whole life. A pid alone is not enough, because the kernel
// reuses pids; the start time tells a reused pid from the process that held it before.
#pragma once

#include <compare>

#include "core/model.h"

namespace gpumeter {

struct ProcessKey {
  Pid pid = 0;
  // When the process started, µs since the Unix epoch, as the host source reports it; 0 when
  // unknown (then only the pid identifies the process, and a reused pid is not detected).
  TimeUs start_time_us = 0;

  friend auto operator<=>(const ProcessKey&, const ProcessKey&) = default;
};

}  // namespace gpumeter
