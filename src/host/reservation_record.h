// SPDX-License-Identifier: MIT
// The content of one reservation file and the rule that says whether it still holds. Pure
// functions, so that liveness and the file format are testable without processes or files.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/model.h"

namespace gpumeter::host {

struct ReservationRecord {
  int owner_pid = 0;
  // The owner's start (clock ticks since boot, stat field 22); tells the owner apart from a
  // later process that got the same pid. Empty when it could not be read at reservation time.
  std::optional<std::uint64_t> owner_start_ticks;
  TimeUs expires_us = 0;  // µs since the Unix epoch
};

// "owner_pid 123\nowner_start_ticks 456\nexpires_us 789\n" ("-" for an unknown start).
std::string format_record(const ReservationRecord& record);

// Empty when `text` is not a complete record.
std::optional<ReservationRecord> parse_record(std::string_view text);

// A reservation holds while its owner lives (the process with that pid still has the recorded
// start) and it has not expired: it ends when the owner exits or at expiry, whichever comes
// first, so an interactive shell that asked for GPUs does not keep them for its lifetime.
// `owner_start_now` is the start of the process that has the owner's pid now, empty if there is
// none.
bool is_live(const ReservationRecord& record, TimeUs now_us,
             std::optional<std::uint64_t> owner_start_now);

// A file name for a GPU uuid: letters, digits, '-' and '_' kept, other bytes as %XX; never
// starts with '.', which marks the directory's own files (the lock, temporary files).
std::string reservation_file_name(std::string_view uuid);

}  // namespace gpumeter::host
