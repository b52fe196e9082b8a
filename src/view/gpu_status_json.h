// SPDX-License-Identifier: MIT
// `GET /gpu_status`: the snapshot in the shape nvgpu's agents serve and its master polls
// (`{"hostname", "gpus": [...]}`, one flat object per GPU: what `gpumeter list` shows in its
// table), so that an nvgpu master shows a gpumeter agent as it shows its own. nvgpu's keys keep
// nvgpu's types (comma-joined `pids` and `users`, a humanized `running_since`); gpumeter adds
// `index`, `memory_used`, `memory_total` (MiB), `since` (ISO 8601) and `availability`. Unlike
// the versioned documents (docs/json.md) its keys carry no units; an absent value is null.
//
//   {"hostname": "node1", "gpus": [{"type": "NVIDIA H100", "is_available": false,
//    "pids": "4242", "users": "alice", "running_since": "2 hours ago", "utilization": 37,
//    "clock_mhz": 1980, "temperature": 41, "cmd": "train.py", "index": 0, "memory_used": 893,
//    "memory_total": 81559, "since": "2024-05-01T09:00:00Z", "availability": "in_use"}]}
#pragma once

#include <string>

#include "core/model.h"
#include "view/json.h"

namespace gpumeter::view {

// "running_since" is read at the snapshot's time: the document describes that moment.
Json gpu_status_json(const Snapshot& snapshot);

// How long ago, in words, as nvgpu's running_since says it: "just now", "5 seconds ago",
// "a minute ago", "12 minutes ago", "an hour ago", "3 hours ago", "a day ago", "4 days ago",
// "a month ago", "2 years ago".
std::string ago_in_words(TimeUs duration_us);

}  // namespace gpumeter::view
