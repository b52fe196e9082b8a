// SPDX-License-Identifier: MIT
#include "recorder/accounted_exits.h"

#include <algorithm>
#include <iterator>
#include <utility>

namespace gpumeter::recorder {

void AccountedExits::note(const Snapshot& snapshot) {
  std::set<Key> now;
  std::vector<store::AccountedProcess> fresh;
  for (const Device& device : snapshot.gpus.devices) {
    if (!device.accounting || !device.accounting->records) continue;
    for (const AccountingRecord& record : *device.accounting->records) {
      auto accounted = store::accounted_process(device, record);
      if (!accounted) continue;
      Key key{accounted->gpu_uuid, accounted->pid, accounted->start_time_us};
      if (!previous_.contains(key)) fresh.push_back(std::move(*accounted));
      now.insert(std::move(key));
    }
  }
  const std::lock_guard lock(mutex_);
  previous_ = std::move(now);
  std::ranges::move(fresh, std::back_inserter(waiting_));
}

std::vector<store::AccountedProcess> AccountedExits::take_until(TimeUs until_us) {
  const std::lock_guard lock(mutex_);
  std::vector<store::AccountedProcess> taken;
  std::erase_if(waiting_, [&](store::AccountedProcess& record) {
    if (record.end_us() > until_us) return false;
    taken.push_back(std::move(record));
    return true;
  });
  return taken;
}

std::vector<store::AccountedProcess> AccountedExits::take_all() {
  const std::lock_guard lock(mutex_);
  return std::exchange(waiting_, {});
}

}  // namespace gpumeter::recorder
