// SPDX-License-Identifier: MIT
// The CLI's JSON documents follow the conventions of view/json.h; these are its names for them.
#pragma once

#include "view/json.h"

namespace gpumeter::cli {

using view::dump_json;
using view::Json;

}  // namespace gpumeter::cli
