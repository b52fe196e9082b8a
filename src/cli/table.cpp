// SPDX-License-Identifier: MIT
#include "cli/table.h"

#include <algorithm>

namespace gpumeter::cli {
namespace {

std::vector<std::size_t> column_widths(std::span<const Column> columns, std::span<const Row> rows) {
  std::vector<std::size_t> widths;
  for (const Column& column : columns) widths.push_back(display_width(column.header));
  for (const Row& row : rows) {
    for (std::size_t i = 0; i < row.size() && i < widths.size(); ++i) {
      widths[i] = std::max(widths[i], display_width(row[i].text));
    }
  }
  return widths;
}

// Appends one line. Padding is computed on the plain text, so escape sequences added by
// painting never upset the alignment.
void append_line(std::string& out, std::span<const Column> columns,
                 std::span<const std::size_t> widths, const Row& row, bool color) {
  std::string line;
  static const Cell kEmpty;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const Cell& cell = i < row.size() ? row[i] : kEmpty;
    const std::string padding(widths[i] - display_width(cell.text), ' ');
    if (i > 0) line += "  ";
    const std::string painted = paint(cell.text, cell.color, color);
    line += columns[i].align == Align::right ? padding + painted : painted + padding;
  }
  line.erase(line.find_last_not_of(' ') + 1);
  out += line;
  out += '\n';
}

}  // namespace

std::string render_table(std::span<const Column> columns, std::span<const Row> rows, bool color) {
  const std::vector<std::size_t> widths = column_widths(columns, rows);
  Row header;
  for (const Column& column : columns) header.push_back({column.header, Color::bold});
  std::string out;
  append_line(out, columns, widths, header, color);
  for (const Row& row : rows) append_line(out, columns, widths, row, color);
  return out;
}

}  // namespace gpumeter::cli
