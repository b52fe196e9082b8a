// SPDX-License-Identifier: MIT
// GET /api/v1/history for a MIG device: `gpu=MIG-...` names one MIG device of the snapshot, and
// its memory_used and GPM history comes from the store's per-minute and per-hour MIG rows
// (store/mig_memory.h; docs/http.md). The sampler keeps no MIG series in memory, so the
// current minute is the store's row so far.
#pragma once

#include <httplib.h>

#include "net/history_request.h"
#include "net/history_route.h"
#include "net/request_deadline.h"

namespace gpumeter::net {

// Answers when `request.gpu` is the uuid of a MIG device of the snapshot and returns true;
// returns false (answering nothing) otherwise. 400 for another metric than memory_used or a
// GPM figure, 503 without a history database or when the read runs past `deadline`, 500 when
// it cannot be read.
bool answer_mig_history(const HistorySources& sources, const Snapshot& snapshot,
                        const HistoryRequest& request, const RequestDeadline& deadline,
                        httplib::Response& response);

}  // namespace gpumeter::net
