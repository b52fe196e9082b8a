// SPDX-License-Identifier: MIT
// `gpumeter available --fleet URL`: the free GPUs of every node a `gpumeter master` serves,
// as `node:gpu` lines (docs/master.md, "Free GPUs of the fleet"). The same rules as on one
// machine (core/selection.h), applied to each node's last good status document; run by
// gpumeter-serve, which has the HTTP client.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "core/selection.h"

namespace gpumeter::cli {

struct FleetAvailableRequest {
  std::string url;  // the master, as typed
  std::optional<std::filesystem::path> token_file;
  SelectionCriteria criteria;
  std::size_t limit = 0;  // 0: every free GPU
  bool uuid = false;      // node:uuid instead of node:index
};

// A free GPU of the fleet.
struct FleetGpu {
  std::string node;
  std::uint32_t index = 0;
  std::string uuid;
  double free_bytes = 0;
  double power_watts = 0;
  double power_limit_watts = 0;
};

// The free GPUs that the fleet document `text` (GET /api/v1/fleet) shows, of the nodes whose
// state is "ok", in the order the criteria ask for over the whole fleet (index: by node, then
// index), and how many GPUs of such nodes were looked at. Errors: invalid_input when the text
// is not a fleet document.
struct FleetChoice {
  std::vector<FleetGpu> free;
  std::size_t gpus = 0;
  std::size_t nodes = 0;          // nodes whose state is "ok"
  std::size_t nodes_skipped = 0;  // the others: no fresh reading to trust
};
std::expected<FleetChoice, Error> choose_fleet_gpus(const std::string& text,
                                                    const SelectionCriteria& criteria);

// As ServeCommands::fleet_available: fetches the master's fleet and prints the pairs. Exit
// status 0 with some printed, 1 when none is free, 2 when the master cannot be asked.
int run_fleet_available(const Output& output, const FleetAvailableRequest& request,
                        std::span<const std::string> args);

}  // namespace gpumeter::cli
