// SPDX-License-Identifier: MIT
#include "host/cgroup.h"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "core/text.h"

namespace gpumeter::host {
namespace {

using Components = std::vector<std::string_view>;
using Matcher = std::optional<Container> (*)(const Components&);

// Shorter hex runs appear in ordinary unit names; runtimes use 64 characters.
constexpr std::size_t kMinContainerIdLength = 12;

bool is_hex_id(std::string_view text) {
  return text.size() >= kMinContainerIdLength && std::ranges::all_of(text, [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

bool is_pod_uid(std::string_view text) {
  return !text.empty() && std::ranges::all_of(text, [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || c == '-' || c == '_';
  });
}

Components path_components(std::string_view path) {
  Components parts;
  for (std::size_t pos = 0; pos <= path.size();) {
    std::size_t end = std::min(path.find('/', pos), path.size());
    if (end > pos) parts.push_back(path.substr(pos, end - pos));
    pos = end + 1;
  }
  return parts;
}

// "<prefix><hex>.scope" or "<prefix><hex>" -> hex.
std::optional<std::string_view> prefixed_id(std::string_view component, std::string_view prefix) {
  auto rest = after_prefix(component, prefix);
  if (!rest) return std::nullopt;
  if (rest->ends_with(".scope")) rest->remove_suffix(std::string_view(".scope").size());
  if (!is_hex_id(*rest)) return std::nullopt;
  return rest;
}

// "pod<uid>" (cgroupfs driver) or "kubepods-<qos>-pod<uid_with_underscores>.slice" (systemd).
std::optional<std::string_view> pod_uid(std::string_view component) {
  if (component.starts_with("kubepods") && component.ends_with(".slice")) {
    std::size_t pod = component.rfind("-pod");
    if (pod == std::string_view::npos) return std::nullopt;
    component =
        component.substr(pod + 1, component.size() - pod - 1 - std::string_view(".slice").size());
  }
  auto uid = after_prefix(component, "pod");
  if (!uid || !is_pod_uid(*uid)) return std::nullopt;
  return uid;
}

std::optional<Container> kubernetes(const Components& parts) {
  if (std::ranges::none_of(parts, [](std::string_view p) { return p.starts_with("kubepods"); })) {
    return std::nullopt;
  }
  for (std::string_view part : parts) {
    if (auto uid = pod_uid(part)) {
      std::string id(*uid);
      std::ranges::replace(id, '_', '-');
      return Container{"kubernetes", id};
    }
  }
  return std::nullopt;
}

std::optional<Container> slurm(const Components& parts) {
  for (std::string_view part : parts) {
    auto job = after_prefix(part, "job_");
    if (job && parse_integer<std::uint64_t>(*job)) return Container{"slurm", std::string(*job)};
  }
  return std::nullopt;
}

std::optional<Container> docker(const Components& parts) {
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (auto id = prefixed_id(parts[i], "docker-")) return Container{"docker", std::string(*id)};
    if (parts[i] == "docker" && i + 1 < parts.size() && is_hex_id(parts[i + 1])) {
      return Container{"docker", std::string(parts[i + 1])};
    }
  }
  return std::nullopt;
}

std::optional<Container> runtime_scope(const Components& parts, std::string_view prefix,
                                       std::string_view runtime) {
  for (std::string_view part : parts) {
    if (auto id = prefixed_id(part, prefix))
      return Container{std::string(runtime), std::string(*id)};
  }
  return std::nullopt;
}

std::optional<Container> containerd(const Components& parts) {
  return runtime_scope(parts, "cri-containerd-", "containerd");
}

std::optional<Container> podman(const Components& parts) {
  return runtime_scope(parts, "libpod-", "podman");
}

// "hierarchy-id:controllers:path"; the path itself may contain ':'.
std::optional<std::string_view> cgroup_path(std::string_view line) {
  std::size_t first = line.find(':');
  if (first == std::string_view::npos) return std::nullopt;
  std::size_t second = line.find(':', first + 1);
  if (second == std::string_view::npos) return std::nullopt;
  return line.substr(second + 1);
}

}  // namespace

std::optional<Container> parse_cgroup(std::string_view text) {
  std::vector<Components> paths;
  for (std::string_view line : split_lines(text)) {
    if (auto path = cgroup_path(line)) paths.push_back(path_components(*path));
  }
  constexpr std::array<Matcher, 5> kMatchers = {kubernetes, slurm, docker, containerd, podman};
  for (Matcher match : kMatchers) {
    for (const Components& parts : paths) {
      if (auto container = match(parts)) return container;
    }
  }
  return std::nullopt;
}

}  // namespace gpumeter::host
