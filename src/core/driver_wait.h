// SPDX-License-Identifier: MIT
// A GPU source that waits for its driver: a daemon started before the driver finished loading
// (at boot, during a driver upgrade) keeps trying to open it, with a growing delay, and reads
// no GPU meanwhile instead of exiting (docs/daemon.md, "Waiting for the driver").
#pragma once

#include <chrono>
#include <cstdint>
#include <expected>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "core/error.h"
#include "core/source.h"

namespace gpumeter {

// The delays between tries: `first` after the first failure, doubled after each failure
// that follows, at most `most`.
struct RetryDelays {
  std::chrono::milliseconds first{1000};
  std::chrono::milliseconds most{60'000};
};

// Where the wait stands, for /healthz and /metrics.
struct DriverStatus {
  bool up = false;         // the driver opened
  std::string last_error;  // the last failure to open it; empty when none failed
  std::uint64_t failed_opens = 0;
};

class DriverWait final : public GpuSource {
 public:
  using Open = std::function<std::expected<std::unique_ptr<GpuSource>, Error>()>;
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  // One line for a person at every change of state: waiting (with the error), up again.
  using Log = std::function<void(const std::string&)>;

  // Tries `open` at once; `name` is the source's name while it is not open.
  DriverWait(std::string_view name, Open open, RetryDelays delays, Log log, Clock clock);

  std::string_view name() const noexcept override;
  // While the driver cannot be opened: a reading with no device (so that the sampler's rounds,
  // the host's figures and everything that reads them carry on), trying again once the delay
  // has passed. Once open: the source's reading.
  std::expected<GpuReading, Error> read() override;
  // Any thread.
  DriverStatus status() const;
  Maybe<std::vector<PidGpuSample>> drain_process_utilization(
      std::uint32_t device_index, std::optional<TimeUs> last_seen_us) override;
  Maybe<std::vector<BufferedSample>> drain_device_samples(
      std::uint32_t device_index, DeviceBuffer buffer, std::optional<TimeUs> last_seen_us) override;
  // Any thread, as GpuSource says.
  Maybe<GpuMemoryHeld> process_memory(Pid pid, std::span<const std::uint32_t> devices) override;
  AccountingControl* accounting_control() noexcept override;
  Maybe<void> clear_vgpu_accounting(std::uint32_t instance) override;

 private:
  void try_open();

  std::string name_;
  Open open_;
  RetryDelays delays_;
  Log log_;
  Clock clock_;
  // Null until the driver opens, then kept; set under status_mutex_ by the sampler's thread.
  std::unique_ptr<GpuSource> source_;
  mutable std::mutex status_mutex_;
  DriverStatus status_;
  std::chrono::milliseconds delay_{0};
  std::chrono::steady_clock::time_point next_try_{};
};

}  // namespace gpumeter
