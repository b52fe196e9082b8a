// SPDX-License-Identifier: MIT
// The keys of `gpumeter top` and the order and filters of its process table.
#include "top/state.h"

#include <gtest/gtest.h>

#include <vector>

#include "top/render.h"

namespace gpumeter::top::state_test {

ProcessRow process(std::uint32_t gpu, Pid pid, std::string user, Maybe<double> sm,
                   double memory_bytes) {
  ProcessRow row;
  row.gpu = gpu;
  row.gpu_label = std::to_string(gpu);
  row.pid = pid;
  row.user = std::move(user);
  row.gpu_memory_bytes = memory_bytes;
  if (sm) {
    row.use = RecentEngineUse{.sm_percent = *sm,
                              .memory_percent = 0.0,
                              .encoder_percent = 0.0,
                              .decoder_percent = 0.0,
                              .window_us = 5'000'000};
  } else {
    row.use = std::unexpected(sm.error());
  }
  return row;
}

Frame two_gpus() {
  Frame frame;
  frame.gpus.resize(2);
  frame.gpus[1].gpu = 1;
  frame.processes = {process(0, 10, "bob", 30.0, 4e9), process(0, 11, "ana", 80.0, 1e9),
                     process(1, 12, "ana", std::unexpected(Unavailable::mig), 2e9),
                     process(1, 13, "cy", 5.0, 8e9)};
  return frame;
}

std::vector<Pid> pids(const Frame& frame, const State& state) {
  std::vector<Pid> out;
  for (const ProcessRow* p : shown_processes(frame, state)) out.push_back(p->pid);
  return out;
}

TEST(TopKeys, SortByEachColumnWithAbsentValuesLast) {
  const Frame frame = two_gpus();
  State state;
  EXPECT_EQ(pids(frame, state), (std::vector<Pid>{13, 10, 12, 11}));  // GPU memory, most first
  EXPECT_EQ(apply_key(state, '>', frame), KeyOutcome::changed);
  EXPECT_EQ(state.sort, SortKey::sm);
  EXPECT_EQ(pids(frame, state), (std::vector<Pid>{11, 10, 13, 12}));  // MIG's N/A last
  apply_key(state, 'r', frame);
  EXPECT_EQ(pids(frame, state), (std::vector<Pid>{13, 10, 11, 12}));  // and last reversed too
  apply_key(state, '<', frame);
  apply_key(state, '<', frame);
  EXPECT_EQ(state.sort, SortKey::user);
  EXPECT_EQ(pids(frame, state), (std::vector<Pid>{11, 12, 10, 13}));  // ties by GPU, then pid
  for (int i = 0; i < kSortKeyCount; ++i) apply_key(state, top::kKeyRight, frame);
  EXPECT_EQ(state.sort, SortKey::user) << "the columns go round";
}

TEST(TopKeys, UsersGpusMineTreePauseHelpQuit) {
  const Frame frame = two_gpus();
  State state{.me = "cy"};
  apply_key(state, 'u', frame);
  EXPECT_EQ(state.user, "ana");
  EXPECT_EQ(pids(frame, state), (std::vector<Pid>{12, 11}));
  apply_key(state, 'u', frame);
  apply_key(state, 'u', frame);
  EXPECT_EQ(state.user, "cy");
  apply_key(state, 'u', frame);
  EXPECT_EQ(state.user, std::nullopt) << "after the last user: everyone";
  apply_key(state, 'm', frame);
  EXPECT_EQ(state.user, "cy");
  apply_key(state, 'm', frame);
  EXPECT_EQ(state.user, std::nullopt);
  EXPECT_EQ(apply_key(state, '7', frame), KeyOutcome::ignored) << "no GPU 7";
  apply_key(state, '1', frame);
  EXPECT_EQ(pids(frame, state), (std::vector<Pid>{13, 12}));
  apply_key(state, '1', frame);
  EXPECT_EQ(state.gpu, std::nullopt);
  apply_key(state, 'g', frame);
  EXPECT_EQ(state.gpu, 0U);
  apply_key(state, 't', frame);
  EXPECT_EQ(state.tree, Tree::user);
  apply_key(state, '\t', frame);
  EXPECT_EQ(state.pane, Pane::tasks);
  apply_key(state, '\t', frame);
  EXPECT_EQ(state.pane, Pane::users);
  apply_key(state, '\t', frame);
  EXPECT_EQ(state.pane, Pane::processes);
  apply_key(state, ' ', frame);
  EXPECT_TRUE(state.paused);
  apply_key(state, '?', frame);
  EXPECT_TRUE(state.help);
  EXPECT_EQ(apply_key(state, 'x', frame), KeyOutcome::changed);
  EXPECT_FALSE(state.help) << "any key closes the help";
  EXPECT_EQ(apply_key(state, 'Z', frame), KeyOutcome::ignored);
  EXPECT_EQ(apply_key(state, 'q', frame), KeyOutcome::quit);
}

TEST(TopKeys, ScrollStopsAtTheTop) {
  const Frame frame = two_gpus();
  State state;
  apply_key(state, kKeyUp, frame);
  EXPECT_EQ(state.scroll, 0U);
  apply_key(state, kKeyPageDown, frame);
  apply_key(state, kKeyDown, frame);
  EXPECT_EQ(state.scroll, 11U);
  apply_key(state, kKeyHome, frame);
  EXPECT_EQ(state.scroll, 0U);
}

}  // namespace gpumeter::top::state_test
