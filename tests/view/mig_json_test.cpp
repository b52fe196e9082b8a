// SPDX-License-Identifier: MIT
// The "mig" member of a GPU in list --json: a constructed GPU in MIG mode, printed and held
// against the published schema's keys.
#include <gtest/gtest.h>

#include <set>

#include "support/source_files.h"
#include "view/list_json.h"

namespace gpumeter::view::mig_json_test {

using gpumeter::testing::keys_of;
using gpumeter::testing::read_source_json;

Snapshot mig_snapshot() {
  MigDevice mig;
  mig.gpu_instance_id = 2;
  mig.compute_instance_id = 0;
  mig.uuid = std::string("MIG-11111111-2222-5333-8444-555555555555");
  mig.profile = std::string("3g.40gb");
  mig.memory_total_bytes = 42949672960.0;
  mig.memory_used_bytes = 3221225472.0;
  GpuProcess process;
  process.pid = 500;
  process.mig = MigInstance{2, 0};
  mig.processes = std::vector<GpuProcess>{process};
  mig.gpm[0] = 62.5;
  mig.gpm[4] = 1048576.0;
  mig.gpm[1] = std::unexpected(Unavailable::no_data);
  Device device;
  device.identity.index = 0;
  device.processes = std::vector<GpuProcess>{process};
  device.mig = MigState{true, {mig}};
  Snapshot snapshot;
  snapshot.gpus.devices.push_back(device);
  return snapshot;
}

TEST(MigJson, DevicesWithTheirFiguresAndNoMadeUpUtilisation) {
  const Json gpu = list_json(mig_snapshot())["gpus"][0];
  ASSERT_TRUE(gpu["mig"]["enabled"].get<bool>());
  const Json& mig = gpu["mig"]["devices"][0];
  EXPECT_EQ(mig["gpu_instance_id"], 2);
  EXPECT_EQ(mig["profile"], "3g.40gb");
  EXPECT_EQ(mig["uuid"], "MIG-11111111-2222-5333-8444-555555555555");
  EXPECT_EQ(mig["memory_total_bytes"], 42949672960);
  EXPECT_EQ(mig["memory_used_bytes"], 3221225472);
  EXPECT_EQ(mig["pids"], Json::array({500}));
  EXPECT_TRUE(mig["process_utilization"].is_null());
  EXPECT_EQ(mig["unavailable"]["process_utilization"], "mig");
  EXPECT_EQ(mig["gpm_sm_activity_percent"], 62.5);
  EXPECT_EQ(mig["gpm_pcie_tx_bytes_per_second"], 1048576);
  EXPECT_TRUE(mig["gpm_sm_occupancy_percent"].is_null());
  EXPECT_EQ(mig["unavailable"]["gpm_sm_occupancy_percent"], "no_data");
  EXPECT_EQ(mig["unavailable"]["gpm_nvlink_rx_bytes_per_second"], "not_supported");
}

TEST(MigJson, KeysMatchTheSchema) {
  const Json schema = read_source_json<Json>("schemas/list.schema.json");
  const Json gpu = list_json(mig_snapshot())["gpus"][0];
  for (const auto& [name, printed] :
       {std::pair{"mig", gpu["mig"]}, std::pair{"mig_device", gpu["mig"]["devices"][0]}}) {
    const Json& definition = schema["$defs"][name];
    EXPECT_EQ(keys_of(definition["properties"]), keys_of(printed)) << name;
    std::set<std::string> required;
    for (const Json& key : definition["required"]) required.insert(key.get<std::string>());
    EXPECT_EQ(required, keys_of(printed)) << name;
  }
}

}  // namespace gpumeter::view::mig_json_test
