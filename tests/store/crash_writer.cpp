// SPDX-License-Identifier: MIT
// The crash test's victim: writes numbered batches into a store, as the daemon would, and
// reports each batch number on stdout (a pipe) once its transaction has committed. It resumes
// after the highest batch the database holds, and runs until it is killed.
//
// Usage: store_crash_writer DATABASE
// Each batch n, at time kT0 + n minutes: 50 samples of each of 4 GPUs (1 ms apart), one
// one-second interval of process 1000 + n % 7, and task n, all in one transaction; every 10
// batches a maintenance pass runs as well (downsampling, and pruning per-process minutes older
// than an hour).
#include <unistd.h>

#include <cstdio>
#include <string>

#include "store/history.h"
#include "store/maintenance.h"
#include "store/writer.h"

namespace {

using gpumeter::TimeUs;
namespace store = gpumeter::store;

constexpr TimeUs kSecondUs = 1'000'000;
constexpr TimeUs kMinuteUs = 60 * kSecondUs;
constexpr TimeUs kT0 = 1'767'225'600 * kSecondUs;

void add_batch(store::Writer& writer, std::uint64_t n) {
  const TimeUs second = kT0 + static_cast<TimeUs>(n) * kMinuteUs;
  for (int gpu = 0; gpu < 4; ++gpu) {
    for (int i = 0; i < 50; ++i) {
      (void)writer.add(store::DeviceSampleRecord{.uuid = "GPU-" + std::to_string(gpu),
                                                 .index = static_cast<std::uint32_t>(gpu),
                                                 .time_us = second + i * 1000,
                                                 .utilization_gpu_percent = 50,
                                                 .energy_joules = static_cast<double>(n)});
    }
  }
  const auto pid = static_cast<gpumeter::Pid>(1000 + n % 7);
  (void)writer.add(store::ProcessInterval{
      .process = {.pid = pid, .start_time_us = kT0, .gpu_uuid = "GPU-0", .user = "crash"},
      .begin_us = second,
      .end_us = second + kSecondUs,
      .held_seconds = 1.0,
      .sm_busy_seconds = 0.5});
  (void)writer.add(store::TaskRecord{
      .id = n, .name = "batch", .begin_us = second, .end_us = second + kSecondUs});
}

std::uint64_t resume_after(store::Store& db) {
  const auto tasks = store::tasks(db, {.since_us = 0, .until_us = kT0 + 1'000'000 * kMinuteUs});
  std::uint64_t last = 0;
  if (tasks) {
    for (const auto& stored : *tasks) last = std::max(last, stored.task.id);
  }
  return last;
}

void report(std::uint64_t n) {
  const std::string line = std::to_string(n) + "\n";
  if (::write(STDOUT_FILENO, line.data(), line.size()) < 0) ::_exit(3);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: store_crash_writer DATABASE\n");
    return 2;
  }
  auto db = store::Store::open(argv[1], {.host = "crash-host"});
  if (!db) {
    std::fprintf(stderr, "%s\n", db.error().message.c_str());
    return 1;
  }
  store::Writer writer(*db);
  for (std::uint64_t n = resume_after(*db) + 1;; ++n) {
    add_batch(writer, n);
    if (auto flushed = writer.flush(); !flushed) {
      std::fprintf(stderr, "%s\n", flushed.error().message.c_str());
      return 1;
    }
    report(n);
    if (n % 10 == 0) {
      const TimeUs now = kT0 + static_cast<TimeUs>(n) * kMinuteUs;
      if (auto kept = store::maintain(*db, now, {.process_minutes_us = 60 * kMinuteUs}); !kept) {
        std::fprintf(stderr, "%s\n", kept.error().message.c_str());
        return 1;
      }
    }
  }
}
