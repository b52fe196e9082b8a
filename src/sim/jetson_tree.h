// SPDX-License-Identifier: MIT
// The kernel files of a simulated Jetson board at one moment: what the Jetson source
// (src/jetson, docs/jetson.md) reads on a real board, in the layout of the scenario's board
// generation, from the scenario's one device and its processes at that moment. Pure: the
// writer (sim/jetson_board.h) puts the files under a root directory.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>

#include "sim/scenario.h"
#include "sim/timeline.h"

namespace gpumeter::sim {

// A process on the GPU as nvmap lists it.
struct NvmapEntry {
  std::uint32_t pid = 0;
  std::string name;  // its command, as the kernel's comm: at most 15 characters
  std::uint64_t bytes = 0;
};

// Path on the board ("/sys/class/devfreq/17000000.gpu/cur_freq") to the file's content.
using JetsonTree = std::map<std::string, std::string>;

// The files of board `board`, whose integrated GPU is `device`, reading `reading`.
JetsonTree jetson_tree(const JetsonSpec& board, const DeviceSpec& device,
                       const DeviceReading& reading, std::span<const NvmapEntry> processes);

}  // namespace gpumeter::sim
