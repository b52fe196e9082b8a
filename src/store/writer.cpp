// SPDX-License-Identifier: MIT
#include "store/writer.h"

#include <algorithm>
#include <iterator>
#include <utility>

namespace gpumeter::store {
namespace {

// Moves every record of `from` to the front of `into`, keeping their order.
template <class T>
void prepend(std::deque<T>& into, std::vector<T>& from) {
  into.insert(into.begin(), std::make_move_iterator(from.begin()),
              std::make_move_iterator(from.end()));
}

template <class T>
std::vector<T> drain(std::deque<T>& from) {
  std::vector<T> records(std::make_move_iterator(from.begin()),
                         std::make_move_iterator(from.end()));
  from.clear();
  return records;
}

// Drops up to `excess` records from the front of `queue`; returns how many.
template <class T>
std::size_t drop_oldest(std::deque<T>& queue, std::size_t excess) {
  const std::size_t dropped = std::min(excess, queue.size());
  queue.erase(queue.begin(), queue.begin() + static_cast<std::ptrdiff_t>(dropped));
  return dropped;
}

}  // namespace

Writer::Writer(Store& store, WriterConfig config) : store_(&store), config_(config) {}

Writer::Writer(WriterConfig config) : config_(config) {}

void Writer::attach(Store& store) noexcept {
  store_ = &store;
}

template <class Record>
std::expected<void, Error> Writer::validated(const Record& record) {
  auto valid = validate(record);
  if (!valid) {
    const std::lock_guard lock(mutex_);
    ++state_.rejected_records;
  }
  return valid;
}

std::expected<void, Error> Writer::add(DeviceRecord record) {
  if (auto valid = validated(record); !valid) return valid;
  const std::lock_guard lock(mutex_);
  queue_.devices.insert_or_assign(record.uuid, std::move(record));
  enforce_bound();
  return {};
}

std::expected<void, Error> Writer::add(DeviceSampleRecord record) {
  if (auto valid = validated(record); !valid) return valid;
  const std::lock_guard lock(mutex_);
  queue_.device_samples.push_back(std::move(record));
  enforce_bound();
  return {};
}

std::expected<void, Error> Writer::add(ProcessInterval record) {
  if (auto valid = validated(record); !valid) return valid;
  const std::lock_guard lock(mutex_);
  queue_.process_intervals.push_back(std::move(record));
  enforce_bound();
  return {};
}

std::expected<void, Error> Writer::add(TaskRecord record) {
  if (auto valid = validated(record); !valid) return valid;
  const std::lock_guard lock(mutex_);
  queue_.tasks.push_back(std::move(record));
  enforce_bound();
  return {};
}

std::expected<void, Error> Writer::add(AccountedProcess record) {
  if (auto valid = validated(record); !valid) return valid;
  const std::lock_guard lock(mutex_);
  queue_.accounted.push_back(std::move(record));
  enforce_bound();
  return {};
}

std::expected<void, Error> Writer::add(VgpuUseRecord record) {
  if (auto valid = validated(record); !valid) return valid;
  const std::lock_guard lock(mutex_);
  queue_.vgpu_use.push_back(std::move(record));
  enforce_bound();
  return {};
}

std::expected<void, Error> Writer::add(MigMemoryRecord record) {
  if (auto valid = validated(record); !valid) return valid;
  const std::lock_guard lock(mutex_);
  queue_.mig_memory.push_back(std::move(record));
  enforce_bound();
  return {};
}

void Writer::set_recorded_until(TimeUs until_us) {
  const std::lock_guard lock(mutex_);
  queue_.recorded_until_us = std::max(queue_.recorded_until_us.value_or(until_us), until_us);
}

std::expected<WriteReport, Error> Writer::flush() {
  Batch batch;
  {
    const std::lock_guard lock(mutex_);
    if (store_ == nullptr) {
      Error error{ErrorCode::io, "no database is open"};
      ++state_.failed_flushes;
      ++state_.consecutive_failures;
      state_.last_error = error.message;
      return std::unexpected(std::move(error));
    }
    batch = take();
    flushing_rows_ = batch.rows();
  }
  if (batch.empty()) return WriteReport{};
  // The transaction runs without the lock, so that adds never wait for the disk.
  auto report = write(*store_, batch);
  const std::lock_guard lock(mutex_);
  flushing_rows_ = 0;
  if (!report) {
    ++state_.failed_flushes;
    ++state_.consecutive_failures;
    state_.last_error = report.error().message;
    put_back(std::move(batch));
    return report;
  }
  ++state_.flushes;
  state_.consecutive_failures = 0;
  state_.last_error.reset();
  state_.written_rows += batch.rows() - report->late_device_samples;
  state_.late_device_samples += report->late_device_samples;
  return report;
}

WriterState Writer::state() const {
  const std::lock_guard lock(mutex_);
  WriterState state = state_;
  state.queued_rows = queue_.rows() + flushing_rows_;
  return state;
}

Batch Writer::take() {
  Batch batch;
  for (auto& [uuid, device] : queue_.devices) batch.devices.push_back(std::move(device));
  queue_.devices.clear();
  batch.device_samples = drain(queue_.device_samples);
  batch.process_intervals = drain(queue_.process_intervals);
  batch.tasks = drain(queue_.tasks);
  batch.accounted = drain(queue_.accounted);
  batch.vgpu_use = drain(queue_.vgpu_use);
  batch.mig_memory = drain(queue_.mig_memory);
  batch.recorded_until_us = std::exchange(queue_.recorded_until_us, std::nullopt);
  return batch;
}

void Writer::put_back(Batch&& batch) {
  // A device record added since the batch was taken is newer: it wins.
  for (DeviceRecord& device : batch.devices)
    queue_.devices.try_emplace(device.uuid, std::move(device));
  prepend(queue_.device_samples, batch.device_samples);
  prepend(queue_.process_intervals, batch.process_intervals);
  prepend(queue_.tasks, batch.tasks);
  prepend(queue_.accounted, batch.accounted);
  prepend(queue_.vgpu_use, batch.vgpu_use);
  prepend(queue_.mig_memory, batch.mig_memory);
  if (batch.recorded_until_us) {
    queue_.recorded_until_us = std::max(queue_.recorded_until_us.value_or(*batch.recorded_until_us),
                                        *batch.recorded_until_us);
  }
  enforce_bound();
}

void Writer::enforce_bound() {
  if (queue_.rows() <= config_.max_queued_rows) return;
  std::size_t excess = queue_.rows() - config_.max_queued_rows;
  // vGPU use goes first: per-VM minutes are the coarsest figures to lose.
  excess -= drop_oldest(queue_.vgpu_use, excess);
  // Then MIG memory readings: each is one of many in its minute's aggregate.
  excess -= drop_oldest(queue_.mig_memory, excess);
  std::size_t dropped = drop_oldest(queue_.device_samples, excess);
  state_.dropped_device_samples += dropped;
  excess -= dropped;
  dropped = drop_oldest(queue_.process_intervals, excess);
  state_.dropped_process_intervals += dropped;
  excess -= dropped;
  state_.dropped_tasks += drop_oldest(queue_.tasks, excess);
}

}  // namespace gpumeter::store
