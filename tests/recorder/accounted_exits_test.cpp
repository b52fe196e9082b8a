// SPDX-License-Identifier: MIT
// Which exited accounting records the recorder writes: each exit once, however many snapshots
// show it; running records never; and only once the recorded time has passed the exit.
#include "recorder/accounted_exits.h"

#include <gtest/gtest.h>

namespace gpumeter::recorder::accounted_exits_test {

constexpr TimeUs kT0 = 1'767'225'600'000'000;
constexpr TimeUs kSecond = 1'000'000;

AccountingRecord record(Pid pid, TimeUs start_us, std::optional<std::uint64_t> time_ms) {
  AccountingRecord r;
  r.pid = pid;
  r.gpu_util_percent = 50.0;
  r.start_time_us = start_us;
  r.time_ms = time_ms;
  r.running = !time_ms;
  return r;
}

Snapshot with_records(std::vector<AccountingRecord> records) {
  Device device;
  device.identity.uuid = std::string("GPU-a");
  device.accounting = Accounting{.enabled = true, .buffer_size = 10U, .records = records};
  Snapshot snapshot;
  snapshot.gpus.devices = {device};
  return snapshot;
}

std::vector<Pid> pids(const std::vector<store::AccountedProcess>& taken) {
  std::vector<Pid> out;
  for (const auto& p : taken) out.push_back(p.pid);
  return out;
}

TEST(AccountedExits, EachExitOnceAndOnlyOnceRecorded) {
  AccountedExits exits;
  exits.note(with_records({record(1, kT0, 400), record(2, kT0, std::nullopt)}));
  exits.note(with_records({record(1, kT0, 400), record(2, kT0, 9000)}));
  exits.note(with_records({record(1, kT0, 400), record(2, kT0, 9000)}));
  EXPECT_EQ(pids(exits.take_until(kT0 + kSecond)), (std::vector<Pid>{1}));
  EXPECT_TRUE(exits.take_until(kT0 + kSecond).empty());
  EXPECT_EQ(pids(exits.take_until(kT0 + 9 * kSecond)), (std::vector<Pid>{2}));
}

TEST(AccountedExits, ARecordThatLeftTheBufferAndCameBackIsNewAgain) {
  AccountedExits exits;
  exits.note(with_records({record(1, kT0, 400)}));
  exits.note(with_records({}));
  exits.note(with_records({record(1, kT0, 400)}));
  EXPECT_EQ(pids(exits.take_all()), (std::vector<Pid>{1, 1}));
}

TEST(AccountedExits, AGpuWithoutRecordsOrUuidGivesNothing) {
  AccountedExits exits;
  Snapshot snapshot = with_records({record(1, kT0, 400)});
  snapshot.gpus.devices[0].identity.uuid = std::unexpected(Unavailable::error);
  exits.note(snapshot);
  snapshot.gpus.devices[0].accounting = std::unexpected(Unavailable::not_supported);
  exits.note(snapshot);
  EXPECT_TRUE(exits.take_all().empty());
}

}  // namespace gpumeter::recorder::accounted_exits_test
