// SPDX-License-Identifier: MIT
// `gpumeter info`: a short table of the GPUs, or with --json the array that scripts written
// for nvgpu's gpu_info() read: index (a string), type (the name), uuid, mem_used and
// mem_total (whole MiB) and mem_used_percent.
#pragma once

#include <string>

#include "cli/json.h"
#include "core/model.h"

namespace gpumeter::cli {

Json info_json(const Snapshot& snapshot);

std::string render_info_table(const Snapshot& snapshot, bool color);

}  // namespace gpumeter::cli
