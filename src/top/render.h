// SPDX-License-Identifier: MIT
// The screen of `gpumeter top` for a frame and the person's choices: a title line, a row per
// GPU (bars and sparklines of SM, memory, power and temperature; MIG devices and vGPU
// instances as rows of their own), the processes (filtered, sorted, or in a tree by user or
// container; columns dropped right to left as the width shrinks), and a line of key hints; or
// the help. Pure: the same input always draws the same screen.
#pragma once

#include "top/frame.h"
#include "top/screen.h"
#include "top/state.h"

namespace gpumeter::top {

struct RenderOptions {
  int width = 80;
  int height = 24;
  bool unicode = true;  // block characters for bars and sparklines; ASCII without
};

Screen render(const Frame& frame, const Panes& panes, const State& state,
              const RenderOptions& options);
// Without the daemon's panes (they say there is nothing yet).
Screen render(const Frame& frame, const State& state, const RenderOptions& options);

// The processes the table shows, in order: the GPU and user chosen, sorted (absent values
// last in either direction; ties by GPU then pid).
std::vector<const ProcessRow*> shown_processes(const Frame& frame, const State& state);

}  // namespace gpumeter::top
