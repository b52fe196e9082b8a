// SPDX-License-Identifier: MIT
#include "host/proc_parse.h"

#include <array>

#include "core/text.h"

namespace gpumeter::host {
namespace {

// Field numbers of /proc/<pid>/stat (proc(5)), counted from 1 as the manual does.
constexpr std::size_t kStateField = 3;
constexpr std::size_t kParentField = 4;
constexpr std::size_t kUtimeField = 14;
constexpr std::size_t kStimeField = 15;
constexpr std::size_t kStartTimeField = 22;
constexpr std::size_t kVsizeField = 23;
constexpr std::size_t kRssField = 24;

// Fields separated by runs of spaces and tabs, walked without allocating: the sampler parses
// stat and status of every process in every round.
class FieldCursor {
 public:
  explicit FieldCursor(std::string_view text) : rest_(text) {}

  // The next field; empty at the end.
  std::string_view next() {
    std::size_t start = 0;
    while (start < rest_.size() && is_blank(rest_[start])) ++start;
    std::size_t end = start;
    while (end < rest_.size() && !is_blank(rest_[end])) ++end;
    const std::string_view field = rest_.substr(start, end - start);
    rest_.remove_prefix(end);
    return field;
  }

 private:
  static bool is_blank(char c) { return c == ' ' || c == '\t'; }
  std::string_view rest_;
};

// Fields 3 to 24 of stat, the ones after the comm that gpumeter uses.
using StatFields = std::array<std::string_view, kRssField - kStateField + 1>;

template <class Int>
std::optional<Int> stat_field(const StatFields& fields, std::size_t number) {
  return parse_integer<Int>(fields[number - kStateField]);
}

// Fills the numeric fields of `stat` from the text after the comm.
bool fill_stat_numbers(ProcStat& stat, std::string_view rest) {
  StatFields fields;
  FieldCursor cursor(rest);
  for (std::string_view& field : fields) {
    field = cursor.next();
    if (field.empty()) return false;
  }
  if (fields[0].size() != 1) return false;
  stat.state = fields[0][0];
  auto parent = stat_field<Pid>(fields, kParentField);
  auto utime = stat_field<std::uint64_t>(fields, kUtimeField);
  auto stime = stat_field<std::uint64_t>(fields, kStimeField);
  auto start = stat_field<std::uint64_t>(fields, kStartTimeField);
  auto vsize = stat_field<std::uint64_t>(fields, kVsizeField);
  auto rss = stat_field<std::int64_t>(fields, kRssField);
  if (!parent || !utime || !stime || !start || !vsize || !rss) return false;
  stat.parent_pid = *parent;
  stat.utime_ticks = *utime;
  stat.stime_ticks = *stime;
  stat.start_ticks = *start;
  stat.vsize_bytes = *vsize;
  stat.rss_pages = *rss;
  return true;
}

// "1000 1000 1000 1000" after "Uid:": real, effective, saved, filesystem.
std::optional<std::uint32_t> first_number(std::string_view value) {
  const std::string_view first = FieldCursor(value).next();
  if (first.empty()) return std::nullopt;
  return parse_integer<std::uint32_t>(first);
}

// "12345 kB" after "VmRSS:".
std::optional<std::uint64_t> kib_value(std::string_view value) {
  FieldCursor cursor(value);
  const std::string_view number = cursor.next();
  if (number.empty() || cursor.next() != "kB" || !cursor.next().empty()) return std::nullopt;
  return parse_integer<std::uint64_t>(number);
}

std::vector<Pid> pid_list(std::string_view value) {
  std::vector<Pid> pids;
  FieldCursor cursor(value);
  for (std::string_view field = cursor.next(); !field.empty(); field = cursor.next()) {
    auto pid = parse_integer<Pid>(field);
    if (!pid) return {};
    pids.push_back(*pid);
  }
  return pids;
}

// The value of the line of `text` that starts with `key`, without its newline.
std::optional<std::string_view> line_value(std::string_view text, std::string_view key) {
  for (std::size_t at = text.find(key); at != std::string_view::npos; at = text.find(key, at + 1)) {
    if (at != 0 && text[at - 1] != '\n') continue;
    const std::string_view rest = text.substr(at + key.size());
    return rest.substr(0, rest.find('\n'));
  }
  return std::nullopt;
}

}  // namespace

std::optional<ProcStat> parse_stat(std::string_view text) {
  std::size_t open = text.find('(');
  std::size_t close = text.rfind(')');
  // "<pid> (" : at least one digit and a space before the comm.
  if (open == std::string_view::npos || open < 2 || close == std::string_view::npos ||
      close < open || text[open - 1] != ' ') {
    return std::nullopt;
  }
  ProcStat stat;
  auto pid = parse_integer<Pid>(text.substr(0, open - 1));
  if (!pid) return std::nullopt;
  stat.pid = *pid;
  stat.comm = std::string(text.substr(open + 1, close - open - 1));
  std::string_view rest = text.substr(close + 1);
  if (!rest.empty() && rest.back() == '\n') rest.remove_suffix(1);
  if (!fill_stat_numbers(stat, rest)) return std::nullopt;
  return stat;
}

ProcStatus parse_status(std::string_view text) {
  ProcStatus status;
  for (std::string_view line : split_lines(text)) {
    if (auto uid = after_prefix(line, "Uid:")) {
      status.real_uid = first_number(*uid);
    } else if (auto nspid = after_prefix(line, "NSpid:")) {
      status.namespace_pids = pid_list(*nspid);
    } else if (auto rss = after_prefix(line, "VmRSS:")) {
      status.rss_kib = kib_value(*rss);
    } else if (auto hwm = after_prefix(line, "VmHWM:")) {
      status.peak_rss_kib = kib_value(*hwm);
    }
  }
  return status;
}

ProcMemory parse_status_memory(std::string_view text) {
  ProcMemory memory;
  if (auto rss = line_value(text, "VmRSS:")) memory.rss_kib = kib_value(*rss);
  if (auto hwm = line_value(text, "VmHWM:")) memory.peak_rss_kib = kib_value(*hwm);
  return memory;
}

std::optional<Pid> innermost_pid(const ProcStatus& status, Pid pid) {
  if (status.namespace_pids.empty() || status.namespace_pids.back() == pid) return std::nullopt;
  return status.namespace_pids.back();
}

std::vector<std::string> parse_cmdline(std::string_view text) {
  std::vector<std::string> args;
  while (!text.empty()) {
    std::size_t end = text.find('\0');
    if (end == std::string_view::npos) end = text.size();
    args.emplace_back(text.substr(0, end));
    text.remove_prefix(end == text.size() ? end : end + 1);
  }
  return args;
}

std::optional<std::int64_t> parse_boot_time(std::string_view proc_stat) {
  for (std::string_view line : split_lines(proc_stat)) {
    auto value = after_prefix(line, "btime ");
    if (!value) continue;
    auto fields = split_fields(*value);
    if (fields.size() != 1) return std::nullopt;
    return parse_integer<std::int64_t>(fields[0]);
  }
  return std::nullopt;
}

std::optional<std::uint64_t> parse_open_files_limit(std::string_view limits) {
  for (std::string_view line : split_lines(limits)) {
    auto value = after_prefix(line, "Max open files ");
    if (!value) continue;
    auto fields = split_fields(*value);
    // Soft limit, hard limit, unit.
    if (fields.size() != 3 || fields[2] != "files") return std::nullopt;
    return parse_integer<std::uint64_t>(fields[0]);
  }
  return std::nullopt;
}

TimeUs ticks_since_boot_to_epoch_us(std::int64_t boot_time_s, std::uint64_t ticks,
                                    std::int64_t ticks_per_second) {
  return boot_time_s * 1'000'000 + ticks_to_us(ticks, ticks_per_second);
}

std::int64_t ticks_to_us(std::uint64_t ticks, std::int64_t ticks_per_second) {
  // Whole seconds first, so that a large tick count cannot overflow the multiplication.
  auto per_second = static_cast<std::uint64_t>(ticks_per_second);
  std::uint64_t seconds = ticks / per_second;
  std::uint64_t rest = ticks % per_second;
  return static_cast<std::int64_t>(seconds * 1'000'000 + rest * 1'000'000 / per_second);
}

}  // namespace gpumeter::host
