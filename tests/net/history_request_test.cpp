// SPDX-License-Identifier: MIT
#include "net/history_request.h"

#include <gtest/gtest.h>

#include "net/history_buckets.h"
#include "net/query_time.h"

namespace gpumeter::net::history_request_test {

constexpr TimeUs kSecond = 1'000'000;
constexpr TimeUs kNow = 1'700'000'000 * kSecond;
constexpr std::chrono::milliseconds kInterval{1000};

using Params = std::vector<std::pair<std::string, std::string>>;

httplib::Request request(const Params& params) {
  httplib::Request made;
  for (const auto& [name, value] : params) made.params.emplace(name, value);
  return made;
}

TEST(HistoryRequest, DefaultsToTheLastHourOfSmUtilization) {
  const auto parsed = parse_history_request(request({{"gpu", "0"}}), kNow, kInterval);
  ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
  EXPECT_EQ(parsed->gpu, "0");
  EXPECT_EQ(parsed->metric, DeviceMetric::utilization_gpu);
  EXPECT_EQ(parsed->since_us, kNow - 3600 * kSecond);
  EXPECT_EQ(parsed->until_us, kNow);
  EXPECT_EQ(parsed->step_us, 5 * kSecond);  // 720 buckets of 5 s
}

TEST(HistoryRequest, TakesEveryParameter) {
  const auto parsed = parse_history_request(request({{"gpu", "GPU-x"},
                                                     {"metric", "temperature_celsius"},
                                                     {"since", "@1699990000"},
                                                     {"until", "2023-11-14T22:00:00Z"},
                                                     {"step", "1m"}}),
                                            kNow, kInterval);
  ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
  EXPECT_EQ(parsed->metric, DeviceMetric::temperature);
  EXPECT_EQ(parsed->since_us, 1'699'990'000 * kSecond);
  EXPECT_EQ(parsed->until_us, 1'699'999'200 * kSecond);
  EXPECT_EQ(parsed->step_us, 60 * kSecond);
}

TEST(HistoryRequest, TakesEveryGpmMetricByItsKey) {
  for (const DeviceMetric metric : kGpmMetrics) {
    const std::string key(spec(metric).key);
    const auto parsed =
        parse_history_request(request({{"gpu", "0"}, {"metric", key}}), kNow, kInterval);
    ASSERT_TRUE(parsed.has_value()) << key << ": " << parsed.error().message;
    EXPECT_EQ(parsed->metric, metric) << key;
  }
}

TEST(HistoryRequest, ErrorsNameTheParameter) {
  const std::vector<std::pair<Params, std::string>> cases{
      {{}, "gpu: required"},
      {{{"gpu", "0"}, {"metric", "fan_speed_percent"}},
       "metric: \"fan_speed_percent\" is not one of"},
      {{{"gpu", "0"}, {"since", "soon"}}, "since: \"soon\" is not"},
      {{{"gpu", "0"}, {"until", "2h"}}, "since: not before until"},
      {{{"gpu", "0"}, {"step", "0"}}, "step: \"0\" is not"},
      {{{"gpu", "0"}, {"since", "7d"}, {"step", "1s"}}, "step: 1s cuts the window into more than"},
  };
  for (const auto& [params, expected] : cases) {
    const auto parsed = parse_history_request(request(params), kNow, kInterval);
    ASSERT_FALSE(parsed.has_value()) << expected;
    EXPECT_EQ(parsed.error().code, ErrorCode::invalid_input);
    EXPECT_TRUE(parsed.error().message.starts_with(expected)) << parsed.error().message;
  }
}

TEST(DefaultStep, NotShorterThanTheIntervalAndAtMost720Buckets) {
  EXPECT_EQ(default_step(kNow - 600 * kSecond, kNow, kInterval), 1 * kSecond);
  EXPECT_EQ(default_step(kNow - 600 * kSecond, kNow, std::chrono::seconds(3)), 5 * kSecond);
  EXPECT_EQ(default_step(kNow - 86400 * kSecond, kNow, kInterval), 120 * kSecond);
  EXPECT_EQ(default_step(kNow - 1400LL * 86400 * kSecond, kNow, kInterval), 2 * 86400 * kSecond);
}

TEST(DefaultStep, WholeDaysKeepAnyWindowWithinTheDefaultBuckets) {
  for (const TimeUs since : {TimeUs{0}, TimeUs{kNow - 3650 * 86400 * kSecond}}) {
    for (const TimeUs until : {kNow, kLatestQueryTimeUs}) {
      const TimeUs step = default_step(since, until, kInterval);
      EXPECT_EQ(step % (86400 * kSecond), 0);
      EXPECT_LE(bucket_count(since, until, step), kDefaultHistoryPoints + 1)
          << since << " " << until;
    }
  }
}

TEST(HistoryRequest, RefusesTimesOutsideTheRangeAtOnce) {
  // Each of these once overflowed into a window of millions of buckets.
  for (const char* since : {"99999999999d", "@-99999999999", "@99999999999999", "0000-01-01T00:00Z",
                            "9223372036854775807s", "2026-02-30 25:61", "1969-12-31T23:59:59Z"}) {
    const auto parsed =
        parse_history_request(request({{"gpu", "0"}, {"since", since}}), kNow, kInterval);
    ASSERT_FALSE(parsed.has_value()) << since;
    EXPECT_NE(parsed.error().message.find("1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z"),
              std::string::npos)
        << parsed.error().message;
  }
}

TEST(HistoryRequest, TheWholeRangeGetsBoundedBuckets) {
  const auto parsed =
      parse_history_request(request({{"gpu", "0"}, {"since", "@0"}}), kNow, kInterval);
  ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
  EXPECT_LE(bucket_count(parsed->since_us, parsed->until_us, parsed->step_us),
            kDefaultHistoryPoints + 1);
}

}  // namespace gpumeter::net::history_request_test
