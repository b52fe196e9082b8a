// SPDX-License-Identifier: MIT
#include "jetson/nvmap.h"

#include <algorithm>
#include <map>
#include <optional>

#include "core/text.h"

namespace gpumeter::jetson {
namespace {

constexpr std::uint64_t kKiB = 1024;

// "23525644K" -> bytes; nvmap writes K, and M or G for large sizes on some releases.
std::optional<std::uint64_t> size_bytes(std::string_view size) {
  if (size.empty()) return std::nullopt;
  std::uint64_t unit = 1;
  switch (size.back()) {
    case 'K': unit = kKiB; break;
    case 'M': unit = kKiB * kKiB; break;
    case 'G': unit = kKiB * kKiB * kKiB; break;
    default: break;
  }
  if (unit != 1) size.remove_suffix(1);
  const auto value = parse_integer<std::uint64_t>(size);
  if (!value || *value > UINT64_MAX / unit) return std::nullopt;
  return *value * unit;
}

}  // namespace

std::vector<NvmapClient> parse_nvmap_clients(std::string_view text) {
  std::map<Pid, std::uint64_t> by_pid;
  for (const std::string_view line : split_lines(text)) {
    const std::vector<std::string_view> fields = split_fields(line);
    if (fields.size() != 4) continue;  // the header has four too, but no number
    const auto pid = parse_integer<Pid>(fields[2]);
    const auto bytes = size_bytes(fields[3]);
    if (!pid || *pid == 0 || !bytes) continue;
    by_pid[*pid] += *bytes;
  }
  std::vector<NvmapClient> clients;
  clients.reserve(by_pid.size());
  for (const auto& [pid, bytes] : by_pid) clients.push_back({pid, bytes});
  return clients;
}

Maybe<std::vector<NvmapClient>> read_nvmap_clients(const Sysfs& sysfs) {
  const auto text = sysfs.text("/sys/kernel/debug/nvmap/iovmm/clients");
  if (!text) return std::unexpected(text.error());
  return parse_nvmap_clients(*text);
}

SharedMemory parse_meminfo(std::string_view text) {
  SharedMemory memory;
  for (const std::string_view line : split_lines(text)) {
    const std::vector<std::string_view> fields = split_fields(line);
    if (fields.size() < 2) continue;
    const auto kib = parse_integer<std::uint64_t>(fields[1]);
    if (!kib) continue;
    if (fields[0] == "MemTotal:") memory.total = *kib * kKiB;
    if (fields[0] == "MemAvailable:") memory.available = *kib * kKiB;
    if (fields[0] == "NvMapMemUsed:") memory.nvmap_used = *kib * kKiB;
  }
  return memory;
}

}  // namespace gpumeter::jetson
