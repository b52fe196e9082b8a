// Short-lived GPU reservations, so that two `gpumeter available -l 1` run at the same
// instant never print the same GPU. One lock file per GPU in a runtime directory, holding
// an flock and the reserving process's pid and expiry; released when that process exits or
// after a grace period.
#pragma once

#include <chrono>
#include <expected>
#include <filesystem>
#include <string>
#include <vector>

#include "core/error.h"

namespace gpumeter::host {

struct ReservationOptions {
  // Empty: $XDG_RUNTIME_DIR/gpumeter/reservations, else /tmp/gpumeter-<uid>/reservations.
  std::filesystem::path directory;
  std::chrono::seconds grace{30};  // how long a reservation outlives no process
};

class Reservations {
 public:
  explicit Reservations(ReservationOptions options);
  // Atomically reserves up to `want` of `candidates` (GPU uuids, in order of preference)
  // that no live reservation holds, for the process `owner_pid` (the caller's parent shell
  // or job: the reservation lasts while it lives, or the grace period, whichever is
  // longer). Returns the reserved uuids, in the candidates' order.
  std::expected<std::vector<std::string>, Error> reserve(const std::vector<std::string>& candidates,
                                                         std::size_t want, int owner_pid);

 private:
  ReservationOptions options_;
};

}  // namespace gpumeter::host
