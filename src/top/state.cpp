// SPDX-License-Identifier: MIT
#include "top/state.h"

#include <algorithm>
#include <set>
#include <vector>

namespace gpumeter::top {
namespace {

constexpr std::size_t kPage = 10;

SortKey step(SortKey key, int by) {
  const int next = (static_cast<int>(key) + by + kSortKeyCount) % kSortKeyCount;
  return static_cast<SortKey>(next);
}

// The first of `values` after `current` (the first of all without one); none after the last,
// so that stepping goes round through "all".
template <class T>
std::optional<T> next_after(const std::set<T>& values, const std::optional<T>& current) {
  const auto next = current ? values.upper_bound(*current) : values.begin();
  if (next == values.end()) return std::nullopt;
  return *next;
}

std::optional<std::string> next_user(const Frame& frame,
                                     const std::optional<std::string>& current) {
  std::set<std::string> users;
  for (const ProcessRow& p : frame.processes) users.insert(p.user);
  return next_after(users, current);
}

std::optional<std::uint32_t> next_gpu(const Frame& frame, std::optional<std::uint32_t> current) {
  std::set<std::uint32_t> gpus;
  for (const GpuRow& row : frame.gpus) gpus.insert(row.gpu);
  return next_after(gpus, current);
}

bool has_gpu(const Frame& frame, std::uint32_t gpu) {
  return std::ranges::any_of(frame.gpus, [&](const GpuRow& row) { return row.gpu == gpu; });
}

KeyOutcome scroll(State& state, int key) {
  switch (key) {
    case kKeyUp: state.scroll = state.scroll > 0 ? state.scroll - 1 : 0; break;
    case kKeyDown: ++state.scroll; break;
    case kKeyPageUp: state.scroll = state.scroll > kPage ? state.scroll - kPage : 0; break;
    case kKeyPageDown: state.scroll += kPage; break;
    case kKeyHome: state.scroll = 0; break;
    case kKeyEnd: state.scroll = static_cast<std::size_t>(-1) / 2; break;  // clamped on drawing
    default: return KeyOutcome::ignored;
  }
  return KeyOutcome::changed;
}

}  // namespace

std::string_view sort_name(SortKey key) {
  switch (key) {
    case SortKey::gpu: return "GPU";
    case SortKey::pid: return "PID";
    case SortKey::user: return "USER";
    case SortKey::gpu_memory: return "GPU MEM";
    case SortKey::sm: return "SM";
    case SortKey::memory: return "MEM";
    case SortKey::encoder: return "ENC";
    case SortKey::decoder: return "DEC";
    case SortKey::cpu: return "CPU";
    case SortKey::rss: return "RSS";
    case SortKey::age: return "AGE";
  }
  return "";
}

KeyOutcome apply_key(State& state, int key, const Frame& frame) {
  if (state.help) {  // any key closes the help; q still quits
    state.help = false;
    return key == 'q' ? KeyOutcome::quit : KeyOutcome::changed;
  }
  if (key >= '0' && key <= '9') {
    const auto gpu = static_cast<std::uint32_t>(key - '0');
    if (!has_gpu(frame, gpu)) return KeyOutcome::ignored;
    state.gpu = state.gpu == gpu ? std::nullopt : std::optional(gpu);
    state.scroll = 0;
    return KeyOutcome::changed;
  }
  switch (key) {
    case 'q': return KeyOutcome::quit;
    case '<':
    case kKeyLeft: state.sort = step(state.sort, -1); break;
    case '>':
    case kKeyRight: state.sort = step(state.sort, +1); break;
    case 'r': state.descending = !state.descending; break;
    case 'u':
      state.user = next_user(frame, state.user);
      state.scroll = 0;
      break;
    case 'm':
      state.user = state.user == state.me ? std::nullopt : std::optional(state.me);
      state.scroll = 0;
      break;
    case 't': state.tree = static_cast<Tree>((static_cast<int>(state.tree) + 1) % 3); break;
    case 'g':
      state.gpu = next_gpu(frame, state.gpu);
      state.scroll = 0;
      break;
    case '\t':
      state.pane = static_cast<Pane>((static_cast<int>(state.pane) + 1) % 3);
      state.scroll = 0;
      break;
    case ' ':
    case 'p': state.paused = !state.paused; break;
    case 'h':
    case '?': state.help = true; break;
    default: return scroll(state, key);
  }
  return KeyOutcome::changed;
}

}  // namespace gpumeter::top
