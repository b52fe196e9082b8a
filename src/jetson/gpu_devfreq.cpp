// SPDX-License-Identifier: MIT
#include "jetson/gpu_devfreq.h"

#include <algorithm>
#include <array>
#include <string_view>

namespace gpumeter::jetson {
namespace {

constexpr std::string_view kDevfreq = "/sys/class/devfreq";
// The device-tree node names of the integrated GPUs (docs/jetson.md).
constexpr std::array<std::string_view, 6> kGpuNodes{"gpu",   "gm20b", "gp10b",
                                                    "gv11b", "ga10b", "gb10b"};
constexpr double kHzPerMhz = 1e6;

Maybe<double> mhz(const Sysfs& sysfs, const std::string& file) {
  const auto hz = sysfs.integer(file);
  if (!hz) return std::unexpected(hz.error());
  return static_cast<double>(*hz) / kHzPerMhz;
}

}  // namespace

std::optional<GpuDevfreq> find_gpu(const Sysfs& sysfs) {
  for (const std::string& entry : sysfs.list(kDevfreq)) {
    const std::string dir = join(kDevfreq, entry);
    const auto node = sysfs.text(join(dir, "device/of_node/name"));
    if (node && std::ranges::find(kGpuNodes, *node) != kGpuNodes.end()) {
      return GpuDevfreq{dir, join(dir, "device")};
    }
  }
  return std::nullopt;
}

GpuFigures read_gpu(const Sysfs& sysfs, const GpuDevfreq& gpu) {
  GpuFigures figures;
  if (const auto load = sysfs.integer(join(gpu.device, "load"))) {
    figures.load_percent = std::clamp(static_cast<double>(*load) / 10.0, 0.0, 100.0);
  } else {
    figures.load_percent = std::unexpected(load.error());
  }
  figures.clock_mhz = mhz(sysfs, join(gpu.devfreq, "cur_freq"));
  figures.max_clock_mhz = mhz(sysfs, join(gpu.devfreq, "max_freq"));
  return figures;
}

}  // namespace gpumeter::jetson
