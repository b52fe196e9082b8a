// SPDX-License-Identifier: MIT
// How the recorder cuts time: at the record interval's multiples and at every minute.
#include "recorder/windows.h"

#include <gtest/gtest.h>

namespace gpumeter::recorder::windows_test {

constexpr TimeUs kSecond = 1'000'000;
constexpr TimeUs kT0 = 1'767'225'600 * kSecond;  // 2026-01-01T00:00:00Z, a whole minute

std::vector<std::pair<TimeUs, TimeUs>> spans(const std::vector<Window>& windows) {
  std::vector<std::pair<TimeUs, TimeUs>> out;
  for (const Window& w : windows) out.emplace_back(w.begin_us - kT0, w.end_us - kT0);
  return out;
}

TEST(RecordWindows, CutAtTheIntervalsMultiples) {
  EXPECT_EQ(spans(record_windows(kT0 + 3 * kSecond, kT0 + 25 * kSecond, 10 * kSecond)),
            (std::vector<std::pair<TimeUs, TimeUs>>{{3 * kSecond, 10 * kSecond},
                                                    {10 * kSecond, 20 * kSecond},
                                                    {20 * kSecond, 25 * kSecond}}));
}

TEST(RecordWindows, AnIntervalLongerThanAMinuteIsCutAtEachMinute) {
  EXPECT_EQ(spans(record_windows(kT0 + 30 * kSecond, kT0 + 150 * kSecond, 300 * kSecond)),
            (std::vector<std::pair<TimeUs, TimeUs>>{{30 * kSecond, 60 * kSecond},
                                                    {60 * kSecond, 120 * kSecond},
                                                    {120 * kSecond, 150 * kSecond}}));
}

TEST(RecordWindows, AnIntervalThatDoesNotDivideAMinuteIsCutAtTheMinuteToo) {
  EXPECT_EQ(spans(record_windows(kT0 + 42 * kSecond, kT0 + 70 * kSecond, 7 * kSecond)),
            (std::vector<std::pair<TimeUs, TimeUs>>{{42 * kSecond, 49 * kSecond},
                                                    {49 * kSecond, 56 * kSecond},
                                                    {56 * kSecond, 60 * kSecond},
                                                    {60 * kSecond, 63 * kSecond},
                                                    {63 * kSecond, 70 * kSecond}}));
}

TEST(RecordWindows, NothingToCut) {
  EXPECT_TRUE(record_windows(kT0, kT0, kSecond).empty());
  EXPECT_TRUE(record_windows(kT0, kT0 - kSecond, kSecond).empty());
}

TEST(Multiples, FloorAndNextAlsoBeforeTheEpoch) {
  EXPECT_EQ(floor_multiple(25, 10), 20);
  EXPECT_EQ(floor_multiple(20, 10), 20);
  EXPECT_EQ(floor_multiple(-5, 10), -10);
  EXPECT_EQ(next_multiple(20, 10), 30);
  EXPECT_EQ(next_multiple(-5, 10), 0);
}

}  // namespace gpumeter::recorder::windows_test
