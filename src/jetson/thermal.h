// SPDX-License-Identifier: MIT
// Temperatures from the kernel's thermal zones, found by their type: the GPU's zone is
// "GPU-therm" on L4T 32 boards and "gpu-thermal" on Orin. A zone that cannot be read (Orin's
// GPU and CV sensors answer EAGAIN while powered off) or reads outside any real temperature
// is reported as an error, never as a figure; "PMIC-Die" (a fixed 100 °C on L4T 32) is not a
// temperature at all and is skipped.
#pragma once

#include <vector>

#include "core/board_sensors.h"
#include "jetson/sysfs.h"

namespace gpumeter::jetson {

// Each zone as a sensor named by its type, as the kernel names it ("GPU-therm", "cpu-thermal").
std::vector<TemperatureSensor> read_thermal_zones(const Sysfs& sysfs);

// The GPU's zone's temperature; not_supported when no zone is the GPU's.
Maybe<double> gpu_temperature(const std::vector<TemperatureSensor>& zones);

}  // namespace gpumeter::jetson
