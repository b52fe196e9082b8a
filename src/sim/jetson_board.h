// SPDX-License-Identifier: MIT
// `gpumeter --simulate-jetson SCENARIO`: a simulated Jetson board's kernel files, kept moving.
// The board's files (sim/jetson_tree.h) are written under a private temporary directory and
// what changed is rewritten every 50 ms by a thread of the board's own, on the scenario's clock
// (sim/machine_clock.h: a daemon and a one-shot command on the same scenario see the same
// moment). The Jetson source reads that directory as it reads / on a board: the real read path,
// with the simulator standing in for the kernel. The directory goes when the board does.
#pragma once

#include <condition_variable>
#include <expected>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "core/error.h"
#include "sim/jetson_tree.h"
#include "sim/machine_clock.h"
#include "sim/scenario.h"
#include "sim/timeline.h"

namespace gpumeter::sim {

class SimulatedJetson {
 public:
  // Writes the board's files once, then keeps them moving. `scenario_path` names the scenario's
  // shared clock. Errors: invalid_input when the scenario has no "jetson" block, io when the
  // directory cannot be made or written.
  static std::expected<std::unique_ptr<SimulatedJetson>, Error> start(
      Scenario scenario, const std::filesystem::path& scenario_path);

  SimulatedJetson(const SimulatedJetson&) = delete;
  SimulatedJetson& operator=(const SimulatedJetson&) = delete;
  ~SimulatedJetson();

  // The board's root: what --jetson-root would name.
  const std::filesystem::path& root() const noexcept { return root_; }

 private:
  SimulatedJetson(Scenario scenario, JetsonSpec board, MachineEpoch epoch,
                  std::filesystem::path root);
  // Writes the files of the scenario's present moment that changed since the last call.
  std::expected<void, Error> refresh();
  std::vector<NvmapEntry> nvmap_entries(double t) const;
  void run(const std::stop_token& stop);

  Scenario scenario_;  // a Jetson board's: one device
  JetsonSpec board_;
  Timeline timeline_;  // refers to scenario_
  MachineEpoch epoch_;
  std::filesystem::path root_;
  JetsonTree written_;  // what the files hold now
  std::mutex mutex_;
  std::condition_variable_any wake_;
  std::jthread thread_;  // last: stopped and joined before the rest goes
};

}  // namespace gpumeter::sim
