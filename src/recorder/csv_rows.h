// SPDX-License-Identifier: MIT
// The daily CSV files that older scripts read: `Timestamp,User,PID,GPU Number,GPU Usage`, one
// row per process per GPU per CSV interval, with the process's average SM use over the
// interval (docs/daemon.md). The daemon fills them from the intervals it records, and
// `gpumeter export csv` from the store's per-minute detail, through the same rows.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "core/model.h"

namespace gpumeter::recorder {

inline constexpr std::string_view kCsvHeader = "Timestamp,User,PID,GPU Number,GPU Usage\n";

struct CsvRow {
  TimeUs timestamp_us = 0;  // the start of the CSV interval the row covers
  std::string user;
  Pid pid = 0;
  std::uint32_t gpu = 0;  // the GPU's index
  // The process's SM busy time over the interval's length, 0..100; absent (an empty field)
  // when some of its SM use in the interval is unknown (a GPU in MIG mode), never 0.
  std::optional<int> usage_percent = 0;

  friend bool operator==(const CsvRow&, const CsvRow&) = default;
};

// One line, with its newline: the timestamp in whole Unix seconds; the user quoted as RFC 4180
// says when it holds a comma, a quote or a line break.
std::string csv_line(const CsvRow& row);

// The user column: the name, else the uid, else empty.
std::string csv_user(const std::optional<std::string>& user,
                     const std::optional<std::uint32_t>& uid);

// Some of one process's use of one GPU: one recorded interval, or one per-minute row.
struct CsvUse {
  TimeUs begin_us = 0;  // decides the CSV interval it counts in
  std::string user;
  Pid pid = 0;
  TimeUs start_time_us = 0;  // tells a reused pid apart
  std::uint32_t gpu = 0;
  double held_seconds = 0;
  double sm_busy_seconds = 0;
  double sm_unknown_seconds = 0;  // of held_seconds, those whose SM use is unknown (MIG)
};

// Sums use over CSV intervals (multiples of the interval on the Unix epoch) and turns each
// into rows: one per process per GPU that held memory or used the SMs in it, ordered by time,
// GPU, pid and start time. Not synchronised.
class CsvIntervals {
 public:
  // Precondition: interval_us > 0.
  explicit CsvIntervals(TimeUs interval_us) : interval_us_(interval_us) {}

  void add(const CsvUse& use);
  // The rows of every interval that ends at or before `until_us`, which are then forgotten.
  std::vector<CsvRow> take_until(TimeUs until_us);
  // The rows of every interval, complete or not (a daemon that stops).
  std::vector<CsvRow> take_all();

 private:
  using Key = std::tuple<TimeUs, std::uint32_t, Pid, TimeUs>;  // interval, GPU, pid, start
  struct Sum {
    std::string user;
    double held_seconds = 0;
    double sm_busy_seconds = 0;
    double sm_unknown_seconds = 0;
  };

  std::vector<CsvRow> take(std::map<Key, Sum>::iterator end);

  TimeUs interval_us_;
  std::map<Key, Sum> sums_;
};

}  // namespace gpumeter::recorder
