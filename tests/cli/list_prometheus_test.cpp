// SPDX-License-Identifier: MIT
// `gpumeter list --prometheus` in-process against the simulated driver, and its options.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/run_cli.h"
#include "support/source_files.h"

namespace gpumeter::cli::list_prometheus_test {

Result list_prometheus(const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args{
      "--simulate", gpumeter::testing::source_path("examples/scenarios/dgx-8gpu.json").string(),
      "list", "--prometheus"};
  args.insert(args.end(), extra.begin(), extra.end());
  return run_cli(args);
}

std::size_t lines_starting(const std::string& text, std::string_view prefix) {
  std::size_t n = 0;
  for (std::size_t at = 0; at < text.size(); at = text.find('\n', at) + 1) {
    if (text.compare(at, prefix.size(), prefix) == 0) ++n;
    if (text.find('\n', at) == std::string::npos) break;
  }
  return n;
}

TEST(ListPrometheus, PrintsEveryGpuAndTheBusyProcessesOnce) {
  const Result result = list_prometheus();
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(result.err, "");
  EXPECT_EQ(lines_starting(result.out, "gpumeter_gpu_info{"), 8U);
  EXPECT_EQ(lines_starting(result.out, "gpumeter_process_sm_utilization_ratio{"), 3U);
  EXPECT_EQ(lines_starting(result.out, "gpumeter_user_processes{"), 3U);
  EXPECT_EQ(lines_starting(result.out, "# TYPE gpumeter_build_info gauge"), 1U);
  // A one-shot run has no sampler counters to speak of.
  EXPECT_EQ(result.out.find("gpumeter_sampler_rounds_total"), std::string::npos);
}

TEST(ListPrometheus, BoundsTheProcessSeries) {
  const Result top = list_prometheus({"--metrics-processes", "top:1"});
  ASSERT_EQ(top.status, 0) << top.err;
  EXPECT_EQ(lines_starting(top.out, "gpumeter_process_gpu_memory_used_bytes{"), 1U);
  EXPECT_EQ(lines_starting(top.out, "gpumeter_user_processes{"), 3U);
  const Result none = list_prometheus({"--metrics-processes", "none"});
  ASSERT_EQ(none.status, 0) << none.err;
  EXPECT_EQ(none.out.find("user="), std::string::npos);
}

TEST(ListPrometheus, RefusesOptionsThatDoNotGoWithIt) {
  const Result json = list_prometheus({"--json"});
  EXPECT_EQ(json.status, 2);
  EXPECT_NE(json.err.find("excludes"), std::string::npos) << json.err;
  const Result bad = list_prometheus({"--metrics-processes", "top:0"});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("expected top:N"), std::string::npos) << bad.err;
  EXPECT_EQ(bad.out, "");
}

}  // namespace gpumeter::cli::list_prometheus_test
