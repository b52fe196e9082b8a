// SPDX-License-Identifier: MIT
// The names of a usage report's groupings, as `report --by` and `GET /api/v1/usage?by=` take
// them and as JSON documents write them.
#pragma once

#include <expected>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "store/usage.h"

namespace gpumeter::view {

// "user", "gpu", "process", "container", "host", "hour", "day", "month", in the order given.
// Errors: invalid_input "OPTION: ..." (`option` as the person typed it: "--by", "by") for an
// unknown name, a name given twice, or more than one of hour, day and month.
std::expected<std::vector<store::GroupBy>, Error> parse_group_by(std::span<const std::string> names,
                                                                 std::string_view option = "--by");

// The name a grouping goes by.
std::string_view group_name(store::GroupBy by);

}  // namespace gpumeter::view
