// SPDX-License-Identifier: MIT
// The vGPU view of a snapshot (docs/vgpu.md): per physical GPU its vGPU instances and the
// processes inside their VMs. `gpumeter vgpu --json` prints vgpu_json(); the HTTP route
// /api/v1/vgpu serves the same document; `list --json` carries gpu_vgpu_json() under each
// GPU's "vgpu" key. Specified in schemas/vgpu.schema.json.
#pragma once

#include "core/model.h"
#include "view/json.h"

namespace gpumeter::view {

inline constexpr int kVgpuSchemaVersion = 1;

// One GPU's instances and processes ({"instances": [...], "processes": [...]}).
Json gpu_vgpu_json(const VgpuHost& host);

// The whole document: schema_version, host, time, source, and per GPU its index, uuid,
// name and "vgpu" (null with its reason on bare metal).
Json vgpu_json(const Snapshot& snapshot);

// True when some GPU of the snapshot runs as a vGPU host.
bool has_vgpu_host(const Snapshot& snapshot);

}  // namespace gpumeter::view
