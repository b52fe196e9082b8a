// SPDX-License-Identifier: MIT
// GET /api/v1/fleet: every node's state and last good status document, in the shape of
// schemas/fleet.schema.json (documented in docs/master.md).
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "master/fleet.h"

namespace gpumeter::master {

inline constexpr int kFleetSchemaVersion = 1;

// `source`: "agents" (the master polls them) or "prometheus"; `fleet_error`: empty, or what
// went wrong with the whole source. As a tree: each status document is parsed again from its
// text (for `--once`, which prints it indented, and for tests).
Json fleet_json(std::span<const NodeView> nodes, std::string_view source,
                std::string_view fleet_error);

// The same document as text on one line, with each status document written out as the fleet
// keeps it (no parsing, no tree): what GET /api/v1/fleet sends, at the cost of copying bytes.
std::string fleet_text(std::span<const NodeView> nodes, std::string_view source,
                       std::string_view fleet_error);

// fleet_json() and fleet_text() of the fleet as of now.
Json fleet_json(const FleetState& fleet, std::string_view source);
std::string fleet_text(const FleetState& fleet, std::string_view source);

}  // namespace gpumeter::master
