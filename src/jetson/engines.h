// SPDX-License-Identifier: MIT
// The fixed-function engines beside the GPU, by their clocks in the clock framework's debugfs
// directory (/sys/kernel/debug/clk, root only): the video encoder (nvenc, or msenc on Nano),
// decoders (nvdec), JPEG (nvjpg), VIC, OFA, APE, SE, and the DLA and PVA clocks (dla0_core,
// pva0_vps0, ...). An engine is on while its clock's enable count is above 0.
#pragma once

#include <vector>

#include "core/board_sensors.h"
#include "jetson/sysfs.h"

namespace gpumeter::jetson {

// no_permission without root; not_supported where the directory does not exist.
Maybe<std::vector<EngineClock>> read_engines(const Sysfs& sysfs);

}  // namespace gpumeter::jetson
