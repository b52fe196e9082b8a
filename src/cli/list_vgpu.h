// SPDX-License-Identifier: MIT
// What `gpumeter list` says, below its table, about the GPUs that run as vGPU hosts: one line
// per such GPU with its VMs, their vGPU types, SM use and framebuffer (docs/vgpu.md).
#pragma once

#include <string>

#include "core/model.h"

namespace gpumeter::cli {

// One line per vGPU host GPU of the snapshot, each ending in '\n'; empty when there is none.
// "GPU 0: vGPU host, 2 VMs: VM (TYPE, SM 11%, FB 1.5GiB), ...; gpumeter vgpu shows more".
// Absent figures print N/A.
std::string vgpu_host_lines(const Snapshot& snapshot);

}  // namespace gpumeter::cli
