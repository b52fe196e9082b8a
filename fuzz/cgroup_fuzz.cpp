// SPDX-License-Identifier: MIT
// cgroup files (src/host/cgroup_layout, cgroup_limits): /proc/self/mountinfo and
// /proc/self/cgroup (two parts of one input, split at the first NUL byte), and the CPU lists
// and sizes that `run` and `limit` read from the kernel or the command line.
// Promise: a layout's directories lie under the root; a parsed CPU list is sorted without
// duplicates and survives format_cpu_list; a memory size is at least 1 byte.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "host/cgroup_layout.h"
#include "host/cgroup_limits.h"

namespace {

using namespace gpumeter;

void check_layout(std::string_view mountinfo, std::string_view self_cgroup) {
  const auto layout = host::parse_cgroup_layout("/fuzzroot", mountinfo, self_cgroup);
  const auto under_root = [](const std::filesystem::path& dir) {
    return dir.string().starts_with("/fuzzroot");
  };
  if (layout.unified) {
    fuzz::check(under_root(*layout.unified), "layout: unified directory outside the root");
  }
  for (const auto& [controller, dir] : layout.v1) {
    fuzz::check(under_root(dir), "layout: v1 directory outside the root");
  }
}

void check_cpus(std::string_view text) {
  const auto cpus = host::parse_cpu_list(text);
  if (cpus) {
    fuzz::check(std::ranges::adjacent_find(*cpus, std::ranges::greater_equal{}) == cpus->end(),
                "cpu list: not sorted or with duplicates");
    const auto again = host::parse_cpu_list(host::format_cpu_list(*cpus));
    fuzz::check(again && *again == *cpus, "cpu list: does not survive format_cpu_list");
  }
  (void)host::cpuset_within(text, {0, 1, 2, 3});
  (void)host::quota_for_cpus(text, 16);
  (void)host::quota_for_cpu_percent(text, 16);
  if (const auto bytes = host::parse_memory_size(text)) {
    fuzz::check(*bytes >= 1, "memory size: zero");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto [first, second] = gpumeter::fuzz::two_parts(gpumeter::fuzz::text_of(data, size));
  check_layout(first, second);
  check_cpus(first);
  return 0;
}
