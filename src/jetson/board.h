// SPDX-License-Identifier: MIT
// Which Jetson board this is, probed from what the kernel and L4T expose rather than from a
// table of releases (a table breaks with the next JetPack): the device tree's model and
// compatible strings, the fuse's chip id and /etc/nv_tegra_release. docs/jetson.md lists the
// files and the boards and releases each was seen on.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/model.h"
#include "jetson/sysfs.h"

namespace gpumeter::jetson {

struct Board {
  Maybe<std::string> model = std::unexpected(Unavailable::not_supported);  // device tree
  Maybe<std::string> serial = std::unexpected(Unavailable::not_supported);
  std::string soc;  // "tegra234", the compatible list's last entry; empty when absent
  Maybe<std::string> l4t_release = std::unexpected(Unavailable::not_supported);  // "36.4.7"
  // The GPU generation of the SoC family, for the model's architecture and compute capability.
  Maybe<std::string> architecture = std::unexpected(Unavailable::not_supported);
  Maybe<ComputeCapability> compute_capability = std::unexpected(Unavailable::not_supported);
};

// Whether the machine under `sysfs` is a Tegra board at all (its device tree says
// "nvidia,tegra...", or L4T's release file is there).
bool is_tegra(const Sysfs& sysfs);

Board read_board(const Sysfs& sysfs);

// "36.4.7" from the first line of /etc/nv_tegra_release
// ("# R36 (release), REVISION: 4.7, GCID: ..."); nothing when the line has another shape.
std::optional<std::string> parse_l4t_release(std::string_view text);

// The last entry of a NUL-separated device-tree compatible list, less its vendor:
// "nvidia,p3701-0000\0nvidia,tegra234" -> "tegra234".
std::string soc_of(std::string_view compatible);

}  // namespace gpumeter::jetson
