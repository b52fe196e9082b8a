// SPDX-License-Identifier: MIT
#include "cli/run_setup.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace gpumeter::cli {
namespace {

std::string limit_names(const host::Limits& limits) {
  std::string names;
  const auto add = [&](bool asked, std::string_view name) {
    if (asked) names += fmt::format("{}{}", names.empty() ? "" : ", ", name);
  };
  add(limits.cpu.has_value(), "CPU quota");
  add(limits.cpuset.has_value(), "CPU set");
  add(limits.memory_bytes.has_value(), "memory");
  return names;
}

Error no_cgroup(const host::Limits& limits, std::string_view why) {
  return Error{
      ErrorCode::no_permission,
      fmt::format("gpumeter run: the limits asked for ({}) need a cgroup of their own, and none "
                  "could be made: {}. Run as root, or where a cgroup is delegated to "
                  "you, e.g. `systemd-run --user --scope -p Delegate=yes gpumeter run "
                  "...`. The command was not run.",
                  limit_names(limits), why)};
}

}  // namespace

std::expected<GpuSide, Error> open_gpu_side(const GlobalOptions& options) {
  auto host = open_host_side(options);
  if (!host) return std::unexpected(std::move(host.error()));
  auto gpus = open_default_gpu_source(host->gpus);
  if (!gpus) return GpuSide{std::nullopt, fmt::format("no GPU found: {}", gpus.error().message)};
  return GpuSide{make_session(std::move(*host), std::move(*gpus)), {}};
}

std::expected<std::unique_ptr<host::RunCgroup>, Error> make_run_cgroup(
    const RunSettings& settings) {
  if (!settings.cgroup) return nullptr;
  static host::SystemCgroupFs system;
  const auto layout = host::read_cgroup_layout("/");
  if (!layout) {
    if (settings.limits.any()) return std::unexpected(no_cgroup(settings.limits, layout.error()));
    return nullptr;
  }
  const host::CgroupRequest request{.name = fmt::format("gpumeter-run-{}", ::getpid()),
                                    .limits = settings.limits,
                                    .self = static_cast<Pid>(::getpid())};
  auto cgroup = host::create_run_cgroup(system, *layout, request);
  if (cgroup) return std::move(*cgroup);
  if (settings.limits.any()) return std::unexpected(no_cgroup(settings.limits, cgroup.error()));
  return nullptr;
}

std::expected<void, Error> check_writable(const std::filesystem::path& file) {
  std::error_code ignored;
  const bool existed = std::filesystem::exists(file, ignored);
  const bool opened = std::ofstream(file, std::ios::app).is_open();
  const int error = errno;
  if (!opened) {
    return std::unexpected(Error{ErrorCode::io, fmt::format("gpumeter run: --json: cannot write "
                                                            "{}: {}",
                                                            file.string(), std::strerror(error))});
  }
  if (!existed) std::filesystem::remove(file, ignored);
  return {};
}

std::expected<void, Error> write_document(const std::filesystem::path& file,
                                          const std::string& text) {
  std::ofstream out(file, std::ios::trunc);
  out << text;
  out.close();
  if (!out) {
    return std::unexpected(
        Error{ErrorCode::io, fmt::format("gpumeter run: --json: cannot write {}", file.string())});
  }
  return {};
}

}  // namespace gpumeter::cli
