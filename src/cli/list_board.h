// SPDX-License-Identifier: MIT
// What `gpumeter list` says, below its table, about a board's own sensors (a Jetson's power
// rails and temperature sensors: docs/jetson.md): two lines per such GPU.
#pragma once

#include <string>

#include "core/model.h"

namespace gpumeter::cli {

// "GPU 0 rails: VDD_IN 6.23W (5.06V 1.23A), ...\nGPU 0 temperatures: cpu-thermal 46.4C, ...\n"
// for each GPU with board sensors; empty when there is none. Absent figures print N/A.
std::string board_lines(const Snapshot& snapshot);

}  // namespace gpumeter::cli
