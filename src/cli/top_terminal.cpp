// SPDX-License-Identifier: MIT
#include "cli/top_terminal.h"

#include <curses.h>
#include <langinfo.h>

#include <clocale>
#include <cstdint>
#include <cstring>

#include "top/state.h"

namespace gpumeter::cli {
namespace {

// Colour pairs, by top::Style (0 is the terminal's own).
enum Pair : std::uint8_t { kPairTitle = 1, kPairFree, kPairBusy, kPairAlert, kPairBar, kPairDim };

attr_t attributes(top::Style style, bool colour) {
  using top::Style;
  const auto pair = [&](Pair p, attr_t mono) {
    return colour ? static_cast<attr_t>(COLOR_PAIR(p)) : mono;
  };
  const auto normal = static_cast<attr_t>(A_NORMAL);
  const auto bold = static_cast<attr_t>(A_BOLD);
  const auto reverse = static_cast<attr_t>(A_REVERSE);
  switch (style) {
    case Style::plain: return normal;
    case Style::title: return pair(kPairTitle, normal) | bold;
    case Style::header: return bold;
    case Style::sorted: return bold | reverse;
    case Style::dim: return pair(kPairDim, static_cast<attr_t>(A_DIM));
    case Style::free: return pair(kPairFree, normal);
    case Style::busy: return pair(kPairBusy, bold);
    case Style::alert: return pair(kPairAlert, reverse) | bold;
    case Style::bar: return pair(kPairBar, normal);
  }
  return normal;
}

int translate(int key) {
  switch (key) {
    case KEY_UP: return top::kKeyUp;
    case KEY_DOWN: return top::kKeyDown;
    case KEY_PPAGE: return top::kKeyPageUp;
    case KEY_NPAGE: return top::kKeyPageDown;
    case KEY_HOME: return top::kKeyHome;
    case KEY_END: return top::kKeyEnd;
    case KEY_LEFT: return top::kKeyLeft;
    case KEY_RIGHT: return top::kKeyRight;
    case KEY_RESIZE: return TopTerminal::kResized;
    case 27: return 'q';  // Escape
    default: return key;
  }
}

}  // namespace

TopTerminal::TopTerminal(bool colour) {
  std::setlocale(LC_ALL, "");
  unicode_ = std::strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
  initscr();
  cbreak();
  noecho();
  keypad(stdscr, TRUE);
  curs_set(0);
  set_escdelay(25);
  colour_ = colour && has_colors() == TRUE;
  if (colour_) {
    start_color();
    use_default_colors();
    init_pair(kPairTitle, COLOR_CYAN, -1);
    init_pair(kPairFree, COLOR_GREEN, -1);
    init_pair(kPairBusy, COLOR_BLUE, -1);
    init_pair(kPairAlert, COLOR_RED, -1);
    init_pair(kPairBar, COLOR_GREEN, -1);
    init_pair(kPairDim, COLOR_WHITE, -1);
  }
}

TopTerminal::~TopTerminal() {
  endwin();
}

std::optional<int> TopTerminal::read_key(std::chrono::milliseconds wait) {
  timeout(static_cast<int>(wait.count()));
  const int key = getch();
  if (key == ERR) return std::nullopt;
  return translate(key);
}

int TopTerminal::width() const {
  return COLS;
}

int TopTerminal::height() const {
  return LINES;
}

void TopTerminal::paint(const top::Screen& screen) {
  erase();
  int y = 0;
  for (const top::Line& line : screen.lines) {
    move(y, 0);
    for (const top::Span& span : line) {
      wattrset(stdscr, static_cast<int>(attributes(span.style, colour_)));
      addnstr(span.text.c_str(), static_cast<int>(span.text.size()));
    }
    ++y;
  }
  wattrset(stdscr, static_cast<int>(A_NORMAL));
  refresh();
}

}  // namespace gpumeter::cli
