// SPDX-License-Identifier: MIT
// GET /api/v1/vgpu: the `gpumeter vgpu --json` document (schemas/vgpu.schema.json) of the
// sampler's latest snapshot. A request reads Sampler::snapshot() only: it costs no GPU call.
#pragma once

#include "core/sampler.h"
#include "net/http_server.h"

namespace gpumeter::net {

// Registers the route (token access); 503 before the sampler's first snapshot.
void add_vgpu_route(HttpServer& server, const Sampler& sampler);

}  // namespace gpumeter::net
