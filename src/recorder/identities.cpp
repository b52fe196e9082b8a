// SPDX-License-Identifier: MIT
#include "recorder/identities.h"

namespace gpumeter::recorder {
namespace {

store::ProcessIdentity identity_of(Pid pid, const Maybe<HostProcess>& described) {
  store::ProcessIdentity identity{.pid = pid};
  if (!described) return identity;
  identity.start_time_us = value_of(described->start_time_us).value_or(0);
  identity.uid = value_of(described->uid);
  identity.user = value_of(described->user);
  identity.command = command_of(*described);
  identity.container = described->container;
  return identity;
}

}  // namespace

std::optional<std::string> command_of(const HostProcess& process) {
  if (process.cmdline && !process.cmdline->empty()) {
    std::string line;
    for (const std::string& argument : *process.cmdline) {
      if (!line.empty()) line += ' ';
      line += argument;
    }
    return line;
  }
  return value_of(process.comm);
}

void Identities::note(const Snapshot& snapshot) {
  const std::lock_guard lock(mutex_);
  for (const Device& device : snapshot.gpus.devices) {
    if (device.identity.uuid) uuids_.insert_or_assign(device.identity.index, *device.identity.uuid);
  }
  for (const auto& [pid, described] : snapshot.processes) {
    TimeUs start = 0;
    if (described && described->start_time_us) start = *described->start_time_us;
    // A process is described once (its command line is built then), or again while the host
    // could not describe it; later rounds only say it is still there.
    const auto [known, inserted] = processes_.try_emplace(ProcessKey{pid, start});
    if (inserted || !known->second.identity.command)
      known->second.identity = identity_of(pid, described);
    known->second.seen_us = snapshot.time_us;
  }
}

std::optional<std::string> Identities::uuid(std::uint32_t device) const {
  const std::lock_guard lock(mutex_);
  const auto found = uuids_.find(device);
  if (found == uuids_.end()) return std::nullopt;
  return found->second;
}

std::optional<store::ProcessIdentity> Identities::identity(const ProcessKey& key,
                                                           std::uint32_t device) const {
  const std::lock_guard lock(mutex_);
  const auto gpu = uuids_.find(device);
  if (gpu == uuids_.end()) return std::nullopt;
  store::ProcessIdentity identity{.pid = key.pid, .start_time_us = key.start_time_us};
  auto known = processes_.find(key);
  if (known == processes_.end()) {
    // Described without a start time (the host could not tell it), or never described.
    known = processes_.find(ProcessKey{key.pid, 0});
  }
  if (known != processes_.end()) {
    identity = known->second.identity;
    identity.start_time_us = key.start_time_us;
  }
  identity.gpu_uuid = gpu->second;
  identity.gpu_index = device;
  return identity;
}

void Identities::forget_before(TimeUs time_us) {
  const std::lock_guard lock(mutex_);
  std::erase_if(processes_,
                [time_us](const auto& entry) { return entry.second.seen_us < time_us; });
}

}  // namespace gpumeter::recorder
