// GET /api/v1/fleet: every node's state and last good status document, in the shape of
// schemas/fleet.schema.json (documented in docs/master.md).
#pragma once

#include <span>
#include <string_view>

#include "net/master_fleet.h"

namespace gpumeter::net {

inline constexpr int kFleetSchemaVersion = 1;

// `source`: "agents" (the master polls them) or "prometheus"; `fleet_error`: empty, or what
// went wrong with the whole source.
Json fleet_json(std::span<const NodeView> nodes, std::string_view source,
                std::string_view fleet_error);

// fleet_json() of the fleet as of now.
Json fleet_json(const FleetState& fleet, std::string_view source);

}  // namespace gpumeter::net
