// SPDX-License-Identifier: MIT
#include "jetson/board.h"

#include <array>

#include "core/text.h"

namespace gpumeter::jetson {
namespace {

// A SoC family's GPU: its architecture and CUDA compute capability. Chips, not releases: a
// new JetPack on a known SoC needs nothing here, and an unknown SoC reads as not_supported.
struct SocGpu {
  std::string_view soc;
  std::string_view architecture;
  ComputeCapability capability;
};
constexpr std::array kSocGpus{
    SocGpu{"tegra210", "Maxwell", {5, 3}},  // Nano, TX1
    SocGpu{"tegra186", "Pascal", {6, 2}},   // TX2
    SocGpu{"tegra194", "Volta", {7, 2}},    // Xavier
    SocGpu{"tegra234", "Ampere", {8, 7}},   // Orin
};

}  // namespace

std::string soc_of(std::string_view compatible) {
  while (compatible.ends_with('\0')) compatible.remove_suffix(1);
  std::string_view last = compatible.substr(compatible.rfind('\0') + 1);
  if (const auto comma = last.find(','); comma != std::string_view::npos) {
    last.remove_prefix(comma + 1);
  }
  return std::string(last);
}

std::optional<std::string> parse_l4t_release(std::string_view text) {
  const std::string_view line = text.substr(0, text.find('\n'));
  const auto major_at = line.find("# R");
  const auto revision_at = line.find("REVISION: ");
  if (major_at != 0 || revision_at == std::string_view::npos) return std::nullopt;
  const std::string_view major = line.substr(3, line.find(' ', 3) - 3);
  std::string_view revision = line.substr(revision_at + 10);
  revision = trim(revision.substr(0, revision.find(',')));
  if (!parse_integer<unsigned>(major) || revision.empty() ||
      revision.find_first_not_of("0123456789.") != std::string_view::npos) {
    return std::nullopt;
  }
  return std::string(major) + "." + std::string(revision);
}

bool is_tegra(const Sysfs& sysfs) {
  const auto compatible = sysfs.text("/proc/device-tree/compatible");
  return (compatible && compatible->find("nvidia,tegra") != std::string::npos) ||
         sysfs.exists("/etc/nv_tegra_release");
}

Board read_board(const Sysfs& sysfs) {
  Board board;
  board.model = sysfs.text("/proc/device-tree/model");
  board.serial = sysfs.text("/proc/device-tree/serial-number");
  if (const auto compatible = sysfs.text("/proc/device-tree/compatible")) {
    board.soc = soc_of(*compatible);
  }
  if (const auto release = sysfs.text("/etc/nv_tegra_release")) {
    if (auto parsed = parse_l4t_release(*release)) {
      board.l4t_release = std::move(*parsed);
    } else {
      board.l4t_release = std::unexpected(Unavailable::error);
    }
  }
  for (const SocGpu& gpu : kSocGpus) {
    if (gpu.soc != board.soc) continue;
    board.architecture = std::string(gpu.architecture);
    board.compute_capability = gpu.capability;
  }
  return board;
}

}  // namespace gpumeter::jetson
