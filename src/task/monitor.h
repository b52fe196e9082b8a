// SPDX-License-Identifier: MIT
// What the task service needs from the rest of the daemon: process identities, the sampler's
// progress and its figures, and user names. An interface, so that the service and the server
// can be tested with a scripted fake; sampler_monitor.h implements it over the Sampler.
#pragma once

#include <expected>
#include <optional>
#include <string>

#include "core/attribution.h"
#include "core/process_key.h"
#include "task/task.h"

namespace gpumeter::task {

// The owner's CPU and memory read at a task's edge (when its begin or end request arrived).
struct EdgeReading {
  Maybe<CpuTimes> cpu = std::unexpected(Unavailable::no_data);             // procfs, clock ticks
  Maybe<std::uint64_t> rss_bytes = std::unexpected(Unavailable::no_data);  // resident now
  // The resident high-water mark as read (before a reset, when one was asked for).
  Maybe<std::uint64_t> peak_rss_bytes = std::unexpected(Unavailable::no_data);
  bool peak_reset = false;  // the mark was reset to the resident amount after it was read
  // GPU memory from the driver's process lists, read now.
  Maybe<GpuMemoryHeld> gpu_memory = std::unexpected(Unavailable::no_data);
};

class Monitor {
 public:
  virtual ~Monitor() = default;

  // The key of a live process; absent when it does not exist (or cannot be seen).
  virtual std::optional<ProcessKey> key_for(Pid pid) = 0;
  // The owner of a live process; absent when unknown.
  virtual std::optional<Uid> uid_of(Pid pid) = 0;
  // The name of a uid; absent when it has none.
  virtual std::optional<std::string> user_name(Uid uid) = 0;

  // Keep sampling CPU time and RSS of a process while it has tasks.
  virtual void watch(const ProcessKey& key) = 0;
  // Also forgets what read_edge() kept of the process. A key that is not watched is ignored.
  virtual void unwatch(const ProcessKey& key) = 0;

  // Reads the process's CPU times, resident memory, high-water mark and GPU memory now, and with
  // `reset_peak` then resets the mark (so that the next reading's mark is the peak since
  // now). Figures that cannot be read are absent with their reason.
  virtual EdgeReading read_edge(const ProcessKey& key, bool reset_peak) = 0;

  // When the sampler's newest round was taken; absent before the first.
  virtual std::optional<TimeUs> last_sample_time_us() const = 0;
  // The round time from which the samples a task ending at `time_us` needs are complete (the
  // driver reports each sample period at its end, so a round at `time_us` itself may miss the
  // last one; and the period after the end tells where the last one's busy time belongs).
  virtual TimeUs complete_after(TimeUs time_us) const = 0;
  // What the process used in the window, with the uuids of the GPUs involved; a one-line
  // reason when nothing could be computed.
  virtual std::expected<TaskFigures, std::string> figures(const ProcessKey& key,
                                                          Window window) const = 0;
};

}  // namespace gpumeter::task
