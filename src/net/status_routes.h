// SPDX-License-Identifier: MIT
// The routes that render the latest snapshot: GET /api/v1/status (the `gpumeter list --json`
// document) and GET /gpu_status (the flat shape older pages poll, view/gpu_status_json.h).
// Both read Sampler::snapshot() only: a request costs no GPU call.
#pragma once

#include "core/sampler.h"
#include "net/http_server.h"

namespace gpumeter::net {

// Registers both (token access); 503 before the sampler's first snapshot.
void add_status_routes(HttpServer& server, const Sampler& sampler);

}  // namespace gpumeter::net
