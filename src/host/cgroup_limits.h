// SPDX-License-Identifier: MIT
// Resource limits for `gpumeter run` and `gpumeter limit`: CPU bandwidth, a set of CPUs and memory,
// parsed and checked from the command line into the values the kernel's cgroup files take. Pure,
// except online_cpus(), which reads one file under an injectable root.
#pragma once

#include <cstdint>
#include <expected>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpumeter::host {

// The kernel's default CFS bandwidth period, µs.
inline constexpr std::int64_t kCpuPeriodUs = 100'000;
// The kernel's shortest quota, µs.
inline constexpr std::int64_t kMinCpuQuotaUs = 1'000;

// CPU bandwidth: the group may use `quota_us` of CPU time in every `period_us`, counted over
// all its CPUs together. Not per CPU: a quota of two periods lets the group keep two CPUs
// busy. (cgroup v2 cpu.max "quota period"; v1 cpu.cfs_quota_us and cpu.cfs_period_us.)
struct CpuQuota {
  std::int64_t quota_us = 0;
  std::int64_t period_us = kCpuPeriodUs;

  friend bool operator==(const CpuQuota&, const CpuQuota&) = default;
};

struct Limits {
  std::optional<CpuQuota> cpu;
  std::optional<std::string> cpuset;  // CPU numbers in the kernel's list form, "0-3,8"
  std::optional<std::uint64_t> memory_bytes;

  bool any() const noexcept { return cpu || cpuset || memory_bytes; }
};

// `--cpus 1.5`: that many CPUs' worth of time, quota = cpus × period (150000 per 100000).
// Errors (a sentence for a person): not a plain positive number, below 0.01 CPU (the
// kernel's shortest quota), more CPUs than `online_cpus`.
std::expected<CpuQuota, std::string> quota_for_cpus(std::string_view text, unsigned online_cpus);

// `--cpu-percent 50`: a percentage of EACH CPU the job may use, quota = percent/100 × period ×
// `usable_cpus`: the CPUs of its cpuset when it has one (`--cpuset`), else the online ones.
// 50 on 16 online CPUs: 800000 per 100000, eight CPUs' worth; 50 with cpuset "0" on any
// machine: 50000 per 100000, half of CPU 0 (a quota counted over all online CPUs would let
// the job keep its one CPU busy). Errors: not a number in (0, 100], or a quota below the
// kernel's shortest.
std::expected<CpuQuota, std::string> quota_for_cpu_percent(std::string_view text,
                                                           unsigned usable_cpus);

// A CPU list as the kernel writes one, "0-3,8,10-11", to sorted CPU numbers without
// duplicates. Errors: empty, a stray character, a range that runs backwards.
std::expected<std::vector<unsigned>, std::string> parse_cpu_list(std::string_view text);

// The kernel's list form of sorted CPU numbers: consecutive ones become ranges.
std::string format_cpu_list(const std::vector<unsigned>& cpus);

// `--cpuset 0-3`: the list, in list form, when every CPU in it is online. Errors: a bad
// list, or the CPUs that are not online.
std::expected<std::string, std::string> cpuset_within(std::string_view text,
                                                      const std::vector<unsigned>& online);

// `--memory 4G`: bytes. A whole or decimal number with an optional suffix K, M, G or T
// (powers of 1024, either case, "iB" allowed after it: "512MiB"); no suffix or "B" is bytes.
// Errors: anything else, zero, more than 2^63 bytes.
std::expected<std::uint64_t, std::string> parse_memory_size(std::string_view text);

// The CPUs online now, from <root>/sys/devices/system/cpu/online. Errors: the file cannot be
// read or parsed (the message names it).
std::expected<std::vector<unsigned>, std::string> online_cpus(const std::filesystem::path& root);

}  // namespace gpumeter::host
