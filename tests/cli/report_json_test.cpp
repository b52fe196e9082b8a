// SPDX-License-Identifier: MIT
// The report's JSON, its schema (schemas/report.schema.json) and its documentation
// (docs/report.md) must name the same keys.
#include "cli/report_json.h"

#include <gtest/gtest.h>

#include <set>

#include "support/sample_report.h"
#include "support/source_files.h"
#include "support/time_zone.h"

namespace gpumeter::cli::report_json_test {

using gpumeter::testing::keys_of;
using gpumeter::testing::read_source_file;

std::set<std::string> required_of(const Json& definition) {
  std::set<std::string> keys;
  for (const Json& key : definition["required"]) keys.insert(key.get<std::string>());
  return keys;
}

view::UsageReport every_key() {
  view::UsageReport report = testing::sample_report(true);
  report.group_by = {store::GroupBy::host,    store::GroupBy::user,      store::GroupBy::gpu,
                     store::GroupBy::process, store::GroupBy::container, store::GroupBy::day};
  return report;
}

IdleReport one_holder() {
  store::IdleSpell spell{.begin_us = testing::kNov1,
                         .end_us = testing::kNov1 + 7'200'000'000,
                         .held_seconds = 7200,
                         .sm_busy_seconds = 36,
                         .peak_memory_bytes = testing::kBytesPerGiB};
  spell.process.host = "node1";
  spell.process.process = {.pid = 42,
                           .start_time_us = testing::kNov1 - 1'000'000,
                           .gpu_uuid = "GPU-1",
                           .gpu_index = 1,
                           .user = "cy",
                           .command = "jupyter"};
  spell.process.last_seen_us = spell.end_us;
  return IdleReport{"/h.db", {.since_us = testing::kNov1, .until_us = testing::kDec1}, {spell}};
}

class ReportSchema : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string text = read_source_file("schemas/report.schema.json");
    ASSERT_FALSE(text.empty()) << "schemas/report.schema.json not found";
    schema = Json::parse(text);
  }
  const testing::TimeZone utc_{"UTC0"};
  Json schema;
};

TEST_F(ReportSchema, UsageKeysMatchTheRenderer) {
  const Json printed = view::usage_json(every_key());
  const Json& usage = schema["$defs"]["usage"];
  // "truncated" and "next" are GET /api/v1/usage's paging (net/usage_route.cpp), optional.
  auto with_paging = keys_of(printed);
  with_paging.insert({"truncated", "next"});
  EXPECT_EQ(keys_of(usage["properties"]), with_paging);
  EXPECT_EQ(required_of(usage), keys_of(printed));
  EXPECT_EQ(keys_of(schema["$defs"]["row"]["properties"]), keys_of(printed["rows"][0]));
  EXPECT_EQ(required_of(schema["$defs"]["figures"]), keys_of(printed["total"]));
  EXPECT_EQ(keys_of(schema["$defs"]["quota_use"]["properties"]),
            keys_of(printed["rows"][0]["quota"]));
  EXPECT_EQ(keys_of(schema["$defs"]["quota_section"]["properties"]), keys_of(printed["quota"]));
  EXPECT_EQ(usage["properties"]["schema_version"]["const"], view::kReportSchemaVersion);
}

TEST_F(ReportSchema, IdleKeysMatchTheRenderer) {
  const Json printed = idle_json(one_holder());
  const Json& idle = schema["$defs"]["idle"];
  EXPECT_EQ(keys_of(idle["properties"]), keys_of(printed));
  EXPECT_EQ(required_of(idle), keys_of(printed));
  EXPECT_EQ(keys_of(schema["$defs"]["holder"]["properties"]), keys_of(printed["holders"][0]));
  EXPECT_EQ(required_of(schema["$defs"]["holder"]), keys_of(printed["holders"][0]));
}

TEST_F(ReportSchema, RowsHoldOnlyTheirGroupsKeys) {
  const Json printed = view::usage_json(testing::sample_report(false));
  EXPECT_EQ(keys_of(printed["rows"][0]),
            (std::set<std::string>{"user", "period", "period_start", "period_start_time_us",
                                   "gpu_hours", "sm_busy_hours", "sm_percent_while_held",
                                   "energy_kwh", "peak_memory_bytes", "processes",
                                   "sm_unknown_gpu_hours", "sm_unknown_reason"}));
  EXPECT_TRUE(printed["rows"][2]["user"].is_null());
  EXPECT_TRUE(printed["quota"].is_null());
  EXPECT_EQ(printed["rows"][1]["gpu_hours"], 12.5);
  EXPECT_EQ(printed["total"]["processes"], 5);
  EXPECT_EQ(printed["since"], "2026-11-01T00:00:00Z");
  EXPECT_EQ(printed["group_by"], Json::parse(R"(["user", "month"])"));
}

TEST_F(ReportSchema, IdleHolderFigures) {
  const Json holder = idle_json(one_holder())["holders"][0];
  EXPECT_EQ(holder["idle_seconds"], 7200);
  EXPECT_DOUBLE_EQ(holder["sm_percent"].get<double>(), 0.5);
  EXPECT_EQ(holder["state"], "still_idle");
  EXPECT_EQ(holder["memory_held_bytes"], testing::kBytesPerGiB);
}

TEST(ReportDocs, EveryPrintedKeyIsDocumented) {
  const testing::TimeZone utc("UTC0");
  const std::string docs = read_source_file("docs/report.md");
  ASSERT_FALSE(docs.empty()) << "docs/report.md not found";
  const Json usage = view::usage_json(every_key());
  const Json idle = idle_json(one_holder());
  std::set<std::string> keys = keys_of(usage);
  for (const Json* object : {&usage["rows"][0], &usage["rows"][0]["quota"], &usage["quota"], &idle,
                             &idle["holders"][0]}) {
    const std::set<std::string> more = keys_of(*object);
    keys.insert(more.begin(), more.end());
  }
  for (const std::string& key : keys)
    EXPECT_NE(docs.find("`" + key + "`"), std::string::npos) << key << " is not in docs/report.md";
}

}  // namespace gpumeter::cli::report_json_test
