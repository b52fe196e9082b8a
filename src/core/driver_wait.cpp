// SPDX-License-Identifier: MIT
#include "core/driver_wait.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace gpumeter {

DriverWait::DriverWait(std::string_view name, Open open, RetryDelays delays, Log log, Clock clock)
    : name_(name),
      open_(std::move(open)),
      delays_(delays),
      log_(std::move(log)),
      clock_(std::move(clock)) {
  try_open();
}

void DriverWait::try_open() {
  auto opened = open_();
  const std::lock_guard lock(status_mutex_);
  if (opened) {
    source_ = std::move(*opened);
    status_.up = true;
    if (status_.failed_opens > 0) {
      log_(fmt::format("the NVIDIA driver answers after {} failed tries; reading the GPUs",
                       status_.failed_opens));
    }
    return;
  }
  const std::uint64_t failures = ++status_.failed_opens;
  // Logged when the error changes, not at every try: a driver missing for hours is one line.
  if (opened.error().message != status_.last_error) {
    log_(fmt::format(
        "waiting for the NVIDIA driver ({}); trying again with a delay growing from "
        "{}s to {}s",
        opened.error().message, delays_.first.count() / 1000, delays_.most.count() / 1000));
  }
  status_.last_error = std::move(opened.error().message);
  delay_ = failures == 1 ? delays_.first : std::min(delay_ * 2, delays_.most);
  next_try_ = clock_() + delay_;
}

std::string_view DriverWait::name() const noexcept {
  return source_ ? source_->name() : std::string_view(name_);
}

std::expected<GpuReading, Error> DriverWait::read() {
  if (!source_ && clock_() >= next_try_) try_open();
  if (!source_) return GpuReading{};
  return source_->read();
}

DriverStatus DriverWait::status() const {
  const std::lock_guard lock(status_mutex_);
  return status_;
}

Maybe<std::vector<PidGpuSample>> DriverWait::drain_process_utilization(
    std::uint32_t device_index, std::optional<TimeUs> last_seen_us) {
  if (!source_) return std::unexpected(Unavailable::not_supported);
  return source_->drain_process_utilization(device_index, last_seen_us);
}

Maybe<std::vector<BufferedSample>> DriverWait::drain_device_samples(
    std::uint32_t device_index, DeviceBuffer buffer, std::optional<TimeUs> last_seen_us) {
  if (!source_) return std::unexpected(Unavailable::not_supported);
  return source_->drain_device_samples(device_index, buffer, last_seen_us);
}

Maybe<GpuMemoryHeld> DriverWait::process_memory(Pid pid, std::span<const std::uint32_t> devices) {
  GpuSource* source = nullptr;
  {
    // Called from other threads than the sampler's, which sets source_ once under this lock.
    const std::lock_guard lock(status_mutex_);
    source = source_.get();
  }
  if (source == nullptr) return std::unexpected(Unavailable::not_supported);
  return source->process_memory(pid, devices);
}

AccountingControl* DriverWait::accounting_control() noexcept {
  return source_ ? source_->accounting_control() : nullptr;
}

Maybe<void> DriverWait::clear_vgpu_accounting(std::uint32_t instance) {
  if (!source_) return std::unexpected(Unavailable::not_supported);
  return source_->clear_vgpu_accounting(instance);
}

}  // namespace gpumeter
