// SPDX-License-Identifier: MIT
// MIG (Multi-Instance GPU): a GPU in MIG mode is split into instances, each with its own
// memory and processes. What the driver does not give under MIG (utilisation of the whole
// GPU, per-process utilisation) is absent with Unavailable::mig, never 0.
//
// Included by core/model.h once GpuProcess is defined; include that header, not this one.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/metrics.h"
#include "core/unavailable.h"

namespace gpumeter {

// What the tool shows where a MIG GPU's processes would have their utilisation.
inline constexpr std::string_view kMigNoProcessUtilization =
    "MIG: the driver reports no per-process utilisation";

// One MIG device: a compute instance inside a GPU instance.
struct MigDevice {
  std::uint32_t gpu_instance_id = 0;
  std::uint32_t compute_instance_id = 0;
  Maybe<std::string> uuid = std::unexpected(Unavailable::error);     // "MIG-..."
  Maybe<std::string> profile = std::unexpected(Unavailable::error);  // "1g.10gb"
  Maybe<double> memory_total_bytes = std::unexpected(Unavailable::error);
  Maybe<double> memory_used_bytes = std::unexpected(Unavailable::error);
  // Processes in this instance (the parent's list holds them too, with their ids).
  Maybe<std::vector<GpuProcess>> processes = std::unexpected(Unavailable::error);
  // GPM figures of its GPU instance, in kGpmMetrics order (absent before Hopper).
  std::array<Maybe<double>, kGpmMetrics.size()> gpm;

  MigDevice() { gpm.fill(std::unexpected(Unavailable::not_supported)); }
};

// A GPU's MIG state: absent (not_supported) on GPUs without MIG.
struct MigState {
  bool enabled = false;
  std::vector<MigDevice> devices;  // in the driver's slot order; empty when disabled
};

}  // namespace gpumeter
