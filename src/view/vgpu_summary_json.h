// SPDX-License-Identifier: MIT
// The "vgpu" member of a GPU in `list --json` (and the daemon's /api/v1/status): null on GPUs
// that are not vGPU hosts, else a summary of the instances (one per VM) with their UUID, VM,
// type, SM use and framebuffer in use. `gpumeter vgpu --json` (view/vgpu_json.h) has the rest.
#pragma once

#include "core/model.h"
#include "view/json.h"

namespace gpumeter::view {

// Sets gpu["vgpu"], recording the reason under `unavailable` when it is null.
void put_vgpu_summary(Json& gpu, Json& unavailable, const Device& device);

}  // namespace gpumeter::view
