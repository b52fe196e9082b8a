// SPDX-License-Identifier: MIT
// The frame `top --connect` draws from a running daemon's HTTP API instead of a sampler of its
// own: the status document (GET /api/v1/status, docs/json.md) and each GPU's history (GET
// /api/v1/history). The documents are read as gpumeter writes them; a key that is missing or
// of another type reads as absent (N/A), never as an error, so that a daemon of another
// version still shows what both know.
#pragma once

#include <string>

#include "top/frame.h"
#include "top/frame_builder.h"
#include "view/json.h"

namespace gpumeter::top {

// The document's round, a point per GPU; nothing when its time_us is not newer than the last.
void add_status_round(GpuHistory& history, const view::Json& status);

// The bucket averages of a /api/v1/history answer times `scale`, oldest first; NaN where a
// bucket holds no reading. Empty for an answer of another shape.
History history_points(const view::Json& answer, double scale = 1.0);

Frame frame_from_status(const view::Json& status, const GpuHistory& history,
                        std::string error = {});

}  // namespace gpumeter::top
