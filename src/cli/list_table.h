// SPDX-License-Identifier: MIT
// `gpumeter list` for a person: a header line (host, driver, CUDA, time) and one table row
// per GPU; below it, a line per vGPU host GPU (cli/list_vgpu.h).
#pragma once

#include <string>

#include "core/model.h"

namespace gpumeter::cli {

// The whole listing, ending in '\n'. With no GPUs: the header, the table's header row and a
// "no GPUs found" note.
std::string render_list_table(const Snapshot& snapshot, bool color);

}  // namespace gpumeter::cli
