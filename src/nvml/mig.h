// SPDX-License-Identifier: MIT
// Reading a GPU's MIG state: its mode and, in MIG mode, every MIG device (ids, profile,
// UUID, memory, processes) through the MIG handles under it.
//
// Internal to src/nvml/.
#pragma once

#include "core/model.h"
#include "nvml/device_query.h"

namespace gpumeter::nvml {

// not_supported on GPUs without MIG. Slots 0 .. max-1 are walked; empty slots (NOT_FOUND)
// are skipped, not taken as the end. A MIG device whose handle fails otherwise is left out.
Maybe<MigState> read_mig(DeviceQuery& parent);

// Only the mode (no MIG devices listed): for callers that need to know whether MIG is on.
Maybe<MigState> read_mig_mode_only(DeviceQuery& parent);

// In MIG mode the driver reports no utilisation of the whole GPU: those metrics, absent as
// not_supported, become absent for Unavailable::mig, so that readers see why.
void mark_mig_restrictions(DeviceState& state);

}  // namespace gpumeter::nvml
