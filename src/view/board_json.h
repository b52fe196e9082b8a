// SPDX-License-Identifier: MIT
// A GPU's "board" object in `list --json` and /api/v1/status: an embedded board's power rails
// and temperature sensors (docs/json.md, docs/jetson.md), or null with its reason.
#pragma once

#include "core/model.h"
#include "view/json.h"

namespace gpumeter::view {

void put_board(Json& gpu, Json& unavailable, const Device& device);

}  // namespace gpumeter::view
