// SPDX-License-Identifier: MIT
// `gpumeter vgpu` and `gpumeter vgpu accounting` as tables: per physical GPU its vGPU
// instances, the processes inside the VMs, and the instances' accounting records.
#pragma once

#include <string>

#include "core/model.h"

namespace gpumeter::cli {

std::string render_vgpu_table(const Snapshot& snapshot, bool color);
std::string render_vgpu_accounting_table(const Snapshot& snapshot, bool color);

}  // namespace gpumeter::cli
