// SPDX-License-Identifier: MIT
// `top --connect`'s frames: what a daemon's status document gives must draw as the same frame
// that the snapshot behind it gives `top` sampling by itself, and its history answers become
// the sparklines.
#include "top/status_frame.h"

#include <gtest/gtest.h>

#include <cmath>

#include "support/sample_snapshot.h"
#include "view/list_json.h"

namespace gpumeter::top::status_frame_test {

using cli::testing::sample_snapshot;

// The sample machine as a daemon's rounds publish it: recent engine use, CPU and memory per
// process (at the tenths the document keeps), and GPU 0 in MIG mode with one instance.
Snapshot daemon_snapshot() {
  Snapshot snapshot = sample_snapshot();
  for (Device& device : snapshot.gpus.devices) {
    if (!device.processes) continue;
    for (GpuProcess& process : *device.processes) {
      process.recent_use = RecentEngineUse{.sm_percent = 61.5,
                                           .memory_percent = 20.0,
                                           .encoder_percent = 3.5,
                                           .decoder_percent = 0.0,
                                           .window_us = 5'000'000};
    }
  }
  for (auto& [pid, host] : snapshot.processes) {
    if (!host) continue;
    host->cpu_percent = 12.5;
    host->rss_bytes = std::uint64_t{512} << 20;
  }
  MigDevice instance;
  instance.gpu_instance_id = 2;
  instance.profile = std::string("3g.40gb");
  instance.memory_total_bytes = 40.0 * cli::testing::kGiB;
  instance.memory_used_bytes = 1.0 * cli::testing::kGiB;
  instance.processes = std::vector<GpuProcess>{};
  snapshot.gpus.devices[0].mig = MigState{.enabled = true, .devices = {instance}};
  return snapshot;
}

void expect_same_gpu(const GpuRow& got, const GpuRow& want) {
  SCOPED_TRACE(want.label);
  EXPECT_EQ(got.kind, want.kind);
  EXPECT_EQ(got.gpu, want.gpu);
  EXPECT_EQ(got.label, want.label);
  EXPECT_EQ(got.name, want.name);
  EXPECT_EQ(got.status, want.status);
  EXPECT_EQ(got.tone, want.tone);
  EXPECT_EQ(got.sm_percent, want.sm_percent);
  EXPECT_EQ(got.memory_used_bytes, want.memory_used_bytes);
  EXPECT_EQ(got.memory_total_bytes, want.memory_total_bytes);
  EXPECT_EQ(got.power_watts, want.power_watts);
  EXPECT_EQ(got.power_limit_watts, want.power_limit_watts);
  EXPECT_EQ(got.temperature_celsius, want.temperature_celsius);
  EXPECT_EQ(got.note, want.note);
}

void expect_same_process(const ProcessRow& got, const ProcessRow& want) {
  SCOPED_TRACE(want.pid);
  EXPECT_EQ(got.gpu, want.gpu);
  EXPECT_EQ(got.gpu_label, want.gpu_label);
  EXPECT_EQ(got.pid, want.pid);
  EXPECT_EQ(got.user, want.user);
  EXPECT_EQ(got.container, want.container);
  EXPECT_EQ(got.command, want.command);
  EXPECT_EQ(got.gpu_memory_bytes, want.gpu_memory_bytes);
  ASSERT_EQ(got.use.has_value(), want.use.has_value());
  if (want.use) {
    EXPECT_EQ(got.use->sm_percent, want.use->sm_percent);
    EXPECT_EQ(got.use->memory_percent, want.use->memory_percent);
    EXPECT_EQ(got.use->encoder_percent, want.use->encoder_percent);
    EXPECT_EQ(got.use->decoder_percent, want.use->decoder_percent);
    EXPECT_EQ(got.use->window_us, want.use->window_us);
  } else {
    EXPECT_EQ(got.use.error(), want.use.error());
  }
  EXPECT_EQ(got.cpu_percent, want.cpu_percent);
  EXPECT_EQ(got.rss_bytes, want.rss_bytes);
  EXPECT_EQ(got.age_us, want.age_us);
}

TEST(StatusFrame, TheDaemonsDocumentDrawsAsItsSnapshotDoes) {
  const Snapshot snapshot = daemon_snapshot();
  const GpuHistory history;
  const Frame want = build_frame(snapshot, history);
  const Frame got = frame_from_status(view::list_json(snapshot), history);
  EXPECT_EQ(got.host, want.host);
  EXPECT_EQ(got.driver, want.driver);
  EXPECT_EQ(got.time_us, want.time_us);
  ASSERT_EQ(got.gpus.size(), want.gpus.size());
  for (std::size_t i = 0; i < want.gpus.size(); ++i) expect_same_gpu(got.gpus[i], want.gpus[i]);
  ASSERT_EQ(got.processes.size(), want.processes.size());
  for (std::size_t i = 0; i < want.processes.size(); ++i)
    expect_same_process(got.processes[i], want.processes[i]);
  EXPECT_EQ(got.gpus[1].kind, RowKind::mig);  // GPU 0's instance follows it
}

// A document of another shape (another version, a proxy's error page) draws what it can,
// never throws.
TEST(StatusFrame, AStrangeDocumentDrawsWhatItCan) {
  const GpuHistory history;
  EXPECT_TRUE(frame_from_status(view::Json::array({1, 2}), history).gpus.empty());
  const Frame frame = frame_from_status(
      view::Json{{"host", 7},
                 {"gpus", {{{"index", -1}}, {{"index", 3}, {"status", "odd"}, {"processes", 5}}}}},
      history);
  EXPECT_EQ(frame.host, "?");
  ASSERT_EQ(frame.gpus.size(), 1U);  // the negative index is skipped
  EXPECT_EQ(frame.gpus[0].label, "3");
  EXPECT_EQ(frame.gpus[0].status, "unknown");
  EXPECT_EQ(frame.gpus[0].sm_percent, std::unexpected(Unavailable::no_data));
  EXPECT_TRUE(frame.processes.empty());
}

// The history answer's averages, null as a gap; then each newer round adds a point, the same
// round again none.
TEST(StatusFrame, HistoryThenRounds) {
  const view::Json answer{{"avg", {10.0, nullptr, 30.0}}};
  const History points = history_points(answer, 2.0);
  ASSERT_EQ(points.size(), 3U);
  EXPECT_DOUBLE_EQ(points[0], 20.0);
  EXPECT_TRUE(std::isnan(points[1]));
  EXPECT_DOUBLE_EQ(points[2], 60.0);
  EXPECT_TRUE(history_points(view::Json{{"avg", "no"}}).empty());

  GpuHistory history;
  history.seed(0, {.sm = points, .memory = {}, .power = {}, .temperature = {}});
  const view::Json status = view::list_json(sample_snapshot());
  add_status_round(history, status);
  add_status_round(history, status);  // the same round: no point
  const GpuHistory::Histories* gpu0 = history.of(0);
  ASSERT_NE(gpu0, nullptr);
  ASSERT_EQ(gpu0->sm.size(), 4U);
  EXPECT_DOUBLE_EQ(gpu0->sm.back(), 0.0);  // idle GPU 0
  ASSERT_EQ(gpu0->temperature.size(), 1U);
  EXPECT_DOUBLE_EQ(gpu0->temperature.back(), 35.0);
  const History drawn = frame_from_status(status, history).gpus[0].sm_history;
  ASSERT_EQ(drawn.size(), 4U);
  EXPECT_DOUBLE_EQ(drawn[0], 20.0);
  EXPECT_DOUBLE_EQ(drawn[3], 0.0);
}

}  // namespace gpumeter::top::status_frame_test
