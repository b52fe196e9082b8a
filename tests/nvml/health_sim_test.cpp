// SPDX-License-Identifier: MIT
// Memory and fault health through the real dlopen path: volatile and aggregate ECC counts,
// retired pages on a board before Ampere (none asked of one after it), and XID errors from the
// driver's event set, drained by each read without waiting.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "core/metrics.h"
#include "support/sim_backend.h"

namespace gpumeter::nvml::health_sim_test {

using enum DeviceMetric;
using testing::SimBackendTest;

// A Volta board with retired pages and a pending retirement; an Ampere board that remaps rows;
// XID 13 then 79 on the Volta and XID 48 on the Ampere board at scripted times.
constexpr std::string_view kAilingBoards = R"({
  "devices": [
    {"name": "Tesla V100-SXM2-16GB", "architecture": "volta", "memory_total_bytes": 17179869184,
     "ecc_errors": {"corrected": 40, "uncorrected": 3, "volatile_corrected": 5,
                    "volatile_uncorrected": 1},
     "health": {"retired_pages": {"single_bit": 2, "double_bit": 1, "pending": true}}},
    {"name": "NVIDIA A100-SXM4-40GB", "architecture": "ampere", "memory_total_bytes": 42949672960,
     "ecc_errors": {"corrected": 7}}
  ],
  "faults": {"xid": [{"device": 0, "at_s": 20, "code": 13}, {"device": 1, "at_s": 25, "code": 48},
                     {"device": 0, "at_s": 30, "code": 79}, {"device": 0, "at_s": 2, "code": 31}]}
})";

TEST_F(SimBackendTest, EccCountsSinceTheDriverLoadedAndOverTheLifetime) {
  auto source = open(kAilingBoards, 10);
  ASSERT_NE(source, nullptr);
  auto reading = source->read();
  ASSERT_TRUE(reading.has_value()) << reading.error().message;
  const DeviceState& volta = reading->devices.at(0).state;
  EXPECT_EQ(volta[ecc_errors_corrected], 40.0);
  EXPECT_EQ(volta[ecc_errors_uncorrected], 3.0);
  EXPECT_EQ(volta[ecc_errors_corrected_volatile], 5.0);
  EXPECT_EQ(volta[ecc_errors_uncorrected_volatile], 1.0);
  // Unless the scenario says otherwise, the volatile counts are the lifetime ones.
  const DeviceState& ampere = reading->devices.at(1).state;
  EXPECT_EQ(ampere[ecc_errors_corrected_volatile], 7.0);
  EXPECT_EQ(ampere[ecc_errors_uncorrected_volatile], 0.0);
}

TEST_F(SimBackendTest, RetiredPagesBeforeAmpereAndNotAfter) {
  auto source = open(kAilingBoards, 10);
  ASSERT_NE(source, nullptr);
  auto reading = source->read();
  ASSERT_TRUE(reading.has_value()) << reading.error().message;
  const DeviceState& volta = reading->devices.at(0).state;
  EXPECT_EQ(volta[retired_pages_single_bit], 2.0);
  EXPECT_EQ(volta[retired_pages_double_bit], 1.0);
  EXPECT_EQ(volta[retired_pages_pending], 1.0);
  EXPECT_EQ(volta[remapped_rows_corrected], std::unexpected(Unavailable::not_supported));
  const DeviceState& ampere = reading->devices.at(1).state;
  EXPECT_EQ(ampere[retired_pages_single_bit], std::unexpected(Unavailable::not_supported));
  EXPECT_EQ(ampere[retired_pages_double_bit], std::unexpected(Unavailable::not_supported));
  EXPECT_EQ(ampere[retired_pages_pending], std::unexpected(Unavailable::not_supported));
  EXPECT_EQ(ampere[remapped_rows_corrected], 0.0);
}

// Counting starts at the first read (t = 10), which has no figure yet (nothing was watched
// before it); the XID at t = 2 was before gpumeter watched.
TEST_F(SimBackendTest, XidErrorsAreCountedFromTheFirstReadOn) {
  auto source = open(kAilingBoards, 10);
  ASSERT_NE(source, nullptr);
  const auto xids = [&](std::size_t gpu) {
    auto reading = source->read();
    EXPECT_TRUE(reading.has_value());
    const DeviceState& state = reading->devices.at(gpu).state;
    return std::pair(state[xid_errors], state[xid_last]);
  };
  const Maybe<double> no_data = std::unexpected(Unavailable::no_data);
  EXPECT_EQ(xids(0), std::pair(no_data, no_data));
  at(15);
  EXPECT_EQ(xids(0), std::pair(Maybe<double>(0.0), Maybe<double>(0.0)));
  at(22);
  EXPECT_EQ(xids(0), std::pair(Maybe<double>(1.0), Maybe<double>(13.0)));
  at(40);
  auto reading = source->read();
  ASSERT_TRUE(reading.has_value());
  EXPECT_EQ(reading->devices.at(0).state[xid_errors], 2.0);
  EXPECT_EQ(reading->devices.at(0).state[xid_last], 79.0);
  EXPECT_EQ(reading->devices.at(1).state[xid_errors], 1.0);
  EXPECT_EQ(reading->devices.at(1).state[xid_last], 48.0);
  // Nothing new: the counts stay.
  at(50);
  EXPECT_EQ(xids(0), std::pair(Maybe<double>(2.0), Maybe<double>(79.0)));
}

// A board or driver that refuses event registration leaves the rows absent as not supported;
// the other GPUs still count theirs.
TEST_F(SimBackendTest, XidRowsWithoutEventSets) {
  std::string scenario(kAilingBoards);
  scenario.replace(scenario.find("\"architecture\": \"volta\""), 0,
                   "\"unsupported\": [\"events\"], ");
  auto source = open(scenario, 10);
  ASSERT_NE(source, nullptr);
  auto reading = source->read();
  ASSERT_TRUE(reading.has_value()) << reading.error().message;
  EXPECT_EQ(reading->devices.at(0).state[xid_errors], std::unexpected(Unavailable::not_supported));
  EXPECT_EQ(reading->devices.at(0).state[xid_last], std::unexpected(Unavailable::not_supported));
  at(40);
  reading = source->read();
  ASSERT_TRUE(reading.has_value());
  EXPECT_EQ(reading->devices.at(0).state[xid_errors], std::unexpected(Unavailable::not_supported));
  EXPECT_EQ(reading->devices.at(1).state[xid_errors], 1.0);
}

}  // namespace gpumeter::nvml::health_sim_test
