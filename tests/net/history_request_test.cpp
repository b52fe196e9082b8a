#include "net/history_request.h"

#include <gtest/gtest.h>

namespace gpumeter::net {
namespace {

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
      // Found by fuzz/query_fuzz: without a step, a window of decades got one bucket a day,
      // past the limit of buckets one answer holds.
      {{{"gpu", "0"}, {"since", "@1"}}, "since: the window is longer than 10000 days"},
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
  EXPECT_EQ(default_step(kNow - 3650LL * 86400 * kSecond, kNow, kInterval), 86400 * kSecond);
}

}  // namespace
}  // namespace gpumeter::net
