// SPDX-License-Identifier: MIT
// What the sampler drains each round, per GPU, from the driver's device sample buffers
// (GpuSource::drain_device_samples): the power samples, which give the energy counter its
// shape between readings (docs/attribution.md, "Energy"), and, until the GPU's utilisation
// sample period is known, the utilisation samples, whose spacing is that period (the driver
// stamps one every period, busy or not). A buffer the GPU does not support is not asked for
// again; any other failure is retried in the next round.
//
// Internal to the sampler, which calls it from one thread at a time.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "core/samples.h"
#include "core/source.h"

namespace gpumeter {

class DeviceSampleDrain {
 public:
  struct Drained {
    std::vector<PowerSample> power;   // newer than the last_power_us given, oldest first
    std::optional<TimeUs> period_us;  // the utilisation sample period, once measured
  };

  // Drains GPU `index` of `source`. `last_power_us`: the newest power sample the series holds
  // for it (absent: none), passed as lastSeenTimeStamp. The period is reported in the round
  // that measures it (from two consecutive utilisation samples, or more: the median gap of
  // the drain), and then no longer drained.
  Drained drain(GpuSource& source, std::uint32_t index, std::optional<TimeUs> last_power_us);

 private:
  struct Gpu {
    bool power_unsupported = false;
    bool utilization_unsupported = false;
    bool period_known = false;
    std::optional<TimeUs> last_utilization_us;  // the newest utilisation sample drained
  };

  std::vector<PowerSample> drain_power(GpuSource& source, std::uint32_t index, Gpu& gpu,
                                       std::optional<TimeUs> last_power_us);
  std::optional<TimeUs> measure_period(GpuSource& source, std::uint32_t index, Gpu& gpu);

  std::map<std::uint32_t, Gpu> gpus_;
};

}  // namespace gpumeter
