// SPDX-License-Identifier: MIT
// GPU memory per process from nvmap, the Tegra memory manager, through debugfs (root only):
// /sys/kernel/debug/nvmap/iovmm/clients, a header line, then "CLIENT PROCESS PID SIZE" rows
// ("user gpu_burn 7979 23525644K") and a "total" row. Without root the list is absent with
// no_permission: a process is never shown holding 0 bytes because we could not look.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/model.h"
#include "jetson/sysfs.h"

namespace gpumeter::jetson {

struct NvmapClient {
  Pid pid = 0;
  std::uint64_t bytes = 0;
};

// The rows of a clients file; a pid listed twice (several clients) holds their sum. Rows
// that are not "NAME PROCESS PID SIZE[K|M|G]" are skipped.
std::vector<NvmapClient> parse_nvmap_clients(std::string_view text);

Maybe<std::vector<NvmapClient>> read_nvmap_clients(const Sysfs& sysfs);

// MemTotal, MemAvailable and (a Jetson kernel's own line) NvMapMemUsed from /proc/meminfo,
// in bytes.
struct SharedMemory {
  Maybe<std::uint64_t> total = std::unexpected(Unavailable::not_supported);
  Maybe<std::uint64_t> available = std::unexpected(Unavailable::not_supported);
  Maybe<std::uint64_t> nvmap_used = std::unexpected(Unavailable::not_supported);
};
SharedMemory parse_meminfo(std::string_view text);

}  // namespace gpumeter::jetson
