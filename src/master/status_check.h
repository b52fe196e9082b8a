// SPDX-License-Identifier: MIT
// Whether an agent's answer looks like a `gpumeter list --json` document
// (schemas/list.schema.json) in the parts that the master and the fleet page rely on; anything
// else an agent sends is "garbage", however well-formed its JSON.
#pragma once

#include <expected>
#include <string>

#include "master/node.h"

namespace gpumeter::master {

// Checks schema_version 1, a string "host", an integer "time_us", and a "gpus" array whose
// items have a non-negative integer "index", a "status" string, string-or-null "uuid" and
// "name", number-or-null readings (utilization, memory, temperature, power) and array-or-null
// "users" and "processes". Other keys are not looked at, so agents may add some.
// Error: one line naming the first part that does not fit: "gpus[2].memory_used_bytes:
// expected a number or null".
std::expected<void, std::string> check_status_document(const Json& document);

}  // namespace gpumeter::master
