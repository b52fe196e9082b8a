// SPDX-License-Identifier: MIT
// `gpumeter list --json`: the snapshot in a stable, versioned shape. Numbers are numbers,
// units are in the key names, absent values are null with their reason under "unavailable".
// The shape is specified in schemas/list.schema.json and documented in docs/json.md; a
// change that breaks a reader bumps kListSchemaVersion.
#pragma once

#include "core/model.h"
#include "view/json.h"

namespace gpumeter::view {

inline constexpr int kListSchemaVersion = 1;

Json list_json(const Snapshot& snapshot);

}  // namespace gpumeter::view
