// SPDX-License-Identifier: MIT
// The integrated GPU, found the way the kernel files it on every generation: the devfreq
// entry whose device's device-tree node is the GPU (gm20b's "gpu" on Nano, "gp10b" on TX2,
// "gv11b" on Xavier, "ga10b" or "gpu" on Orin). Its device directory holds the load, the
// devfreq directory the clocks. The directories' absolute paths differ from release to release
// on the same board (/sys/devices/gpu.0, /sys/devices/platform/bus@0/17000000.gpu, ...), so
// nothing else is assumed.
#pragma once

#include <optional>
#include <string>

#include "jetson/sysfs.h"

namespace gpumeter::jetson {

struct GpuDevfreq {
  std::string devfreq;  // "/sys/class/devfreq/17000000.ga10b"
  std::string device;   // its "device" directory: load, railgate_enable, ...
};

std::optional<GpuDevfreq> find_gpu(const Sysfs& sysfs);

struct GpuFigures {
  Maybe<double> load_percent = std::unexpected(Unavailable::not_supported);
  Maybe<double> clock_mhz = std::unexpected(Unavailable::not_supported);
  Maybe<double> max_clock_mhz = std::unexpected(Unavailable::not_supported);
};

// The load (per mille in the file) and the current and highest clocks (Hz in the files).
GpuFigures read_gpu(const Sysfs& sysfs, const GpuDevfreq& gpu);

}  // namespace gpumeter::jetson
