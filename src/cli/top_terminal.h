// SPDX-License-Identifier: MIT
// The terminal `gpumeter top` draws on, through ncurses: full screen, keys without echo, a
// read that waits at most a moment (so the screen never waits on the sampler, nor the sampler
// on the screen), colours where the terminal has them and NO_COLOR / --no-color do not forbid
// them (else bold and reverse only), Unicode blocks where the locale is UTF-8.
#pragma once

#include <chrono>
#include <optional>

#include "top/screen.h"

namespace gpumeter::cli {

class TopTerminal {
 public:
  explicit TopTerminal(bool colour);
  ~TopTerminal();  // gives the terminal back as it was
  TopTerminal(const TopTerminal&) = delete;
  TopTerminal& operator=(const TopTerminal&) = delete;

  // A key (plain characters as themselves, arrows and pages as top::SpecialKey), kResized when
  // the window changed size, or none within `wait`.
  std::optional<int> read_key(std::chrono::milliseconds wait);
  static constexpr int kResized = -2;

  int width() const;
  int height() const;
  bool unicode() const noexcept { return unicode_; }

  void paint(const top::Screen& screen);

 private:
  bool colour_ = false;
  bool unicode_ = false;
};

}  // namespace gpumeter::cli
