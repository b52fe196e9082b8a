// SPDX-License-Identifier: MIT
#include "host/reservation_record.h"

#include <gtest/gtest.h>

namespace gpumeter::host::reservation_record_test {

TEST(ReservationRecord, RoundTrips) {
  ReservationRecord record{
      .owner_pid = 4242, .owner_start_ticks = 123456, .expires_us = 1'700'000'000'000'000};
  EXPECT_EQ(format_record(record),
            "owner_pid 4242\nowner_start_ticks 123456\nexpires_us 1700000000000000\n");
  auto parsed = parse_record(format_record(record));
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->owner_pid, 4242);
  EXPECT_EQ(parsed->owner_start_ticks, 123456U);
  EXPECT_EQ(parsed->expires_us, 1'700'000'000'000'000);
}

TEST(ReservationRecord, UnknownStartRoundTrips) {
  ReservationRecord record{.owner_pid = 7, .owner_start_ticks = std::nullopt, .expires_us = 5};
  auto parsed = parse_record(format_record(record));
  ASSERT_TRUE(parsed.has_value());
  EXPECT_FALSE(parsed->owner_start_ticks);
}

TEST(ReservationRecord, RejectsIncompleteOrForeignText) {
  EXPECT_FALSE(parse_record(""));
  EXPECT_FALSE(parse_record("owner_pid 1\nowner_start_ticks 2\n"));  // cut short
  EXPECT_FALSE(parse_record("owner_pid 0\nowner_start_ticks 2\nexpires_us 3\n"));
  EXPECT_FALSE(parse_record("owner_pid x\nowner_start_ticks 2\nexpires_us 3\n"));
  EXPECT_FALSE(parse_record("owner_pid 1\nowner_start_ticks 2x\nexpires_us 3\n"));
  EXPECT_FALSE(parse_record("expires_us 3\nowner_pid 1\nowner_start_ticks 2\n"));
  EXPECT_FALSE(parse_record("owner_pid 1\nowner_start_ticks 2\nexpires_us 3\nextra 4\n"));
}

TEST(ReservationLiveness, LiveOwnerHoldsUntilExpiry) {
  ReservationRecord record{.owner_pid = 10, .owner_start_ticks = 500, .expires_us = 2000};
  EXPECT_TRUE(is_live(record, 1999, 500));
  EXPECT_FALSE(is_live(record, 2000, 500));
}

TEST(ReservationLiveness, ReusedPidDoesNotHold) {
  ReservationRecord record{.owner_pid = 10, .owner_start_ticks = 500, .expires_us = 2000};
  EXPECT_FALSE(is_live(record, 1000, 501));
}

TEST(ReservationLiveness, DeadOwnerReleasesBeforeExpiry) {
  ReservationRecord record{.owner_pid = 10, .owner_start_ticks = 500, .expires_us = 2000};
  EXPECT_FALSE(is_live(record, 1000, std::nullopt));
}

TEST(ReservationLiveness, UnknownStartTrustsWhoeverHasThePid) {
  ReservationRecord record{.owner_pid = 10, .owner_start_ticks = std::nullopt, .expires_us = 2000};
  EXPECT_TRUE(is_live(record, 1000, 500));
  EXPECT_FALSE(is_live(record, 1000, std::nullopt));
  EXPECT_FALSE(is_live(record, 2000, 500));
}

TEST(ReservationFileName, KeepsUuidsReadableAndOthersSafe) {
  EXPECT_EQ(reservation_file_name("GPU-8f6b2a10-1c2d-4e5f-9a8b-7c6d5e4f3a2b"),
            "GPU-8f6b2a10-1c2d-4e5f-9a8b-7c6d5e4f3a2b");
  EXPECT_EQ(reservation_file_name("MIG-GPU-1/2/0"), "MIG-GPU-1%2F2%2F0");
  EXPECT_EQ(reservation_file_name(".lock"), "%2Elock");
  EXPECT_EQ(reservation_file_name("../x"), "%2E%2E%2Fx");
  EXPECT_NE(reservation_file_name(""), "");
}

}  // namespace gpumeter::host::reservation_record_test
