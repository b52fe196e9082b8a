// SPDX-License-Identifier: MIT
// The container or batch job a process runs in, from its /proc/<pid>/cgroup.
#pragma once

#include <optional>
#include <string_view>

#include "core/model.h"

namespace gpumeter::host {

// Parses /proc/<pid>/cgroup, cgroup v2 ("0::/path") and v1 ("4:memory:/path") lines alike,
// and recognises, in this order of precedence:
//   Kubernetes  .../kubepods.../pod<uid>/... or kubepods-...-pod<uid>.slice
//               -> {"kubernetes", pod uid}, underscores of the systemd form turned to dashes
//   Slurm       .../slurm/uid_<u>/job_<id>/... or any path component job_<id>
//               -> {"slurm", job id}
//   Docker      docker-<id>.scope or /docker/<id>           -> {"docker", id}
//   containerd  cri-containerd-<id>.scope                   -> {"containerd", id}
//   Podman      libpod-<id>.scope or /libpod_parent/libpod-<id> -> {"podman", id}
// Kubernetes comes first because a pod's container also carries a runtime scope, and the pod
// is what people recognise. Container ids are lowercase hex of at least 12 characters.
// Empty when the process is in no recognised container or job (a plain systemd slice).
std::optional<Container> parse_cgroup(std::string_view text);

}  // namespace gpumeter::host
