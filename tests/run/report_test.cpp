// SPDX-License-Identifier: MIT
// The summary and the JSON document of `gpumeter run`, rendered from a constructed result: what
// each says, and that the document has exactly the keys the published schema lists.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <csignal>
#include <set>

#include "run/json.h"
#include "run/summary.h"
#include "support/source_files.h"

namespace gpumeter::run::report_test {

using gpumeter::testing::keys_of;
using gpumeter::testing::read_source_json;
using gpumeter::testing::strings_of;

using view::Json;

GpuUsage busy_gpu() {
  GpuUsage usage;
  usage.device = 0;
  usage.engines[static_cast<std::size_t>(Engine::sm)] = {
      .busy_seconds = 1.6, .average_percent = 40.0, .peak_percent = 80.0};
  usage.engines[static_cast<std::size_t>(Engine::memory)] = {
      .busy_seconds = 0.4, .average_percent = 10.0, .peak_percent = 30.0};
  usage.engines[static_cast<std::size_t>(Engine::encoder)] = {
      .busy_seconds = 0.2, .average_percent = 5.0, .peak_percent = 12.0};
  usage.engines[static_cast<std::size_t>(Engine::decoder)] = {.busy_seconds = 0.0,
                                                              .average_percent = 0.0};
  usage.memory = {.at_start_bytes = 0, .at_end_bytes = 0, .peak_bytes = 1ULL << 30};
  usage.energy = {.device_joules = 200.0,
                  .processes_joules = 120.0,
                  .other_processes_joules = 0.0,
                  .idle_joules = 80.0};
  usage.confidence = {.sample_period_us = 166'667, .coverage = 1.0};
  return usage;
}

RunResult sample_result() {
  RunResult r;
  r.command = {"python3", "train.py"};
  r.hostname = "node7";
  r.interval = std::chrono::milliseconds(200);
  r.start_us = 1'700'000'000'000'000;
  r.end_us = r.start_us + 4'000'000;
  r.wall_seconds = 4.0;
  r.exit = exit_of(0);
  r.cpu_user_seconds = 3.0;
  r.cpu_system_seconds = 1.0;
  r.max_rss_bytes = 512ULL << 20;
  r.processes = 3;
  r.limits = {.cpu = host::CpuQuota{150'000, 100'000}, .cpuset = "0-3", .memory_bytes = 4ULL << 30};
  r.cgroup = RunCgroupInfo{host::CgroupVersion::v2, "/sys/fs/cgroup/x/gpumeter-run-9",
                           std::uint64_t{768} << 20};
  r.gpu_source = "nvml";
  r.gpus_seen = 2;
  r.gpus.push_back(RunGpu{busy_gpu(), std::string("NVIDIA L4"), std::string("GPU-1234")});
  return r;
}

bool has(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

TEST(RunExit, CodesAndSignalsAsAShellReportsThem) {
  const RunExit three = exit_of(3 << 8);  // exited with 3
  EXPECT_EQ(three.status, 3);
  EXPECT_EQ(three.code, 3);
  EXPECT_FALSE(three.signal.has_value());
  const RunExit killed = exit_of(SIGTERM);  // killed by SIGTERM
  EXPECT_EQ(killed.status, 143);
  EXPECT_FALSE(killed.code.has_value());
  EXPECT_EQ(killed.signal, SIGTERM);
  EXPECT_EQ(signal_name(SIGTERM), "SIGTERM");
  EXPECT_EQ(signal_name(SIGKILL), "SIGKILL");
}

TEST(RunSummary, SaysEveryFigure) {
  const std::string summary = run_summary(sample_result());
  for (const char* part :
       {"gpumeter run: python3 train.py\n", "exit status           0\n",
        "wall time             4.00 s\n",
        "CPU time              user 3.00 s, system 1.00 s (100% of one CPU)",
        "peak RSS              512MiB (the largest process)", "cgroup memory peak    768MiB",
        "processes             3\n", "cgroup                v2 /sys/fs/cgroup/x/gpumeter-run-9",
        "limits                1.5 CPUs' worth (quota 150000 per 100000 µs), "
        "CPUs 0-3, memory 4.0GiB",
        "GPU 0                 NVIDIA L4 (GPU-1234)",
        "  SM                  40.0% average, 80% peak",
        "  memory controller   10.0% average, 30% peak",
        "  encoder             5.0% average, 12% peak", "  GPU memory          1.0GiB peak",
        "  energy              120.0 J (the device: 200.0 J over the run)"}) {
    EXPECT_TRUE(has(summary, part)) << part << "\n" << summary;
  }
  EXPECT_FALSE(has(summary, "decoder")) << "an engine at 0 % is left out";
  EXPECT_FALSE(has(summary, "confidence"));
}

TEST(RunSummary, ASignalTheGpuErrorAndLowConfidence) {
  RunResult r = sample_result();
  r.exit = exit_of(SIGKILL);
  r.gpus.front().usage.confidence.coverage = 0.5;
  EXPECT_TRUE(has(run_summary(r), "137 (killed by SIGKILL)"));
  EXPECT_TRUE(has(run_summary(r), "confidence          low: sampled 50% of the run"));
  r.gpus.front().usage.confidence = {
      .coverage = 1.0, .coarse_bucket_us = 1'000'000, .shorter_than_coarse_bucket = true};
  EXPECT_TRUE(has(run_summary(r),
                  "low: the run is shorter than one bucket of the older samples "
                  "(1.00 s)"));
  r.gpus.front().usage.confidence = {.coverage = 1.0, .sm_bounds_width_pp = 31.1};
  EXPECT_TRUE(
      has(run_summary(r), "low: the SM figures may be off by up to 31.1 percentage points"));
  r.gpus.clear();
  EXPECT_TRUE(has(run_summary(r), "GPU                   none used (2 GPUs watched)"));
  r.gpu_error = "no GPU found: NVML could not be loaded";
  EXPECT_TRUE(has(run_summary(r), "GPU                   no GPU found: NVML could not be loaded"));
  r.cgroup.reset();
  r.limits = {};
  EXPECT_FALSE(has(run_summary(r), "cgroup"));
  EXPECT_FALSE(has(run_summary(r), "limits"));
}

TEST(RunJson, CarriesTheFiguresAndTheirAbsence) {
  RunResult r = sample_result();
  r.gpus.front().usage.energy.device_joules = std::unexpected(Unavailable::not_supported);
  r.gpus.front().usage.engines[static_cast<std::size_t>(Engine::sm)].average_percent_lower = 35.0;
  r.gpus.front().usage.confidence.sm_bounds_width_pp = 7.5;
  const Json document = run_json(r);
  EXPECT_EQ(document["schema_version"], kRunSchemaVersion);
  EXPECT_EQ(document["start_time"], "2023-11-14T22:13:20Z");
  EXPECT_EQ(document["exit"]["code"], 0);
  EXPECT_EQ(document["limits"]["cpu_quota_us"], 150'000);
  EXPECT_EQ(document["cgroup"]["version"], 2);
  EXPECT_EQ(document["cgroup"]["memory_peak_bytes"], 768ULL << 20);
  const Json& gpu = document["gpus"][0];
  EXPECT_EQ(gpu["sm_percent"], 40.0);
  EXPECT_EQ(gpu["sm_peak_percent"], 80.0);
  EXPECT_EQ(gpu["sm_percent_lower"], 35.0);
  EXPECT_EQ(gpu["sm_bounds_width_pp"], 7.5);
  EXPECT_EQ(gpu["memory_peak_bytes"], 1ULL << 30);
  EXPECT_TRUE(gpu["energy_device_joules"].is_null());
  EXPECT_EQ(gpu["unavailable"]["energy_device_joules"], "not_supported");
  r.cgroup.reset();
  r.gpu_error = "no GPU found";
  EXPECT_TRUE(run_json(r)["cgroup"].is_null());
  EXPECT_EQ(run_json(r)["gpu_error"], "no GPU found");
}

// Every key the renderer writes is a property of the schema, and required.
void expect_same_keys(const Json& definition, const Json& object) {
  EXPECT_EQ(keys_of(definition["properties"]), keys_of(object));
  EXPECT_EQ(strings_of(definition["required"]), keys_of(object));
}

TEST(RunJson, KeysAreThoseOfThePublishedSchema) {
  const Json schema = read_source_json<Json>("schemas/run.schema.json");
  const Json document = run_json(sample_result());
  expect_same_keys(schema, document);
  expect_same_keys(schema["properties"]["exit"], document["exit"]);
  expect_same_keys(schema["properties"]["limits"], document["limits"]);
  expect_same_keys(schema["properties"]["cgroup"]["oneOf"][1], document["cgroup"]);
  expect_same_keys(schema["$defs"]["gpu"], document["gpus"][0]);
  EXPECT_EQ(schema["properties"]["schema_version"]["const"], kRunSchemaVersion);
}

}  // namespace gpumeter::run::report_test
