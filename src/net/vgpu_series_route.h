// SPDX-License-Identifier: MIT
// GET /api/v1/vgpu/series: the recent series of one vGPU instance from the sampler's memory
// (core/vgpu_series.h), columnar for charts (docs/vgpu.md, docs/http.md,
// schemas/vgpu-series.schema.json). A request reads the series only: it costs no GPU call.
#pragma once

#include <functional>

#include "core/sampler.h"
#include "net/http_server.h"

namespace gpumeter::net {

// Registers the route (token access). Parameters: `gpu` (index or UUID) and `vgpu` (the
// instance's UUID or the driver's instance id), both required; `since` (default: everything
// the horizon holds) and `until` (default: now, exclusive) in the forms of net/query_time.h.
// 503 before the first snapshot; 400 for a missing or bad parameter or a GPU the snapshot
// does not have; 404 for an instance with no record in the window's GPU series.
void add_vgpu_series_route(HttpServer& server, const Sampler& sampler,
                           std::function<TimeUs()> now_us);

}  // namespace gpumeter::net
