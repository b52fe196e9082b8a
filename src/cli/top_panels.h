// SPDX-License-Identifier: MIT
// What the running daemon knows beside the GPUs, for `top`'s Tasks and Users panes: the tasks
// of the last ten minutes (the task socket, as `gpumeter tasks` shows them) and each user's
// GPU-hours since midnight from its history (as `gpumeter report --by user` shows them, with
// each user's quota standing given a quota file). Both are files and sockets that may be slow or
// absent: top reads them in a thread of its own, never in the screen's.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/model.h"
#include "top/frame.h"
#include "view/quota.h"

namespace gpumeter::cli {

struct TopPanelSources {
  std::string socket;                             // empty: the daemon's default
  std::optional<std::filesystem::path> database;  // absent: `report`'s default
  std::optional<view::QuotaFile> quotas;
};

// A table's text as the pane's lines.
std::vector<std::string> pane_lines(const std::string& text);

// One reading of both; a source that cannot be read leaves its pane empty with a note saying
// why and what to do.
top::Panes read_panels(const TopPanelSources& sources, TimeUs now_us);

}  // namespace gpumeter::cli
