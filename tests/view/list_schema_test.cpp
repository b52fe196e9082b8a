// SPDX-License-Identifier: MIT
// The published schema and the field reference must describe exactly what list --json
// prints: every key the renderer writes is in the schema and in docs/json.md, and nothing
// more is required.
#include <gtest/gtest.h>

#include <set>

#include "support/sample_snapshot.h"
#include "support/source_files.h"
#include "view/list_json.h"

namespace gpumeter::view::list_schema_test {

using gpumeter::testing::keys_of;
using gpumeter::testing::read_source_file;
using gpumeter::testing::strings_of;

class Schema : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string text = read_source_file("schemas/list.schema.json");
    ASSERT_FALSE(text.empty()) << "schemas/list.schema.json not found";
    schema = Json::parse(text);
  }

  // A schema object lists as properties, and requires, exactly the keys printed.
  static void expect_same_keys(const Json& definition, const Json& object) {
    EXPECT_EQ(keys_of(definition["properties"]), keys_of(object));
    EXPECT_EQ(strings_of(definition["required"]), keys_of(object));
  }

  Json schema;
  Json printed = list_json(cli::testing::sample_snapshot());
};

TEST_F(Schema, TopLevelDriverGpuAndProcessKeysMatchTheRenderer) {
  expect_same_keys(schema, printed);
  expect_same_keys(schema["properties"]["driver"], printed["driver"]);
  expect_same_keys(schema["$defs"]["gpu"], printed["gpus"][1]);
  expect_same_keys(schema["$defs"]["process"], printed["gpus"][1]["processes"][0]);
  EXPECT_EQ(schema["properties"]["schema_version"]["const"], kListSchemaVersion);
}

// A vGPU host: the GPU's "vgpu" summary and its instances have exactly the schema's keys;
// an instance without a utilisation sample prints its SM use as null with no_data.
TEST_F(Schema, VgpuSummaryKeysMatchTheRenderer) {
  Snapshot snapshot = cli::testing::sample_snapshot();
  Device& host = snapshot.gpus.devices.at(1);
  VgpuInstance busy;
  busy.id = 101;
  busy.uuid = "b3a7d2c1-1e2f-4a5b-8c9d-0e1f2a3b4c01";
  busy.vm_id = "vm-1";
  busy.type_name = "NVIDIA A16-4Q";
  busy.fb_used_bytes = 1610612736ULL;
  busy.utilization = VgpuUtilization{.sm = 11.4};
  VgpuInstance starting;
  starting.id = 102;
  host.vgpu = VgpuHost{.instances = {busy, starting}};
  const Json doc = list_json(snapshot);
  const Json& summary = doc["gpus"][1]["vgpu"];
  expect_same_keys(schema["$defs"]["vgpu_summary"], summary);
  expect_same_keys(schema["$defs"]["vgpu_summary_instance"], summary["instances"][0]);
  EXPECT_EQ(summary["mode"], "host");
  EXPECT_EQ(summary["instance_count"], 2);
  EXPECT_EQ(summary["instances"][0]["sm_percent"], 11);
  EXPECT_EQ(summary["instances"][0]["fb_used_bytes"], 1610612736ULL);
  EXPECT_TRUE(summary["instances"][1]["sm_percent"].is_null());
  EXPECT_EQ(summary["instances"][1]["unavailable"]["sm_percent"], "no_data");
  EXPECT_TRUE(summary["instances"][1]["uuid"].is_null());
  // Bare metal: null with its reason.
  EXPECT_TRUE(doc["gpus"][0]["vgpu"].is_null());
  EXPECT_EQ(doc["gpus"][0]["unavailable"]["vgpu"], "not_supported");
}

TEST_F(Schema, IntegralMetricsAreIntegersInTheSchema) {
  const Json& properties = schema["$defs"]["gpu"]["properties"];
  for (const MetricSpec& spec : device_metrics()) {
    const std::string expected =
        spec.integral ? "#/$defs/nullable_integer" : "#/$defs/nullable_number";
    EXPECT_EQ(properties[std::string(spec.key)]["$ref"], expected) << spec.key;
  }
}

TEST(JsonDocs, EveryPrintedKeyIsDocumented) {
  const std::string docs = read_source_file("docs/json.md");
  ASSERT_FALSE(docs.empty()) << "docs/json.md not found";
  const Json printed = list_json(cli::testing::sample_snapshot());
  std::set<std::string> keys = keys_of(printed);
  for (const Json* object :
       {&printed["driver"], &printed["gpus"][1], &printed["gpus"][1]["processes"][0]}) {
    const std::set<std::string> more = keys_of(*object);
    keys.insert(more.begin(), more.end());
  }
  for (const std::string& key : keys) {
    EXPECT_NE(docs.find("`" + key + "`"), std::string::npos) << key << " is not in docs/json.md";
  }
}

}  // namespace gpumeter::view::list_schema_test
