// SPDX-License-Identifier: MIT
// A plain text table: columns sized to their widest cell, two spaces apart, an optional
// colour per cell. Every human output (list, info) renders through it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "cli/terminal.h"

namespace gpumeter::cli {

enum class Align : std::uint8_t { left, right };

struct Column {
  std::string header;
  Align align = Align::left;
};

struct Cell {
  std::string text;
  Color color = Color::none;
};

using Row = std::vector<Cell>;

// The header line and one line per row, each ending in '\n', without trailing blanks.
// Rows with fewer cells than columns are padded with empty cells. Headers are bold when
// `color` is on.
std::string render_table(std::span<const Column> columns, std::span<const Row> rows, bool color);

}  // namespace gpumeter::cli
