// SPDX-License-Identifier: MIT
// Every bundled scenario loads, and the ones other tests rely on say what they promise.
#include <gtest/gtest.h>
#include <stdlib.h>  // unsetenv: POSIX

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "sim/scenario.h"
#include "sim/timeline.h"
#include "support/temp_scenario.h"

namespace gpumeter::sim::examples_test {

using testing::example_scenario;

Scenario load(std::string_view name) {
  auto s = load_scenario(example_scenario(name));
  if (!s) ADD_FAILURE() << s.error().message;
  return s.value_or(Scenario{});
}

TEST(Examples, EveryScenarioLoads) {
  unsetenv("GPUMETER_WORKER_PID");
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(GPUMETER_TEST_SCENARIO_DIR)) {
    if (entry.path().extension() != ".json") continue;
    ++count;
    auto s = load_scenario(entry.path());
    EXPECT_TRUE(s.has_value()) << (s ? "" : s.error().message);
  }
  EXPECT_GE(count, 7);
}

TEST(Examples, DgxHasEightGpusAndThreeBusyOnes) {
  const Scenario s = load("dgx-8gpu");
  ASSERT_EQ(s.devices.size(), 8u);
  std::set<std::string> uuids;
  for (const DeviceSpec& d : s.devices) {
    EXPECT_EQ(d.name, "Tesla V100-SXM2-16GB");
    uuids.insert(d.uuid);
  }
  EXPECT_EQ(uuids.size(), 8u);
  const Timeline timeline(s);
  for (std::size_t i = 0; i < 8; ++i) {
    const auto processes = timeline.processes(i, 100);
    const bool busy = i >= 1 && i <= 3;
    ASSERT_EQ(processes.size(), busy ? 1u : 0u) << i;
    const DeviceReading r = timeline.reading(i, 100'000'000);
    if (!busy) {
      EXPECT_EQ(r.percent.sm, 0u);
      continue;
    }
    EXPECT_GE(r.percent.sm, 99u);
    EXPECT_EQ(timeline.process_memory(*processes[0], 100), 936378368u);
    ASSERT_TRUE(processes[0]->host.has_value());
    EXPECT_LT(processes[0]->host->started_s, -3600);  // started hours ago
  }
}

TEST(Examples, WorkstationMixesConsumerGpusAndHidesOneOwner) {
  const Scenario s = load("workstation");
  ASSERT_GE(s.devices.size(), 2u);
  for (const DeviceSpec& d : s.devices) {
    EXPECT_TRUE(d.name.find("1070") != std::string::npos ||
                d.name.find("1080 Ti") != std::string::npos)
        << d.name;
    EXPECT_FALSE(d.supports(Feature::ecc));
    EXPECT_FALSE(d.supports(Feature::serial));
  }
  EXPECT_EQ(std::ranges::count_if(s.processes,
                                  [](const ProcessSpec& p) { return p.host && p.host->hidden; }),
            1);
  std::set<std::string> users;
  for (const ProcessSpec& p : s.processes) {
    if (p.host && !p.host->hidden) users.insert(p.host->user);
  }
  EXPECT_GE(users.size(), 3u);
}

TEST(Examples, EmptyHasNoGpus) {
  EXPECT_TRUE(load("empty").devices.empty());
}

TEST(Examples, FaultScenarios) {
  const Scenario lost = load("lost-gpu");
  const Timeline timeline(lost);
  EXPECT_FALSE(timeline.lost(1, 1.9));
  EXPECT_TRUE(timeline.lost(1, 2));
  EXPECT_FALSE(timeline.lost(0, 1000));
  EXPECT_FALSE(load("flaky").faults.flaky.empty());
  EXPECT_TRUE(load("init-fails").faults.init_code.has_value());
}

TEST(Examples, BurstyWorkerIdlesBetweenBursts) {
  unsetenv("GPUMETER_WORKER_PID");
  const Scenario s = load("bursty-worker");
  ASSERT_EQ(s.processes.size(), 1u);
  const ProcessSpec& p = s.processes[0];
  EXPECT_EQ(p.sm.at(1), 95);
  EXPECT_EQ(p.sm.at(10), 0);
  EXPECT_NEAR(p.sm.mean(0, 200), 9.5, 1e-9);
}

// The live demo and the dashboard's browser test need load that keeps moving, several users,
// a GPU that empties and one that fills.
TEST(Examples, DemoLiveKeepsMoving) {
  const Scenario s = load("demo-live");
  ASSERT_EQ(s.devices.size(), 4u);
  std::set<std::string> users;
  for (const ProcessSpec& p : s.processes) {
    if (p.host && !p.host->hidden) users.insert(p.host->user);
    std::set<double> levels;
    for (double t = 7200; t < 7800; t += 15) levels.insert(p.sm.at(t));
    EXPECT_GE(levels.size(), 2u) << "the process on GPU " << p.device << " keeps one level";
  }
  EXPECT_GE(users.size(), 5u);
  const auto on = [&](std::size_t device, double t) {
    return std::ranges::count_if(
        s.processes, [&](const ProcessSpec& p) { return p.device == device && p.alive(t); });
  };
  EXPECT_EQ(on(2, 60), 1);
  EXPECT_EQ(on(2, 3600), 0);
  EXPECT_EQ(on(3, 60), 1);
  EXPECT_EQ(on(3, 600), 2);
}

TEST(Examples, TheDocumentedExampleLoads) {
  std::ifstream in(GPUMETER_TEST_DOCS_DIR "/scenarios.md");
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const std::size_t section = doc.find("## A complete small example");
  ASSERT_NE(section, std::string::npos);
  const std::size_t begin = doc.find("```json\n", section);
  const std::size_t end = doc.find("```", begin + 8);
  ASSERT_NE(begin, std::string::npos);
  auto s = parse_scenario(doc.substr(begin + 8, end - begin - 8), "docs/scenarios.md");
  ASSERT_TRUE(s.has_value()) << s.error().message;
  EXPECT_EQ(s->devices.size(), 1u);
  EXPECT_EQ(s->processes.size(), 2u);
}

TEST(Examples, ValuesMoveOverTime) {
  // Demos need something to watch: the busy GPUs' readings change within a minute.
  const Scenario s = load("workstation");
  const Timeline timeline(s);
  std::set<unsigned> seen;
  for (SimUs t = 0; t < 60'000'000; t += 5'000'000) seen.insert(timeline.reading(0, t).percent.sm);
  EXPECT_GE(seen.size(), 2u);
}

}  // namespace gpumeter::sim::examples_test
