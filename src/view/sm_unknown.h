// SPDX-License-Identifier: MIT
// How the history's unknown SM use is explained to people: a GPU in MIG mode keeps no
// per-process utilisation, so the store records the held time of its processes as "SM use
// unknown" with the reason's name ("mig"), never as 0 (docs/mig.md, "History").
#pragma once

#include <optional>
#include <string>

namespace gpumeter::view {

// The sentence for a stored reason: kMigNoProcessUtilization for "mig"; "the driver reported
// no per-process utilisation" for any other or none.
std::string sm_unknown_text(const std::optional<std::string>& reason);

}  // namespace gpumeter::view
