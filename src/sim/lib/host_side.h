// SPDX-License-Identifier: MIT
// What gpumeterSimHostSide (sim/host_side_abi.h) hands out: the host side of a parsed
// scenario in plain C types, over copies of its strings that live as long as this object.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sim/host_side_abi.h"
#include "sim/scenario.h"

namespace gpumeter::sim::lib {

class HostSideExport {
 public:
  static std::unique_ptr<HostSideExport> of(const Scenario& scenario);
  static std::unique_ptr<HostSideExport> failed(std::string error);

  const GpumeterSimHostSide& side() const { return side_; }

 private:
  HostSideExport() = default;

  std::string error_;
  std::vector<HostSpec> hosts_;  // one per process; the C view points into these
  std::vector<std::vector<const char*>> commands_;
  std::vector<GpumeterSimHostProcess> processes_;
  GpumeterSimHostSide side_{};
};

}  // namespace gpumeter::sim::lib
