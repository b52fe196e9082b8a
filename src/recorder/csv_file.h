// SPDX-License-Identifier: MIT
// Appending rows to the daily CSV files: DIR/YYYY-MM-DD.csv by the local date of each row's
// timestamp, the header written once into a new file. Each file gets its rows in one write of
// whole lines; a write cut short (a full disk) is undone, so a file always ends in a complete
// row, and a file found not to (a crash inside a write, an editor) has its partial last line
// removed before anything is appended.
#pragma once

#include <sys/types.h>

#include <expected>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/error.h"
#include "recorder/csv_rows.h"

namespace gpumeter::recorder {

// "2026-11-22": the local date (TZ) of a time.
std::string local_date(TimeUs time_us);

// DIR/YYYY-MM-DD.csv for the local date of `time_us`.
std::filesystem::path daily_csv_path(const std::filesystem::path& directory, TimeUs time_us);

struct CsvAppend {
  std::vector<CsvRow> unwritten;          // rows of the files that could not be written, to retry
  std::optional<Error> error;             // the first failure: io naming the file and the reason
  std::size_t partial_lines_removed = 0;  // files that ended in a partial line
};

// Appends `rows` (in their order) to the daily files under `directory`, creating the
// directory and the files as needed; new files get mode `file_mode` (narrowed by the umask).
// A file that is a symbolic link is refused, never followed.
CsvAppend append_daily_csv(const std::filesystem::path& directory, std::span<const CsvRow> rows,
                           mode_t file_mode);

}  // namespace gpumeter::recorder
