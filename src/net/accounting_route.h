// SPDX-License-Identifier: MIT
// GET /api/v1/accounting: every GPU's accounting mode and the records in its driver buffer,
// the document of `gpumeter accounting show --json` (schemas/accounting.schema.json). It reads
// the sampler's latest snapshot, which carries the records, and names users and commands from
// the snapshot's processes and the history's ledger: a request costs no GPU call, and the body
// is rendered once per sampler round however many requests ask.
#pragma once

#include "core/sampler.h"
#include "net/http_server.h"
#include "net/store_pool.h"

namespace gpumeter::net {

struct AccountingSources {
  const Sampler& sampler;
  StorePool* store = nullptr;  // null: no history database (no user or command for exited ones)
};

// Registers the route (token access); 503 before the sampler's first snapshot.
void add_accounting_route(HttpServer& server, const AccountingSources& sources);

}  // namespace gpumeter::net
