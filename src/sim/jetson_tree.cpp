// SPDX-License-Identifier: MIT
#include "sim/jetson_tree.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>

namespace gpumeter::sim {
namespace {

using namespace std::string_view_literals;

constexpr std::uint64_t kKiB = 1024;
// What the operating system and the desktop keep of the shared memory besides the GPU's.
constexpr std::uint64_t kSystemBytes = std::uint64_t{900} << 20U;

std::string line(std::int64_t value) {
  return fmt::format("{}\n", value);
}

std::int64_t rounded(double value) {
  return std::llround(value);
}

// One layout's names (docs/jetson.md's table, per board generation).
struct Layout {
  std::string_view compatible;              // the device tree's, NUL-separated
  std::string_view devfreq;                 // /sys/class/devfreq/<this>
  std::string_view emc_rate;                // debugfs
  std::string_view emc_activity;            // actmon's mc_all
  std::array<std::string_view, 4> zones;    // thermal zone types; the second is the GPU's
  std::array<std::string_view, 4> engines;  // encoder, decoder, JPEG, image compositor clocks
  std::array<std::string_view, 3> rails;    // input, the GPU's, the CPU's or SoC's
  // Shares of the input rail: at idle, and of the power above idle, for rails 1 and 2.
  std::array<double, 2> idle_share;
  std::array<double, 2> busy_share;
  int millivolts;
  bool iio;               // the INA3221 through iio (L4T 32), else hwmon
  bool nvmap_in_meminfo;  // /proc/meminfo has NvMapMemUsed
};

constexpr Layout kOrinNano{
    .compatible = "nvidia,p3768-0000+p3767-0005\0nvidia,p3767-0005\0nvidia,tegra234\0"sv,
    .devfreq = "17000000.gpu",
    .emc_rate = "/sys/kernel/debug/bpmp/debug/clk/emc/rate",
    .emc_activity = "/sys/kernel/debug/cactmon/mc_all",
    .zones = {"cpu-thermal", "gpu-thermal", "soc0-thermal", "tj-thermal"},
    .engines = {"nvenc", "nvdec", "nvjpg", "vic"},
    .rails = {"VDD_IN", "VDD_CPU_GPU_CV", "VDD_SOC"},
    .idle_share = {0.2, 0.3},
    .busy_share = {0.8, 0.1},
    .millivolts = 5056,
    .iio = false,
    .nvmap_in_meminfo = false,
};

constexpr Layout kNano{
    .compatible = "nvidia,p3450-0000\0nvidia,jetson-nano\0nvidia,tegra210\0"sv,
    .devfreq = "57000000.gpu",
    .emc_rate = "/sys/kernel/debug/clk/override.emc/clk_rate",
    .emc_activity = "/sys/kernel/actmon_avg_activity/mc_all",
    .zones = {"CPU-therm", "GPU-therm", "AO-therm", "PLL-therm"},
    .engines = {"msenc", "nvdec", "nvjpg", "vic03"},
    .rails = {"POM_5V_IN", "POM_5V_GPU", "POM_5V_CPU"},
    .idle_share = {0.1, 0.25},
    .busy_share = {0.7, 0.05},
    .millivolts = 5072,
    .iio = true,
    .nvmap_in_meminfo = true,
};

const Layout& layout_of(JetsonLayout layout) {
  return layout == JetsonLayout::nano ? kNano : kOrinNano;
}

void board_files(JetsonTree& tree, const JetsonSpec& jetson, const DeviceSpec& device,
                 const Layout& layout) {
  const bool l4t36 = jetson.release.starts_with("R36");
  tree["/etc/nv_tegra_release"] =
      fmt::format("# {}, GCID: 0, BOARD: {}, EABI: aarch64, DATE: simulated\n", jetson.release,
                  l4t36 ? "generic" : "t210ref");
  tree["/proc/device-tree/compatible"] = std::string(layout.compatible);
  tree["/proc/device-tree/model"] = device.name + '\0';
  tree["/proc/device-tree/serial-number"] = jetson.serial + '\0';
}

void memory_files(JetsonTree& tree, const DeviceSpec& device, const Layout& layout,
                  std::uint64_t gpu_bytes) {
  const std::uint64_t total = device.memory_total_bytes;
  const std::uint64_t used = std::min(total, kSystemBytes + gpu_bytes);
  std::string meminfo = fmt::format(
      "MemTotal:       {} kB\nMemFree:        {} kB\n"
      "MemAvailable:   {} kB\nBuffers:           65432 kB\n",
      total / kKiB, (total - used) * 3 / 4 / kKiB, (total - used) / kKiB);
  if (layout.nvmap_in_meminfo) meminfo += fmt::format("NvMapMemUsed:   {} kB\n", gpu_bytes / kKiB);
  tree["/proc/meminfo"] = std::move(meminfo);
}

void gpu_files(JetsonTree& tree, const DeviceSpec& device, const DeviceReading& reading,
               const Layout& layout) {
  const std::string dir = fmt::format("/sys/class/devfreq/{}", layout.devfreq);
  const std::int64_t min_hz = std::int64_t{device.clocks.graphics} * 1'000'000;
  const std::int64_t max_hz = std::int64_t{device.max_clocks.graphics} * 1'000'000;
  tree[dir + "/cur_freq"] = line(std::int64_t{reading.clocks.graphics} * 1'000'000);
  tree[dir + "/min_freq"] = line(min_hz);
  tree[dir + "/max_freq"] = line(max_hz);
  tree[dir + "/available_frequencies"] = fmt::format("{} {}\n", min_hz, max_hz);
  tree[dir + "/governor"] = "nvhost_podgov\n";
  tree[dir + "/device/of_node/name"] = std::string("gpu") + '\0';
  // Per mille, as nvgpu writes it.
  tree[dir + "/device/load"] = line(rounded(std::clamp(reading.use.sm, 0.0, 100.0) * 10.0));
  tree[dir + "/device/railgate_enable"] = "1\n";
}

void thermal_files(JetsonTree& tree, const DeviceReading& reading, const Layout& layout) {
  const double gpu_c = reading.temperature_c;
  const std::array<double, 4> celsius{gpu_c + 1.5, gpu_c, gpu_c - 0.5, gpu_c + 2.0};
  for (std::size_t i = 0; i < layout.zones.size(); ++i) {
    const std::string dir = fmt::format("/sys/class/thermal/thermal_zone{}", i);
    tree[dir + "/type"] = fmt::format("{}\n", layout.zones[i]);
    tree[dir + "/temp"] = line(rounded(celsius[i] * 1000.0));
  }
}

// The INA3221's three channels: the input rail, and the shares of it the GPU's and the other
// rail carry (a share at idle, and a share of what the load adds).
void rail_files(JetsonTree& tree, const DeviceSpec& device, const DeviceReading& reading,
                const Layout& layout) {
  const double input_w = reading.power_mw / 1000.0;
  const double idle_w = device.power_w.idle;
  const double above_w = std::max(0.0, input_w - idle_w);
  const std::array<double, 3> watts{input_w,
                                    layout.idle_share[0] * idle_w + layout.busy_share[0] * above_w,
                                    layout.idle_share[1] * idle_w + layout.busy_share[1] * above_w};
  const double volts = layout.millivolts / 1000.0;
  if (layout.iio) {  // L4T 32: iio, channels from 0, a power file
    const std::string dir = "/sys/bus/i2c/devices/6-0040";
    tree[dir + "/name"] = "ina3221x\n";
    for (std::size_t k = 0; k < watts.size(); ++k) {
      const std::string iio = fmt::format("{}/iio:device0/", dir);
      tree[fmt::format("{}rail_name_{}", iio, k)] = fmt::format("{}\n", layout.rails[k]);
      tree[fmt::format("{}in_voltage{}_input", iio, k)] = line(layout.millivolts);
      tree[fmt::format("{}in_current{}_input", iio, k)] = line(rounded(watts[k] / volts * 1000.0));
      tree[fmt::format("{}in_power{}_input", iio, k)] = line(rounded(watts[k] * 1000.0));
    }
    return;
  }
  // L4T 34 and later: hwmon, channels 1 to 3, no power file; channel 7 is the sum.
  const std::string dir = "/sys/bus/i2c/devices/1-0040";
  tree[dir + "/name"] = "ina3221\n";
  const std::string hwmon = dir + "/hwmon/hwmon1/";
  tree[hwmon + "name"] = "ina3221\n";
  for (std::size_t k = 0; k < watts.size(); ++k) {
    tree[fmt::format("{}in{}_label", hwmon, k + 1)] = fmt::format("{}\n", layout.rails[k]);
    tree[fmt::format("{}in{}_input", hwmon, k + 1)] = line(layout.millivolts);
    tree[fmt::format("{}curr{}_input", hwmon, k + 1)] = line(rounded(watts[k] / volts * 1000.0));
  }
  tree[hwmon + "in7_label"] = "sum of shunt voltages\n";
  tree[hwmon + "in7_input"] = line(rounded(watts[0] / volts * 5.0));
}

// debugfs (root on a board): the memory controller's clock, the engines' clocks, nvmap.
void debug_files(JetsonTree& tree, const DeviceReading& reading, const Layout& layout,
                 std::span<const NvmapEntry> processes) {
  tree[std::string(layout.emc_rate)] = line(std::int64_t{reading.clocks.memory} * 1'000'000);
  // Busy cycles in kHz: the memory controller's load (the processes' "mem") of its clock.
  tree[std::string(layout.emc_activity)] = line(
      rounded(std::clamp(reading.use.mem, 0.0, 100.0) / 100.0 * reading.clocks.memory * 1000.0));
  const std::int64_t video_hz = std::int64_t{reading.clocks.video} * 1'000'000;
  const std::array<bool, 4> on{reading.use.enc > 0, reading.use.dec > 0, false,
                               reading.use.enc > 0 || reading.use.dec > 0};
  for (std::size_t i = 0; i < layout.engines.size(); ++i) {
    const std::string dir = fmt::format("/sys/kernel/debug/clk/{}", layout.engines[i]);
    tree[dir + "/clk_enable_count"] = line(on[i] ? 1 : 0);
    tree[dir + "/clk_rate"] = line(video_hz);
  }
  std::string clients = "CLIENT                        PROCESS      PID        SIZE\n";
  std::uint64_t total = 0;
  for (const NvmapEntry& p : processes) {
    clients += fmt::format("{:<8}{:>23} {:>8} {:>10}K\n", "user", p.name, p.pid, p.bytes / kKiB);
    total += p.bytes;
  }
  clients += fmt::format("{:<8}{:>44}K\n", "total", total / kKiB);
  tree["/sys/kernel/debug/nvmap/iovmm/clients"] = std::move(clients);
}

}  // namespace

JetsonTree jetson_tree(const JetsonSpec& board, const DeviceSpec& device,
                       const DeviceReading& reading, std::span<const NvmapEntry> processes) {
  const Layout& layout = layout_of(board.layout);
  std::uint64_t gpu_bytes = 0;
  for (const NvmapEntry& p : processes) gpu_bytes += p.bytes;
  JetsonTree tree;
  board_files(tree, board, device, layout);
  memory_files(tree, device, layout, gpu_bytes);
  gpu_files(tree, device, reading, layout);
  thermal_files(tree, reading, layout);
  rail_files(tree, device, reading, layout);
  debug_files(tree, reading, layout, processes);
  return tree;
}

}  // namespace gpumeter::sim
