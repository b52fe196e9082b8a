// SPDX-License-Identifier: MIT
#include "host/run_cgroup.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "core/text.h"
#include "host/cgroup_parts.h"

namespace gpumeter::host {
namespace cgroup_parts {

Controllers controllers_for(const Limits& limits) {
  Controllers controllers;
  if (limits.cpu) controllers.emplace_back("cpu");
  if (limits.cpuset) controllers.emplace_back("cpuset");
  if (limits.memory_bytes) controllers.emplace_back("memory");
  return controllers;
}

std::string failure(std::string_view action, const std::filesystem::path& path,
                    std::error_code error) {
  return fmt::format("cannot {} {}: {}", action, path.string(), error.message());
}

std::expected<void, std::string> write(CgroupFs& fs, const std::filesystem::path& file,
                                       std::string_view text) {
  if (auto written = fs.write(file, text); !written) {
    return std::unexpected(failure(fmt::format("write \"{}\" to", text), file, written.error()));
  }
  return {};
}

std::expected<void, std::string> remove_group(CgroupFs& fs, const std::filesystem::path& dir) {
  // The kernel may still count a process for a moment after it was reaped.
  constexpr int kAttempts = 100;
  constexpr std::chrono::milliseconds kPause{10};
  for (int attempt = 1;; ++attempt) {
    const auto removed = fs.remove_directory(dir);
    if (removed || removed.error() == std::errc::no_such_file_or_directory) return {};
    if (removed.error() != std::errc::device_or_resource_busy || attempt == kAttempts) {
      return std::unexpected(failure("remove", dir, removed.error()));
    }
    std::this_thread::sleep_for(kPause);
  }
}

Controllers words(std::string_view text) {
  Controllers out;
  for (std::string_view line : split_lines(text)) {
    for (std::string_view word : split_fields(line)) out.emplace_back(word);
  }
  return out;
}

Maybe<std::uint64_t> read_number(CgroupFs& fs, const std::filesystem::path& file) {
  const auto text = fs.read(file);
  if (!text) return std::unexpected(Unavailable::not_supported);
  const auto lines = split_lines(*text);
  const auto value = lines.empty() ? std::nullopt : parse_integer<std::uint64_t>(lines.front());
  if (!value) return std::unexpected(Unavailable::no_data);
  return *value;
}

}  // namespace cgroup_parts

namespace {

using cgroup_parts::Controllers;

// The controllers of `wanted` that v2 does not offer to groups below `dir`.
Controllers missing_in_v2(CgroupFs& fs, const std::filesystem::path& dir,
                          const Controllers& wanted) {
  const auto offered = fs.read(dir / "cgroup.controllers");
  const Controllers names = offered ? cgroup_parts::words(*offered) : Controllers{};
  Controllers missing;
  for (const std::string& controller : wanted) {
    if (std::ranges::find(names, controller) == names.end()) missing.push_back(controller);
  }
  return missing;
}

bool memory_enabled_below(CgroupFs& fs, const std::filesystem::path& dir) {
  const auto enabled = fs.read(dir / "cgroup.subtree_control");
  if (!enabled) return false;
  const Controllers on = cgroup_parts::words(*enabled);
  return std::ranges::find(on, "memory") != on.end();
}

Controllers missing_in_v1(const CgroupLayout& layout, const Controllers& wanted) {
  Controllers missing;
  for (const std::string& controller : wanted) {
    if (!layout.v1.contains(controller)) missing.push_back(controller);
  }
  return missing;
}

std::string unavailable(const CgroupLayout& layout, const Controllers& v2_missing,
                        const Controllers& v1_missing) {
  if (!layout.unified && layout.v1.empty()) return "no cgroup file system is mounted";
  std::string why;
  if (layout.unified) {
    why = fmt::format("cgroup v2 does not offer the {} controller{} to {} (cgroup.controllers)",
                      fmt::join(v2_missing, ", "), v2_missing.size() > 1 ? "s" : "",
                      layout.unified->string());
  }
  if (!layout.v1.empty()) {
    why += fmt::format("{}no cgroup v1 hierarchy has the {} controller{}", why.empty() ? "" : "; ",
                       fmt::join(v1_missing, ", "), v1_missing.size() > 1 ? "s" : "");
  }
  return why;
}

std::expected<std::unique_ptr<RunCgroup>, std::string> create_limited(
    CgroupFs& fs, const CgroupLayout& layout, const CgroupRequest& request) {
  const Controllers wanted = cgroup_parts::controllers_for(request.limits);
  Controllers v2_missing = wanted;
  if (layout.unified) {
    v2_missing = missing_in_v2(fs, *layout.unified, wanted);
    if (v2_missing.empty()) {
      return cgroup_parts::create_v2(fs, *layout.unified, request, wanted);
    }
  }
  const Controllers v1_missing = missing_in_v1(layout, wanted);
  if (!layout.v1.empty() && v1_missing.empty()) {
    return cgroup_parts::create_v1(fs, layout, request, wanted);
  }
  return std::unexpected(unavailable(layout, v2_missing, v1_missing));
}

// Without limits: a group that changes nothing outside itself. On v2 it has the memory
// controller (for the high-water mark) when our group already enables it below itself; else
// a v1 memory group; else a bare v2 group, to follow the processes by.
std::expected<std::unique_ptr<RunCgroup>, std::string> create_unlimited(
    CgroupFs& fs, const CgroupLayout& layout, const CgroupRequest& request) {
  cgroup_parts::Created created = std::unexpected("no cgroup file system is mounted");
  if (layout.unified && memory_enabled_below(fs, *layout.unified)) {
    created = cgroup_parts::create_v2(fs, *layout.unified, request, {});
  }
  if (!created && layout.v1.contains("memory")) {
    created = cgroup_parts::create_v1(fs, layout, request, {});
  }
  if (!created && layout.unified) {
    created = cgroup_parts::create_v2(fs, *layout.unified, request, {});
  }
  return created;
}

}  // namespace

std::expected<std::unique_ptr<RunCgroup>, std::string> create_run_cgroup(
    CgroupFs& fs, const CgroupLayout& layout, const CgroupRequest& request) {
  if (request.limits.any()) return create_limited(fs, layout, request);
  return create_unlimited(fs, layout, request);
}

}  // namespace gpumeter::host
