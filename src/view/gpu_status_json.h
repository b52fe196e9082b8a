// `GET /gpu_status`: the snapshot in the flat shape that older agent and master pages poll,
// one object per GPU with what `gpumeter list` shows in its table. Unlike the versioned
// documents (docs/json.md) its keys carry no units: memory is in MiB, the clock in MHz, the
// temperature in °C, utilization in percent; an absent value is null.
//
//   {"hostname": "node1", "gpus": [{"index": 0, "type": "NVIDIA H100", "utilization": 37,
//    "memory_used": 893, "memory_total": 81559, "clock": 1980, "temperature": 41,
//    "users": ["alice"], "pids": [4242], "since": "2024-05-01T09:00:00Z",
//    "cmd": ["python train.py"], "availability": "in_use"}]}
#pragma once

#include "core/model.h"
#include "view/json.h"

namespace gpumeter::view {

Json gpu_status_json(const Snapshot& snapshot);

}  // namespace gpumeter::view
