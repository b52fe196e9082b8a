// SPDX-License-Identifier: MIT
#include "cli/limit_output.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "view/humanize.h"

namespace gpumeter::cli {
namespace {

template <typename T>
Json or_null(const std::optional<T>& value) {
  return value ? Json(*value) : Json(nullptr);
}

Json paths_json(const host::LimitedGroup& group) {
  Json paths = Json::array();
  for (const auto& dir : group.groups) paths.push_back(dir.string());
  return paths;
}

int version_number(const host::LimitedGroup& group) {
  return group.version == host::CgroupVersion::v2 ? 2 : 1;
}

}  // namespace

std::string limit_text(Pid pid, const host::LimitedGroup& group, const host::LimitsInForce& now) {
  const host::Limits& limits = now.limits;
  std::string text = fmt::format("pid {}: cgroup v{}\n", pid, version_number(group));
  if (limits.cpu) {
    text += fmt::format(
        "cpu        {:g} CPUs' worth (quota {} per {} µs)\n",
        static_cast<double>(limits.cpu->quota_us) / static_cast<double>(limits.cpu->period_us),
        limits.cpu->quota_us, limits.cpu->period_us);
  }
  if (limits.cpuset) text += fmt::format("cpuset     {}\n", *limits.cpuset);
  if (limits.memory_bytes) {
    text += fmt::format("memory     {} ({} bytes)\n",
                        view::format_bytes(static_cast<double>(*limits.memory_bytes)),
                        *limits.memory_bytes);
  }
  for (const auto& dir : group.groups) text += fmt::format("group      {}\n", dir.string());
  text += fmt::format("processes  {}\n", fmt::join(now.members, " "));
  return text;
}

Json limit_json(Pid pid, const host::LimitedGroup& group, const host::LimitsInForce& now) {
  const auto& cpu = now.limits.cpu;
  const Json limits{{"cpu_quota_us", cpu ? Json(cpu->quota_us) : Json(nullptr)},
                    {"cpu_period_us", cpu ? Json(cpu->period_us) : Json(nullptr)},
                    {"cpuset", or_null(now.limits.cpuset)},
                    {"memory_bytes", or_null(now.limits.memory_bytes)}};
  return Json{{"pid", pid},
              {"limited", true},
              {"version", version_number(group)},
              {"groups", paths_json(group)},
              {"limits", limits},
              {"processes", now.members}};
}

Json unlimited_json(Pid pid) {
  return Json{{"pid", pid}, {"limited", false}};
}

Json cleared_json(Pid pid, const host::LimitedGroup& group) {
  return Json{{"pid", pid}, {"cleared", true}, {"groups", paths_json(group)}};
}

}  // namespace gpumeter::cli
