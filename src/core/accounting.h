// SPDX-License-Identifier: MIT
// Accounting mode: the driver's own record of every process that used a GPU, kept in a
// circular buffer per GPU after the process exits (docs/accounting.md). Figures are averages
// over the whole life of a process, unlike gpumeter's samples, which answer for any window.
//
// Vendor-free: a GPU source reads the mode and the records into Device::accounting, and may
// offer an AccountingControl to change the mode (root only on every driver we know).
#pragma once

#include <cstdint>
#include <expected>
#include <optional>
#include <string_view>
#include <vector>

#include "core/unavailable.h"

namespace gpumeter {

// One process in a GPU's accounting buffer, running or exited.
struct AccountingRecord {
  std::uint32_t pid = 0;
  // Means over the process's life so far, percent; not_supported when the driver has none.
  Maybe<double> gpu_util_percent = std::unexpected(Unavailable::not_supported);
  Maybe<double> memory_util_percent = std::unexpected(Unavailable::not_supported);
  Maybe<std::uint64_t> max_memory_bytes = std::unexpected(Unavailable::not_supported);  // peak
  std::optional<std::uint64_t> time_ms;  // how long it ran; absent while it runs
  std::int64_t start_time_us = 0;        // µs since the Unix epoch
  bool running = false;
};

// A GPU's accounting as read at one instant.
struct Accounting {
  bool enabled = false;
  // Records the driver keeps before the oldest are overwritten, as the driver answers (current
  // drivers do also while the mode is off); absent with the reason when it does not.
  Maybe<std::uint32_t> buffer_size = std::unexpected(Unavailable::not_supported);
  // Oldest first, as the driver lists them; absent (not_supported) while disabled.
  Maybe<std::vector<AccountingRecord>> records = std::unexpected(Unavailable::not_supported);
};

// Why a change of the mode, or a clear, was refused.
enum class AccountingRefusal : std::uint8_t {
  needs_root,     // the driver allows it to root only
  mig_enabled,    // MIG is on: the driver keeps accounting off
  not_supported,  // the GPU or driver has no accounting (or the mode is off, for a clear)
  gpu_lost,       // the GPU fell off the bus or needs a reset
  no_such_gpu,    // no GPU has that index
  error,          // anything else the driver answered
};

// "needs_root", "mig_enabled", ...: stable words for JSON and logs.
std::string_view to_string(AccountingRefusal refusal) noexcept;

// Changes a GPU's accounting. `device_index` is DeviceIdentity::index.
class AccountingControl {
 public:
  virtual ~AccountingControl() = default;
  // Enabling starts an empty buffer; disabling drops every record. The mode is lost when
  // the driver unloads (unless persistence mode keeps it loaded).
  virtual std::expected<void, AccountingRefusal> set_accounting_mode(std::uint32_t device_index,
                                                                     bool enabled) = 0;
  // Drops the records of processes that have exited; running ones stay.
  virtual std::expected<void, AccountingRefusal> clear_accounting(std::uint32_t device_index) = 0;
};

}  // namespace gpumeter
