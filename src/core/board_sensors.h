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

struct BoardSensors {
  std::vector<PowerRail> rails;
  std::vector<TemperatureSensor> temperatures;
};

}  // namespace gpumeter
