// SPDX-License-Identifier: MIT
#include "view/gpu_status.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <span>

#include "view/command_name.h"

namespace gpumeter::view {
namespace {

// The processes of a device, or none when the list could not be read.
std::span<const GpuProcess> processes_of(const Device& device) {
  if (!device.processes) return {};
  return *device.processes;
}

bool owner_visible(const Maybe<HostProcess>& host) {
  return host.has_value() && (host->user.has_value() || host->uid.has_value());
}

template <class Format>
Maybe<std::string> command_of(const Maybe<HostProcess>& host, Format format) {
  if (!host) return std::unexpected(host.error());
  if (host->cmdline && !host->cmdline->empty()) return format(*host->cmdline);
  if (host->comm) return *host->comm;
  return std::unexpected(host->cmdline ? host->comm.error() : host->cmdline.error());
}

}  // namespace

const Maybe<HostProcess>& host_view(const HostProcesses& hosts, Pid pid) {
  static const Maybe<HostProcess> kGone = std::unexpected(Unavailable::process_gone);
  const auto found = hosts.find(pid);
  return found == hosts.end() ? kGone : found->second;
}

GpuStatus gpu_status(const Device& device, const HostProcesses& hosts) {
  if (device.lost) return GpuStatus::lost;
  // A vGPU host's own process list holds no VM's work: the VMs are what use it.
  if (device.vgpu) return GpuStatus::vgpu_host;
  if (!device.processes) return GpuStatus::unknown;
  if (device.processes->empty()) return GpuStatus::free;
  const bool all_visible = std::ranges::all_of(*device.processes, [&](const GpuProcess& p) {
    return owner_visible(host_view(hosts, p.pid));
  });
  return all_visible ? GpuStatus::in_use : GpuStatus::unknown_owner;
}

std::string_view status_key(GpuStatus status) {
  switch (status) {
    case GpuStatus::free: return "free";
    case GpuStatus::in_use: return "in_use";
    case GpuStatus::unknown_owner: return "unknown_owner";
    case GpuStatus::unknown: return "unknown";
    case GpuStatus::lost: return "lost";
    case GpuStatus::vgpu_host: return "vgpu_host";
  }
  return "unknown";
}

std::optional<GpuStatus> status_from_key(std::string_view key) {
  for (const GpuStatus status : {GpuStatus::free, GpuStatus::in_use, GpuStatus::unknown_owner,
                                 GpuStatus::unknown, GpuStatus::lost, GpuStatus::vgpu_host}) {
    if (status_key(status) == key) return status;
  }
  return std::nullopt;
}

std::string_view status_marker(GpuStatus status) {
  switch (status) {
    case GpuStatus::free: return "[ ]";
    case GpuStatus::in_use: return "[~]";
    case GpuStatus::unknown_owner: return "[!]";
    case GpuStatus::unknown: return "[?]";
    case GpuStatus::lost: return "lost";
    case GpuStatus::vgpu_host: return "[v]";
  }
  return "[?]";
}

std::optional<std::string> owner_name(const Maybe<HostProcess>& host) {
  if (!host) return std::nullopt;
  if (host->user) return *host->user;
  if (host->uid) return fmt::format("{}", *host->uid);
  return std::nullopt;
}

std::vector<std::string> gpu_users(const Device& device, const HostProcesses& hosts) {
  std::vector<std::string> users;
  for (const GpuProcess& process : processes_of(device)) {
    std::string user = owner_name(host_view(hosts, process.pid)).value_or("?");
    if (std::ranges::find(users, user) == users.end()) users.push_back(std::move(user));
  }
  return users;
}

std::optional<TimeUs> oldest_start(const Device& device, const HostProcesses& hosts) {
  std::optional<TimeUs> oldest;
  for (const GpuProcess& process : processes_of(device)) {
    const Maybe<HostProcess>& host = host_view(hosts, process.pid);
    if (!host || !host->start_time_us) continue;
    if (!oldest || *host->start_time_us < *oldest) oldest = *host->start_time_us;
  }
  return oldest;
}

Maybe<std::string> full_command(const Maybe<HostProcess>& host) {
  return command_of(host, [](const std::vector<std::string>& argv) {
    return fmt::format("{}", fmt::join(argv, " "));
  });
}

Maybe<std::string> brief_command(const Maybe<HostProcess>& host) {
  return command_of(host,
                    [](const std::vector<std::string>& argv) { return view::short_command(argv); });
}

}  // namespace gpumeter::view
