// SPDX-License-Identifier: MIT
// The writer the daemon feeds: records queue in memory and each flush writes all of them in
// one transaction (store/write.h). When a flush fails (a full disk, an I/O error, the size cap,
// a lock held too long) nothing of it is written, the records stay queued for the next flush,
// and state() says so. The queue is bounded: past max_queued_rows the oldest device samples
// go first, then the oldest process intervals, then the oldest tasks, each counted.
//
// A writer may start without a store (the daemon's database could not be opened yet): records
// queue, bounded as above, until attach() gives it one; flushes before that fail and keep them.
//
// add() and state() may be called from any thread; flush() and attach() from one thread at a
// time, the one that owns the Store.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <expected>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "core/error.h"
#include "store/records.h"
#include "store/store.h"
#include "store/task_record.h"
#include "store/write.h"

namespace gpumeter::store {

struct WriterConfig {
  // About 70 MB of records at most: 350-365 bytes per row (tests/store/writer_test.cpp).
  std::size_t max_queued_rows = 200'000;
};

// For logs and the daemon's status.
struct WriterState {
  // Rows not yet written: those queued and those a flush in progress is writing (they are
  // queued again if it fails).
  std::size_t queued_rows = 0;
  std::uint64_t written_rows = 0;
  std::uint64_t flushes = 0;         // that wrote their batch
  std::uint64_t failed_flushes = 0;  // in total
  std::uint64_t consecutive_failures = 0;
  std::uint64_t dropped_device_samples = 0;  // queue over its bound
  std::uint64_t dropped_process_intervals = 0;
  std::uint64_t dropped_tasks = 0;
  std::uint64_t late_device_samples = 0;  // arrived after their time was pruned (WriteReport)
  std::uint64_t rejected_records = 0;     // failed validation in add()
  std::optional<std::string> last_error;  // the last flush's error; cleared by a success
};

class Writer {
 public:
  // The store must outlive the writer.
  explicit Writer(Store& store, WriterConfig config = {});
  // Without a store until attach().
  explicit Writer(WriterConfig config);

  // Writes to `store` from the next flush on; it must outlive the writer.
  void attach(Store& store) noexcept;

  // Queues a record; a device record replaces a queued one of the same GPU.
  // Errors: invalid_input from validate() (the record is not queued, and counted).
  std::expected<void, Error> add(DeviceRecord record);
  std::expected<void, Error> add(DeviceSampleRecord record);
  std::expected<void, Error> add(ProcessInterval record);
  std::expected<void, Error> add(TaskRecord record);
  std::expected<void, Error> add(AccountedProcess record);
  std::expected<void, Error> add(VgpuUseRecord record);
  std::expected<void, Error> add(MigMemoryRecord record);
  // Notes how far process intervals have been recorded: written with the next flush that
  // succeeds (Batch::recorded_until_us), together with the records queued before it.
  void set_recorded_until(TimeUs until_us);

  // Writes everything queued in one transaction; nothing to write is a success that touches
  // nothing. Errors: those of write(), and io before attach(); the records stay queued.
  std::expected<WriteReport, Error> flush();

  WriterState state() const;

 private:
  struct Queue {
    std::map<std::string, DeviceRecord> devices;  // by uuid
    std::deque<DeviceSampleRecord> device_samples;
    std::deque<ProcessInterval> process_intervals;
    std::deque<TaskRecord> tasks;
    std::deque<AccountedProcess> accounted;
    std::deque<VgpuUseRecord> vgpu_use;
    std::deque<MigMemoryRecord> mig_memory;
    std::optional<TimeUs> recorded_until_us;
    std::size_t rows() const noexcept {
      return devices.size() + device_samples.size() + process_intervals.size() + tasks.size() +
             accounted.size() + vgpu_use.size() + mig_memory.size();
    }
  };

  template <class Record>
  std::expected<void, Error> validated(const Record& record);
  Batch take();                  // caller holds mutex_
  void put_back(Batch&& batch);  // caller holds mutex_
  void enforce_bound();          // caller holds mutex_

  Store* store_ = nullptr;
  WriterConfig config_;
  mutable std::mutex mutex_;
  Queue queue_;
  std::size_t flushing_rows_ = 0;  // taken by the flush in progress
  WriterState state_;
};

}  // namespace gpumeter::store
