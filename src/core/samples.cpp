#include "core/samples.h"

namespace gpumeter {

DeviceSample device_sample(TimeUs time_us, const DeviceState& state, bool processes_drained) {
  using enum DeviceMetric;
  return DeviceSample{
      .time_us = time_us,
      .utilization_gpu_percent = state[utilization_gpu],
      .utilization_memory_percent = state[utilization_memory],
      .memory_used_bytes = state[memory_used],
      .power_watts = state[power_draw],
      .energy_joules = state[energy],
      .processes_drained = processes_drained,
  };
}

}  // namespace gpumeter
