// SPDX-License-Identifier: MIT
// What `list` says about one GPU beyond its raw readings: free or in use and by whom, since
// when, and by which commands. Shared by the table and the JSON renderers.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model.h"

namespace gpumeter::view {

using HostProcesses = std::map<Pid, Maybe<HostProcess>>;

enum class GpuStatus : std::uint8_t {
  free,           // no processes
  in_use,         // processes whose owners we can see
  unknown_owner,  // a process whose owner we cannot see (no permission, or another pid namespace)
  unknown,        // the process list itself could not be read
  lost,           // fell off the bus
  vgpu_host,      // hosts vGPUs: in use by its VMs, never free for CUDA on the host
};

GpuStatus gpu_status(const Device& device, const HostProcesses& hosts);

// "free", "in_use", "unknown_owner", "unknown", "lost", "vgpu_host": the JSON values.
std::string_view status_key(GpuStatus status);
// The status a key of status_key() names; nullopt for another word.
std::optional<GpuStatus> status_from_key(std::string_view key);

// "[ ]", "[~]", "[!]", "[?]", "lost", "[v]": the table markers.
std::string_view status_marker(GpuStatus status);

// The host's view of a GPU process, or the reason it has none (a pid with no entry counts
// as process_gone).
const Maybe<HostProcess>& host_view(const HostProcesses& hosts, Pid pid);

// A process owner as a person reads it: the user name, else the uid as a number, else absent.
std::optional<std::string> owner_name(const Maybe<HostProcess>& host);

// Distinct owners of the GPU's processes in process order; "?" stands for owners we cannot see.
std::vector<std::string> gpu_users(const Device& device, const HostProcesses& hosts);

// Start time of the GPU's oldest process whose start time is known.
std::optional<TimeUs> oldest_start(const Device& device, const HostProcesses& hosts);

// The full command line joined by spaces, else the kernel's short name (comm: kernel threads
// and zombies have an empty command line), else the reason neither is known.
Maybe<std::string> full_command(const Maybe<HostProcess>& host);

// view::short_command of the command line, else comm, else the reason neither is known.
Maybe<std::string> brief_command(const Maybe<HostProcess>& host);

}  // namespace gpumeter::view
