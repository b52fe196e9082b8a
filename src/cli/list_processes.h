// SPDX-License-Identifier: MIT
// `gpumeter list --processes`: one row per process on a GPU, with each engine's recent use
// (SM, memory controller, encoder, decoder: GpuProcess::recent_use), the memory it holds, its
// user, age and command; what `nvidia-smi pmon` and the process panes of nvitop show.
#pragma once

#include <string>

#include "core/model.h"

namespace gpumeter::cli {

// The header line, the table, and a line per GPU whose per-process use is N/A saying why.
std::string render_process_table(const Snapshot& snapshot, bool color);

}  // namespace gpumeter::cli
