// SPDX-License-Identifier: MIT
#include "view/group_by.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <utility>

namespace gpumeter::view {
namespace {

using store::GroupBy;

constexpr std::array<std::pair<std::string_view, GroupBy>, 8> kGroupNames{{
    {"user", GroupBy::user},
    {"gpu", GroupBy::gpu},
    {"process", GroupBy::process},
    {"container", GroupBy::container},
    {"host", GroupBy::host},
    {"hour", GroupBy::hour},
    {"day", GroupBy::day},
    {"month", GroupBy::month},
}};

bool is_period(GroupBy by) {
  return by == GroupBy::hour || by == GroupBy::day || by == GroupBy::month;
}

}  // namespace

std::expected<std::vector<GroupBy>, Error> parse_group_by(std::span<const std::string> names,
                                                          std::string_view option) {
  std::vector<GroupBy> group;
  for (const std::string& name : names) {
    const auto known =
        std::ranges::find(kGroupNames, name, &std::pair<std::string_view, GroupBy>::first);
    if (known == kGroupNames.end()) {
      return std::unexpected(invalid_input(fmt::format(
          "{}: \"{}\" is not one of user, gpu, process, container, host, hour, day, month", option,
          name)));
    }
    if (std::ranges::count(group, known->second) > 0)
      return std::unexpected(invalid_input(fmt::format("{}: {} is named twice", option, name)));
    group.push_back(known->second);
  }
  if (std::ranges::count_if(group, is_period) > 1)
    return std::unexpected(
        invalid_input(fmt::format("{}: at most one of hour, day and month", option)));
  return group;
}

std::string_view group_name(GroupBy by) {
  const auto known =
      std::ranges::find(kGroupNames, by, &std::pair<std::string_view, GroupBy>::second);
  return known->first;
}

}  // namespace gpumeter::view
