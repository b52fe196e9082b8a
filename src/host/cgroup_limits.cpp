// SPDX-License-Identifier: MIT
#include "host/cgroup_limits.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>
#include <system_error>

#include "core/text.h"
#include "host/files.h"

namespace gpumeter::host {
namespace {

using Fail = std::unexpected<std::string>;

// A plain decimal number: digits, at most one point; no sign, exponent, "inf" or "nan".
std::optional<double> plain_number(std::string_view text) {
  const bool plain =
      !text.empty() &&
      std::ranges::all_of(text, [](char c) { return (c >= '0' && c <= '9') || c == '.'; }) &&
      std::ranges::count(text, '.') <= 1 && text != ".";
  if (!plain) return std::nullopt;
  double value = 0;
  const auto [end, error] =
      std::from_chars(text.data(), text.data() + text.size(), value, std::chars_format::fixed);
  if (error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::expected<CpuQuota, std::string> quota_of(double quota_us, std::string_view what) {
  const auto quota = static_cast<std::int64_t>(std::llround(quota_us));
  if (quota < kMinCpuQuotaUs) {
    return Fail(
        fmt::format("{} is less than the kernel's shortest quota, {} µs per {} µs "
                    "(0.01 CPU)",
                    what, kMinCpuQuotaUs, kCpuPeriodUs));
  }
  return CpuQuota{.quota_us = quota, .period_us = kCpuPeriodUs};
}

std::optional<std::pair<unsigned, unsigned>> cpu_range(std::string_view item) {
  const std::size_t dash = item.find('-');
  const auto first = parse_integer<unsigned>(item.substr(0, dash));
  if (dash == std::string_view::npos) {
    if (!first) return std::nullopt;
    return std::pair{*first, *first};
  }
  const auto last = parse_integer<unsigned>(item.substr(dash + 1));
  if (!first || !last || *last < *first) return std::nullopt;
  return std::pair{*first, *last};
}

// The largest CPU number the list form accepts: far above any machine, low enough that a
// typing error cannot ask for billions of entries.
constexpr unsigned kMaxCpu = 65'535;

std::optional<std::uint64_t> unit_bytes(std::string_view suffix) {
  if (suffix.empty() || suffix == "B" || suffix == "b") return 1;
  std::string_view rest = suffix.substr(1);
  if (!rest.empty() && rest != "iB" && rest != "ib") return std::nullopt;
  switch (suffix.front()) {
    case 'K':
    case 'k': return std::uint64_t{1} << 10;
    case 'M':
    case 'm': return std::uint64_t{1} << 20;
    case 'G':
    case 'g': return std::uint64_t{1} << 30;
    case 'T':
    case 't': return std::uint64_t{1} << 40;
    default: return std::nullopt;
  }
}

}  // namespace

std::expected<CpuQuota, std::string> quota_for_cpus(std::string_view text, unsigned online_cpus) {
  const auto cpus = plain_number(text);
  if (!cpus || *cpus <= 0) {
    return Fail(fmt::format("\"{}\" is not a positive number of CPUs such as 1.5", text));
  }
  if (*cpus > online_cpus) {
    return Fail(fmt::format("{} CPUs is more than the {} online", text, online_cpus));
  }
  return quota_of(*cpus * kCpuPeriodUs, fmt::format("{} CPUs", text));
}

std::expected<CpuQuota, std::string> quota_for_cpu_percent(std::string_view text,
                                                           unsigned usable_cpus) {
  const auto percent = plain_number(text);
  if (!percent || *percent <= 0 || *percent > 100) {
    return Fail(fmt::format("\"{}\" is not a percentage of each CPU in (0, 100]", text));
  }
  return quota_of(*percent / 100.0 * kCpuPeriodUs * usable_cpus,
                  fmt::format("{}% of {} CPUs", text, usable_cpus));
}

std::expected<std::vector<unsigned>, std::string> parse_cpu_list(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  if (text.empty()) return Fail("an empty CPU list");
  std::vector<unsigned> cpus;
  for (std::size_t pos = 0; pos <= text.size();) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    const auto range = cpu_range(text.substr(pos, comma - pos));
    if (!range || range->second > kMaxCpu) {
      return Fail(fmt::format("\"{}\" is not a CPU list such as 0-3,8", text));
    }
    for (unsigned cpu = range->first; cpu <= range->second; ++cpu) cpus.push_back(cpu);
    pos = comma + 1;
  }
  std::ranges::sort(cpus);
  const auto duplicates = std::ranges::unique(cpus);
  cpus.erase(duplicates.begin(), duplicates.end());
  return cpus;
}

std::string format_cpu_list(const std::vector<unsigned>& cpus) {
  std::string out;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += j == i ? fmt::format("{}", cpus[i]) : fmt::format("{}-{}", cpus[i], cpus[j]);
    i = j + 1;
  }
  return out;
}

std::expected<std::string, std::string> cpuset_within(std::string_view text,
                                                      const std::vector<unsigned>& online) {
  auto cpus = parse_cpu_list(text);
  if (!cpus) return Fail(std::move(cpus.error()));
  std::vector<unsigned> offline;
  std::ranges::set_difference(*cpus, online, std::back_inserter(offline));
  if (!offline.empty()) {
    return Fail(fmt::format("CPU {} not online (online: {})", format_cpu_list(offline),
                            format_cpu_list(online)));
  }
  return format_cpu_list(*cpus);
}

std::expected<std::uint64_t, std::string> parse_memory_size(std::string_view text) {
  const std::size_t digits = text.find_first_not_of("0123456789.");
  const auto number = plain_number(text.substr(0, digits));
  const auto unit = unit_bytes(digits == std::string_view::npos ? "" : text.substr(digits));
  if (!number || !unit) {
    return Fail(
        fmt::format("\"{}\" is not a size such as 512M or 4G (K, M, G, T: powers of 1024)", text));
  }
  const double bytes = std::floor(*number * static_cast<double>(*unit));
  if (bytes < 1) return Fail(fmt::format("\"{}\" is zero bytes", text));
  if (bytes >= 0x1p63) return Fail(fmt::format("\"{}\" is more than 8 EiB", text));
  return static_cast<std::uint64_t>(bytes);
}

std::expected<std::vector<unsigned>, std::string> online_cpus(const std::filesystem::path& root) {
  const auto path = root / "sys/devices/system/cpu/online";
  const auto text = read_file(path);
  if (!text) return Fail(fmt::format("{}: {}", path.string(), text.error().message()));
  auto cpus = parse_cpu_list(*text);
  if (!cpus) return Fail(fmt::format("{}: {}", path.string(), cpus.error()));
  return cpus;
}

}  // namespace gpumeter::host
