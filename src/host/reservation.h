// SPDX-License-Identifier: MIT
// Short-lived GPU reservations, so that two `gpumeter available -l 1` run at the same
// instant never print the same GPU. One file per GPU in a private runtime directory holds the
// reserving process's pid, its start time and an expiry; a reservation ends when that process
// exits or when it expires, whichever comes first (the job it was made for has started and
// holds GPU memory by then, so NVML shows the GPU as used). A flock on the directory makes each
// selection atomic with respect to every other.
#pragma once

#include <chrono>
#include <cstddef>
#include <expected>
#include <filesystem>
#include <string>
#include <vector>

#include "core/error.h"

namespace gpumeter::host {

struct ReservationOptions {
  // Empty: $XDG_RUNTIME_DIR/gpumeter/reservations, else /tmp/gpumeter-<uid>/reservations.
  // Created with mode 0700; refused when another user owns it (or, for the defaults, its
  // parent) or when group or others may write to it.
  std::filesystem::path directory;
  std::chrono::seconds grace{30};  // how long a reservation lasts at most
};

// Reservations are per user: each user's directory is private, so they keep one user's
// concurrent selections apart, not two users'.
class Reservations {
 public:
  explicit Reservations(ReservationOptions options);

  // Atomically reserves up to `want` of `candidates` (GPU uuids, in order of preference;
  // empty and repeated ones are skipped) that no live reservation holds, for the process
  // `owner_pid` (the caller's parent shell or job). Stale reservations (owner gone, its pid
  // reused, or expired) are removed on the way. Returns the reserved uuids, in the
  // candidates' order; fewer than `want` (possibly none) when too few are free, and none at
  // all when fewer than `at_least` are: then nothing is held.
  // Errors: invalid_input for owner_pid <= 0; no_permission for an unsafe directory (see
  // ReservationOptions); io when the directory, its lock or a file cannot be used.
  std::expected<std::vector<std::string>, Error> reserve(const std::vector<std::string>& candidates,
                                                         std::size_t want, int owner_pid,
                                                         std::size_t at_least = 0);

 private:
  ReservationOptions options_;
};

}  // namespace gpumeter::host
