// SPDX-License-Identifier: MIT
// What the person at `gpumeter top` chose: the sort column and order, the user filter, the
// tree, the GPU picked, pause, help, the scroll. Keys change it (apply_key); the renderer reads
// it. Pure, for tests.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "top/frame.h"

namespace gpumeter::top {

// The process table's columns a person can sort by, in the order `<` and `>` step through.
enum class SortKey : std::uint8_t {
  gpu,
  pid,
  user,
  gpu_memory,
  sm,
  memory,
  encoder,
  decoder,
  cpu,
  rss,
  age
};
inline constexpr std::uint8_t kSortKeyCount = 11;

enum class Tree : std::uint8_t { none, user, container };

// What the lower part of the screen shows: the processes, the daemon's recent tasks, or each
// user's GPU-hours today (Tab steps through them).
enum class Pane : std::uint8_t { processes, tasks, users };

struct State {
  SortKey sort = SortKey::gpu_memory;
  bool descending = true;
  std::optional<std::string> user;   // show this user's processes only
  std::optional<std::uint32_t> gpu;  // show this GPU only
  Tree tree = Tree::none;
  Pane pane = Pane::processes;
  bool paused = false;
  bool help = false;
  std::size_t scroll = 0;  // first process row shown
  std::string me;          // the user running top, for `m` (mine)
};

// Key codes beyond plain characters (ncurses' are mapped to these by the terminal layer).
enum SpecialKey : std::uint16_t {
  kKeyUp = 0x101,
  kKeyDown,
  kKeyPageUp,
  kKeyPageDown,
  kKeyHome,
  kKeyEnd,
  kKeyLeft,
  kKeyRight,
};

enum class KeyOutcome : std::uint8_t { ignored, changed, quit };

// Applies one key: q quit; < > (or left / right) sort by the previous / next column; r reverse;
// u the next user of the frame (then all); m mine (again: all); t tree by user, container, none;
// g the next GPU (then all), 0-9 that GPU; Tab the next pane; space or p pause; h or ? help (any
// key closes it); arrows, Page Up / Down, Home, End scroll.
KeyOutcome apply_key(State& state, int key, const Frame& frame);

// "GPU MEM", "SM", ... as the header and the help name the sort column.
std::string_view sort_name(SortKey key);

}  // namespace gpumeter::top
