// SPDX-License-Identifier: MIT
// A board's own sensors beyond the GPU's figures: the power monitors' rails and every
// temperature sensor, as an embedded board (Jetson) exposes them. Discrete GPUs read through
// NVML have none (Device::board is not_supported there).
#pragma once

#include <string>
#include <vector>

#include "core/unavailable.h"

namespace gpumeter {

struct PowerRail {
  std::string name;  // as the board names it: "VDD_IN", "VDD_CPU_GPU_CV", "POM_5V_GPU", ...
  Maybe<double> volts = std::unexpected(Unavailable::error);
  Maybe<double> amperes = std::unexpected(Unavailable::error);
  Maybe<double> watts = std::unexpected(Unavailable::error);
};

struct TemperatureSensor {
  std::string name;  // the kernel's thermal zone type: "cpu-thermal", "GPU-therm", ...
  Maybe<double> celsius = std::unexpected(Unavailable::error);  // absent while the sensor is off
};

// A fixed-function engine beside the GPU (video encoder and decoder, JPEG, DLA, PVA, ...), by
// its clock: whether the clock is enabled (the engine is working) and its rate.
struct EngineClock {
  std::string name;  // the clock's name: "nvenc", "nvdec1", "dla0_core", "msenc", ...
  Maybe<bool> on = std::unexpected(Unavailable::error);
  Maybe<double> clock_mhz = std::unexpected(Unavailable::error);
};

struct BoardSensors {
  std::vector<PowerRail> rails;
  std::vector<TemperatureSensor> temperatures;
  // Absent with its reason where the clocks cannot be read (debugfs without root).
  Maybe<std::vector<EngineClock>> engines = std::unexpected(Unavailable::not_supported);
};

}  // namespace gpumeter
