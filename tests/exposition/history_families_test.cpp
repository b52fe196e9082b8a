// SPDX-License-Identifier: MIT
// The families the daemon adds from its history and its quota file: the ledger counters
// (gpumeter_user_*_total, gpumeter_container_*_total) and the quota gauges.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "exposition/parts.h"
#include "view/quota.h"

namespace gpumeter::exposition::history_families_test {

std::string render_totals(const UsageTotals& totals) {
  fmt::memory_buffer out;
  append_usage_totals(out, host_labels("node1"), totals);
  return fmt::to_string(out);
}

TEST(UsageTotalsFamilies, OneCounterPerUserAndContainer) {
  const UsageTotals totals{
      .users = {{.key = "ada", .gpu_seconds = 7200, .sm_busy_seconds = 3600, .energy_joules = 1e6},
                {.key = "", .gpu_seconds = 60}},
      .containers = {{.key = "slurm:42", .gpu_seconds = 1800, .sm_busy_seconds = 900}}};
  const std::string text = render_totals(totals);
  EXPECT_NE(text.find("# TYPE gpumeter_user_gpu_seconds_total counter\n"), std::string::npos);
  EXPECT_NE(text.find("gpumeter_user_gpu_seconds_total{host=\"node1\",user=\"ada\"} 7200\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("gpumeter_user_gpu_seconds_total{host=\"node1\",user=\"\"} 60\n"),
            std::string::npos);
  EXPECT_NE(text.find("gpumeter_user_energy_joules_total{host=\"node1\",user=\"ada\"} 1000000\n"),
            std::string::npos);
  EXPECT_NE(
      text.find("gpumeter_container_sm_busy_seconds_total{host=\"node1\",container=\"slurm:42\"} "
                "900\n"),
      std::string::npos);
  // No MIG use anywhere: no family for it.
  EXPECT_EQ(text.find("sm_unknown_seconds_total"), std::string::npos);
  EXPECT_EQ(render_totals({}), "");
}

TEST(UsageTotalsFamilies, UnknownSmTimeOnceThereIsSome) {
  const std::string text =
      render_totals({.users = {{.key = "mig", .gpu_seconds = 60, .sm_unknown_seconds = 60}}});
  EXPECT_NE(text.find("gpumeter_user_sm_unknown_seconds_total{host=\"node1\",user=\"mig\"} 60\n"),
            std::string::npos)
      << text;
}

TEST(QuotaFamilies, TheFileAsGauges) {
  const auto quotas = view::parse_quota_file(
      "default = 10h per month\nada = 2h per day\nroot = unlimited\n", "quota.txt");
  ASSERT_TRUE(quotas) << quotas.error().message;
  fmt::memory_buffer out;
  append_quota_metrics(out, host_labels("node1"), *quotas);
  const std::string text = fmt::to_string(out);
  EXPECT_NE(text.find("gpumeter_quota_gpu_hours{host=\"node1\",user=\"ada\",period=\"day\"} 2\n"),
            std::string::npos)
      << text;
  EXPECT_NE(
      text.find("gpumeter_quota_gpu_hours{host=\"node1\",user=\"root\",period=\"any\"} +Inf\n"),
      std::string::npos);
  EXPECT_NE(text.find("gpumeter_quota_default_gpu_hours{host=\"node1\",period=\"month\"} 10\n"),
            std::string::npos);
}

}  // namespace gpumeter::exposition::history_families_test
