// SPDX-License-Identifier: MIT
// The screen of `gpumeter top` for a frame: it fills the terminal exactly at every size, drops
// columns right to left as the width shrinks, draws ASCII only where the terminal has no
// Unicode, scrolls, and says what is N/A. (tests/integration/top_test.py compares whole screens
// drawn in a real terminal with golden files.)
#include "top/render.h"

#include <gtest/gtest.h>

#include <string>

namespace gpumeter::top::render_test {

Frame busy_frame(std::size_t processes) {
  Frame frame;
  frame.host = "node1";
  frame.driver = "driver 570.124.06 CUDA 12.8";
  for (std::uint32_t i = 0; i < 8; ++i) {
    GpuRow row;
    row.gpu = i;
    row.label = std::to_string(i);
    row.name = "H100 80GB HBM3";
    row.status = "in use";
    row.tone = Tone::busy;
    row.sm_percent = 12.5 * i;
    row.memory_used_bytes = 1e9 * i;
    row.memory_total_bytes = 8e10;
    row.power_watts = 100.0 + i;
    row.power_limit_watts = 700.0;
    row.temperature_celsius = 40.0 + i;
    row.sm_history = History(kHistoryPoints, 50.0);
    frame.gpus.push_back(row);
  }
  for (std::size_t p = 0; p < processes; ++p) {
    ProcessRow row;
    row.gpu = static_cast<std::uint32_t>(p % 8);
    row.gpu_label = std::to_string(row.gpu);
    row.pid = static_cast<Pid>(1000 + p);
    row.user = "user" + std::to_string(p % 5);
    row.command = "python3 train.py --config /very/long/path/to/a/config/file.yaml --resume";
    row.gpu_memory_bytes = 1e8 * static_cast<double>(p);
    row.use = RecentEngineUse{.sm_percent = 10.0,
                              .memory_percent = 5.0,
                              .encoder_percent = 0.0,
                              .decoder_percent = 0.0,
                              .window_us = 5'000'000};
    frame.processes.push_back(row);
  }
  return frame;
}

TEST(TopRender, FillsTheTerminalExactlyAtEverySize) {
  const Frame frame = busy_frame(64);
  for (const auto& [width, height] : {std::pair(80, 24), std::pair(100, 30), std::pair(160, 50),
                                      std::pair(60, 10), std::pair(250, 70)}) {
    const Screen screen = render(frame, State{}, {.width = width, .height = height});
    EXPECT_EQ(screen.lines.size(), static_cast<std::size_t>(height)) << width;
    for (const Line& line : screen.lines) {
      std::size_t used = 0;
      for (const Span& span : line) used += columns(span.text);
      EXPECT_LE(used, static_cast<std::size_t>(width)) << width << "x" << height;
    }
  }
}

TEST(TopRender, ColumnsComeAndGoWithTheWidth) {
  const Frame frame = busy_frame(3);
  const std::string narrow = screen_text(render(frame, State{}, {.width = 80, .height = 24}));
  const std::string wide = screen_text(render(frame, State{}, {.width = 140, .height = 24}));
  EXPECT_EQ(narrow.find(" DEC "), std::string::npos);
  EXPECT_EQ(narrow.find(" RSS"), std::string::npos);
  for (const char* column : {" ENC ", " DEC ", " AGE", " RSS"})
    EXPECT_NE(wide.find(column), std::string::npos) << column;
  EXPECT_EQ(wide.find("CONTAINER"), std::string::npos) << "no process runs in a container";
}

TEST(TopRender, AsciiOnlyWithoutUnicode) {
  const Frame frame = busy_frame(10);
  State state;
  state.tree = Tree::user;
  const std::string text =
      screen_text(render(frame, state, {.width = 120, .height = 30, .unicode = false}));
  for (const char c : text) EXPECT_LT(static_cast<unsigned char>(c), 0x80) << text;
  EXPECT_NE(text.find("- user0"), std::string::npos);
  EXPECT_NE(text.find('#'), std::string::npos) << "bars";
}

TEST(TopRender, ScrollsAndSaysHowManyMore) {
  const Frame frame = busy_frame(64);
  State state;
  const std::string top = screen_text(render(frame, state, {.width = 100, .height = 24}));
  EXPECT_NE(top.find("more below"), std::string::npos);
  state.scroll = 1000;  // End: clamped to the last page
  const std::string end = screen_text(render(frame, state, {.width = 100, .height = 24}));
  EXPECT_EQ(end.find("more below"), std::string::npos);
  EXPECT_NE(end.find(" 1000 "), std::string::npos) << "the least memory, last";
}

TEST(TopRender, AbsentFiguresAndEmptyStates) {
  Frame frame = busy_frame(1);
  frame.gpus[1].status = "lost";
  frame.gpus[1].tone = Tone::alert;
  frame.gpus[1].note = "fell off the bus or needs a reset: no figures";
  frame.processes[0].use = std::unexpected(Unavailable::mig);
  State state;
  const std::string text = screen_text(render(frame, state, {.width = 100, .height = 24}));
  EXPECT_NE(text.find("     1 lost    H100 80GB HBM3   fell off the bus or needs a reset"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(" N/A  N/A "), std::string::npos);
  state.user = "nobody";
  EXPECT_NE(screen_text(render(frame, state, {.width = 100, .height = 24}))
                .find("no processes of nobody"),
            std::string::npos);
  EXPECT_NE(
      screen_text(render(Frame{}, State{}, {.width = 80, .height = 24})).find("no GPUs found"),
      std::string::npos);
}

}  // namespace gpumeter::top::render_test
