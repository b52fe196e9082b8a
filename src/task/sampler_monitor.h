// SPDX-License-Identifier: MIT
// The Monitor of a running daemon: process keys, the sampler's rounds and its figures from the
// Sampler; uids and user names from procfs.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>

#include "core/sampler.h"
#include "host/procfs.h"
#include "host/user_names.h"
#include "task/monitor.h"

namespace gpumeter::task {

class SamplerMonitor final : public Monitor {
 public:
  // The sampler must outlive the monitor. `root` holds proc/ and etc/passwd.
  explicit SamplerMonitor(Sampler& sampler, const std::filesystem::path& root = "/");

  std::optional<ProcessKey> key_for(Pid pid) override;
  std::optional<Uid> uid_of(Pid pid) override;
  std::optional<std::string> user_name(Uid uid) override;
  void watch(const ProcessKey& key) override;
  void unwatch(const ProcessKey& key) override;
  EdgeReading read_edge(const ProcessKey& key, bool reset_peak) override;
  std::optional<TimeUs> last_sample_time_us() const override;
  TimeUs complete_after(TimeUs time_us) const override;
  std::expected<TaskFigures, std::string> figures(const ProcessKey& key,
                                                  Window window) const override;

 private:
  Sampler& sampler_;
  host::ProcfsProcessSource procfs_;
  host::UserNames users_;
  std::filesystem::path root_;
  // The start (clock ticks since boot) of each owner whose edges were read, from its first
  // edge on: the process the task daemon identified when the task began.
  std::map<ProcessKey, std::uint64_t> start_ticks_;
};

}  // namespace gpumeter::task
