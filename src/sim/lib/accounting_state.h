// SPDX-License-Identifier: MIT
// What a privileged caller changed about accounting since the simulated driver loaded: the
// mode of each GPU, and since when its records count. A real driver keeps this in the kernel
// module, so every process sees the change at once. The simulator keeps it in memory, and
// also in the file named by $GPUMETER_SIM_STATE when that is set, so that `gpumeter
// accounting enable` in one process is seen by `gpumeter accounting status` in the next.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace gpumeter::sim::lib {

inline constexpr const char* kStateVariable = "GPUMETER_SIM_STATE";

// One GPU's changes. Times are µs since the Unix epoch; 0 means "never".
struct AccountingChange {
  std::optional<bool> enabled;     // absent: as the scenario says
  std::int64_t enabled_at_us = 0;  // records of processes started before this are gone
  std::int64_t cleared_at_us = 0;  // records of processes that ended before this are gone
};

// The changes of every GPU, by UUID.
class AccountingState {
 public:
  // Reads the state file again (when $GPUMETER_SIM_STATE is set): another process may have
  // changed the mode since. A missing file means no change; a malformed line is ignored.
  void refresh();

  AccountingChange of(const std::string& uuid) const;

  // Records `change` for the GPU and writes the file (atomically: a new file renamed over
  // the old one). False when the file could not be written.
  bool set(const std::string& uuid, const AccountingChange& change);

 private:
  std::map<std::string, AccountingChange> changes_;
};

}  // namespace gpumeter::sim::lib
