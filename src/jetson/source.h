// SPDX-License-Identifier: MIT
// The Jetson GPU source: the board's integrated GPU as one model Device, read from sysfs,
// debugfs and procfs under a root directory (docs/jetson.md). What a Jetson does not offer
// (PCIe, fans through NVML, ECC, per-process utilisation) is not_supported; what needs root
// (debugfs: the memory controller's clock, nvmap's per-process GPU memory) is no_permission
// without it.
#pragma once

#include <expected>
#include <filesystem>
#include <functional>
#include <memory>

#include "core/error.h"
#include "core/source.h"

namespace gpumeter::jetson {

struct JetsonOptions {
  std::filesystem::path root = "/";
  // The clock the energy counter integrates the input rail's power over.
  std::function<TimeUs()> now;  // empty: the wall clock
};

// Whether the machine under `root` is a Tegra board (its device tree or L4T's release file say
// so): a few stats, for the source table to try the board's files before NVML there.
bool is_tegra_board(const std::filesystem::path& root);

// Errors: library_not_found when the machine under the root is no Tegra board or shows no
// integrated GPU (the message says which), so that the source table goes on to the next source.
std::expected<std::unique_ptr<GpuSource>, Error> open_jetson_source(JetsonOptions options);

}  // namespace gpumeter::jetson
