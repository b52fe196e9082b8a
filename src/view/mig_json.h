// SPDX-License-Identifier: MIT
// The "mig" member of a GPU in `list --json` (and the daemon's /api/v1/status): null on GPUs
// without MIG, else the mode and every MIG device with its ids, profile, UUID, memory and
// the pids of its processes (which the GPU's "processes" list in full, with their ids).
#pragma once

#include "core/model.h"
#include "view/json.h"

namespace gpumeter::view {

// Sets gpu["mig"], recording the reason under `unavailable` when it is null.
void put_mig(Json& gpu, Json& unavailable, const Device& device);

}  // namespace gpumeter::view
