// SPDX-License-Identifier: MIT
// The accounting document: its keys are exactly those of schemas/accounting.schema.json, an
// exited process keeps its run time and a running one has none, a GPU without the mode says
// why, and who ran a process comes from the lookup. Also the short form of `list --json`.
#include "view/accounting_json.h"

#include <gtest/gtest.h>

#include <set>

#include "support/sample_snapshot.h"
#include "support/source_files.h"

namespace gpumeter::view::accounting_json_test {

using gpumeter::testing::keys_of;
using gpumeter::testing::read_source_json;
using gpumeter::testing::strings_of;

using cli::testing::kNow;

AccountingRecord record(std::uint32_t pid, bool running) {
  AccountingRecord r;
  r.pid = pid;
  r.gpu_util_percent = 60.0;
  r.memory_util_percent = 40.0;
  r.max_memory_bytes = std::uint64_t{1} << 30;
  if (!running) r.time_ms = 1500;
  r.start_time_us = kNow - 3'600'000'000;
  r.running = running;
  return r;
}

Snapshot accounting_snapshot() {
  Snapshot snapshot;
  snapshot.time_us = kNow;
  snapshot.hostname = "gpu01";
  snapshot.source = "nvml";
  Device on = cli::testing::idle_gpu(0);
  on.accounting = Accounting{.enabled = true,
                             .buffer_size = 4000U,
                             .records = std::vector{record(7, false), record(8, true)}};
  Device off = cli::testing::idle_gpu(1);
  off.accounting = Accounting{};
  Device none = cli::testing::idle_gpu(2);
  none.accounting = std::unexpected(Unavailable::not_supported);
  snapshot.gpus.devices = {on, off, none};
  return snapshot;
}

std::optional<KnownProcess> only_seven(const Device&, const AccountingRecord& r) {
  if (r.pid != 7) return std::nullopt;
  return KnownProcess{"ada", "python3 train.py"};
}

TEST(AccountingJson, KeysAreThoseOfTheSchema) {
  const Json schema = read_source_json<Json>("schemas/accounting.schema.json");
  const Json printed = accounting_json(accounting_snapshot(), only_seven);
  const auto same = [](const Json& definition, const Json& object) {
    EXPECT_EQ(keys_of(definition["properties"]), keys_of(object));
    EXPECT_EQ(strings_of(definition["required"]), keys_of(object));
  };
  same(schema, printed);
  same(schema["$defs"]["gpu"], printed["gpus"][0]);
  same(schema["$defs"]["record"], printed["gpus"][0]["records"][0]);
  EXPECT_EQ(schema["properties"]["schema_version"]["const"], kAccountingSchemaVersion);
}

TEST(AccountingJson, RecordsAndAbsence) {
  const Json printed = accounting_json(accounting_snapshot(), only_seven);
  const Json& exited = printed["gpus"][0]["records"][0];
  EXPECT_EQ(exited["time_ms"], 1500);
  EXPECT_EQ(exited["running"], false);
  EXPECT_EQ(exited["user"], "ada");
  EXPECT_EQ(exited["command"], "python3 train.py");
  EXPECT_EQ(exited["start_time"], "2024-05-01T11:00:00Z");
  const Json& running = printed["gpus"][0]["records"][1];
  EXPECT_TRUE(running["time_ms"].is_null());
  EXPECT_TRUE(running["user"].is_null());
  EXPECT_EQ(running["unavailable"]["user"], "no_data");
  const Json& off = printed["gpus"][1];
  EXPECT_EQ(off["enabled"], false);
  EXPECT_TRUE(off["records"].is_null());
  EXPECT_EQ(off["unavailable"]["records"], "not_supported");
  const Json& none = printed["gpus"][2];
  EXPECT_TRUE(none["enabled"].is_null());
  EXPECT_EQ(none["unavailable"]["enabled"], "not_supported");
}

TEST(AccountingJson, ListSummary) {
  const Snapshot snapshot = accounting_snapshot();
  Json gpu = Json::object();
  Json unavailable = Json::object();
  put_accounting_summary(gpu, unavailable, snapshot.gpus.devices[0].accounting);
  EXPECT_EQ(gpu["accounting"], (Json{{"enabled", true}, {"buffer_size", 4000}, {"records", 2}}));
  put_accounting_summary(gpu, unavailable, snapshot.gpus.devices[2].accounting);
  EXPECT_TRUE(gpu["accounting"].is_null());
  EXPECT_EQ(unavailable["accounting"], "not_supported");
}

TEST(AccountingJson, ARunningProcessIsNamedFromTheHostWhenTheStartTimesAgree) {
  Snapshot snapshot = accounting_snapshot();
  HostProcess host;
  host.pid = 8;
  host.user = std::string("bo");
  host.cmdline = std::vector<std::string>{"python3", "serve.py"};
  host.start_time_us = kNow - 3'600'000'000 + 2'000'000;  // 2 s from the driver's
  snapshot.processes[8] = host;
  const AccountingRecord running = record(8, true);
  const auto known = known_from_snapshot(snapshot, running);
  ASSERT_TRUE(known.has_value());
  EXPECT_EQ(known->user, "bo");
  EXPECT_EQ(known->command, "python3 serve.py");
  host.start_time_us = kNow;  // a reused pid: another process
  snapshot.processes[8] = host;
  EXPECT_FALSE(known_from_snapshot(snapshot, running).has_value());
  EXPECT_FALSE(known_from_snapshot(snapshot, record(8, false)).has_value());
}

}  // namespace gpumeter::view::accounting_json_test
