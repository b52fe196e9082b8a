// SPDX-License-Identifier: MIT
// Who the processes the series name are, remembered from the snapshots the sampler publishes:
// the series key processes by pid and start time only, and a process that has exited is no
// longer in the latest snapshot when its last interval is recorded. Also the uuid of each GPU
// index. Thread-safe: the sampler's thread notes snapshots, the recorder's thread asks.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "core/model.h"
#include "core/process_key.h"
#include "store/records.h"

namespace gpumeter::recorder {

class Identities {
 public:
  // Remembers the GPUs and the GPU processes of `snapshot` (the host's description of each).
  void note(const Snapshot& snapshot);

  // The uuid of the GPU with this index when last seen; absent when never seen with one.
  std::optional<std::string> uuid(std::uint32_t device) const;

  // The identity of `key` on GPU `device`: pid, start time and GPU from the key and the GPU
  // seen; user, uid, command and container from the last snapshot that described the process
  // (by its exact key, else by its pid when the host could not tell its start time). Absent
  // when the GPU has no known uuid.
  std::optional<store::ProcessIdentity> identity(const ProcessKey& key, std::uint32_t device) const;

  // Forgets processes last seen before `time_us`.
  void forget_before(TimeUs time_us);

 private:
  struct Known {
    store::ProcessIdentity identity;  // without GPU
    TimeUs seen_us = 0;
  };

  mutable std::mutex mutex_;
  std::map<std::uint32_t, std::string> uuids_;
  std::map<ProcessKey, Known> processes_;
};

// The command line as one string, arguments separated by spaces; else the process's name.
std::optional<std::string> command_of(const HostProcess& process);

}  // namespace gpumeter::recorder
