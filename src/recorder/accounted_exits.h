// SPDX-License-Identifier: MIT
// The processes that the driver's accounting buffer shows as exited, each noted once: a
// record that was not exited in the previous snapshot is new (a daemon that starts sees every
// exited record of the buffer as new; writing one again changes nothing, store/accounted.h).
// New ones wait until the recorder has recorded past their end, so that the sampler's
// intervals of the same process are written first and the two are joined, not double counted.
//
// note() runs in the sampler's thread, take_*() in the recorder's.
#pragma once

#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "core/model.h"
#include "store/accounted.h"

namespace gpumeter::recorder {

class AccountedExits {
 public:
  void note(const Snapshot& snapshot);
  // The new ones that ended by `until_us`, taken from the waiting list.
  std::vector<store::AccountedProcess> take_until(TimeUs until_us);
  // Every waiting one.
  std::vector<store::AccountedProcess> take_all();

 private:
  using Key = std::tuple<std::string, Pid, TimeUs>;  // uuid, pid, driver's start time

  std::mutex mutex_;
  std::set<Key> previous_;
  std::vector<store::AccountedProcess> waiting_;
};

}  // namespace gpumeter::recorder
