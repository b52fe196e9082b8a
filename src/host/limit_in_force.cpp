// SPDX-License-Identifier: MIT
// The limits a group's interface files hold (host/limit_cgroup.h).
#include <fmt/format.h>

#include <algorithm>

#include "core/text.h"
#include "host/cgroup_parts.h"
#include "host/limit_cgroup.h"

namespace gpumeter::host {
namespace {

// The kernel writes "no limit" on v1 memory as the largest page-aligned 63-bit number
// (9223372036854771712); anything from 2^62 up is taken for it.
constexpr std::uint64_t kUnlimitedMemory = std::uint64_t{1} << 62;

// The first line of a file in any of the group's directories (v1 spreads them over several).
std::optional<std::string> first_line(CgroupFs& fs, const LimitedGroup& group,
                                      std::string_view name) {
  for (const auto& dir : group.groups) {
    if (const auto text = fs.read(dir / name)) {
      const auto lines = split_lines(*text);
      if (lines.empty()) return std::string();
      const auto fields = split_fields(lines.front());
      std::string line;
      for (std::string_view field : fields)
        line += fmt::format("{}{}", line.empty() ? "" : " ", field);
      return line;
    }
  }
  return std::nullopt;
}

template <typename Int>
std::optional<Int> number_in(CgroupFs& fs, const LimitedGroup& group, std::string_view name) {
  const auto line = first_line(fs, group, name);
  return line ? parse_integer<Int>(*line) : std::nullopt;
}

std::optional<CpuQuota> cpu_v2(CgroupFs& fs, const LimitedGroup& group) {
  const auto line = first_line(fs, group, "cpu.max");
  if (!line) return std::nullopt;
  const auto fields = split_fields(*line);
  if (fields.size() != 2) return std::nullopt;
  const auto quota = parse_integer<std::int64_t>(fields[0]);  // "max": none
  const auto period = parse_integer<std::int64_t>(fields[1]);
  if (!quota || !period) return std::nullopt;
  return CpuQuota{.quota_us = *quota, .period_us = *period};
}

std::optional<CpuQuota> cpu_v1(CgroupFs& fs, const LimitedGroup& group) {
  const auto quota = number_in<std::int64_t>(fs, group, "cpu.cfs_quota_us");  // -1: none
  const auto period = number_in<std::int64_t>(fs, group, "cpu.cfs_period_us");
  if (!quota || !period || *quota <= 0) return std::nullopt;
  return CpuQuota{.quota_us = *quota, .period_us = *period};
}

Limits limits_of(CgroupFs& fs, const LimitedGroup& group) {
  const bool v2 = group.version == CgroupVersion::v2;
  Limits limits;
  limits.cpu = v2 ? cpu_v2(fs, group) : cpu_v1(fs, group);
  if (auto cpus = first_line(fs, group, "cpuset.cpus"); cpus && !cpus->empty()) {
    limits.cpuset = std::move(*cpus);
  }
  const auto memory =
      number_in<std::uint64_t>(fs, group, v2 ? "memory.max" : "memory.limit_in_bytes");
  if (memory && *memory < kUnlimitedMemory) limits.memory_bytes = memory;
  return limits;
}

}  // namespace

std::expected<LimitsInForce, std::string> read_limits_in_force(CgroupFs& fs,
                                                               const LimitedGroup& group) {
  if (group.groups.empty()) return std::unexpected("the record names no group");
  const auto procs = group.groups.front() / "cgroup.procs";
  const auto text = fs.read(procs);
  if (!text) return std::unexpected(cgroup_parts::failure("read", procs, text.error()));
  LimitsInForce in_force{.limits = limits_of(fs, group), .members = {}};
  for (const std::string& word : cgroup_parts::words(*text)) {
    if (const auto pid = parse_integer<Pid>(word)) in_force.members.push_back(*pid);
  }
  std::ranges::sort(in_force.members);
  return in_force;
}

}  // namespace gpumeter::host
