// SPDX-License-Identifier: MIT
// Reads the two per-process procfs files the sampler reads in every round, /proc/<pid>/stat
// and /proc/<pid>/status, keeping each process's descriptors open from one read to the next.
// A read through an open descriptor costs half (stat) to two thirds (status) of an open, a read
// and a close, and it reads the process the descriptor was opened on, never another: once that
// process is gone the read fails (ESRCH), the descriptors are closed, and the file is opened
// afresh by path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <expected>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>

#include "core/model.h"

namespace gpumeter::host {

// How many processes' descriptors a reader keeps by default: a quarter of the descriptors
// above 512 that the soft RLIMIT_NOFILE allows (two per process, and room for a second reader),
// at most 4,096. 512 stay free for everything else (the task server's 256 connections, the
// driver's device files). With the common soft limit of 1,024 that is 128 processes.
std::size_t default_kept_processes();

class ProcFiles {
 public:
  enum class File : std::uint8_t { stat, status };

  // `proc` is the procfs directory (<root>/proc). Keeps the descriptors of at most
  // `max_kept_processes` processes; the files of others are opened and closed on each read.
  ProcFiles(const std::filesystem::path& proc, std::size_t max_kept_processes);
  ProcFiles(const ProcFiles&) = delete;
  ProcFiles& operator=(const ProcFiles&) = delete;
  ~ProcFiles();

  // The whole text of <proc>/<pid>/<file>, valid until the next read.
  // Errors: the errno of the failed open or read, as a generic error_code (ENOENT or ESRCH
  // for a process that does not exist, EACCES when it may not be read).
  std::expected<std::string_view, std::error_code> read(Pid pid, File file);

  // Closes the descriptors of the processes not read since the previous call.
  void close_unread();

  // How many processes have descriptors kept now.
  std::size_t kept_processes() const { return kept_.size(); }

 private:
  struct Kept {
    int stat = -1;
    int status = -1;
    bool read_lately = true;
  };

  std::expected<std::string_view, std::error_code> read_kept(File file, Kept& kept);
  std::expected<std::string_view, std::error_code> read_once(Pid pid, File file);
  int open(Pid pid, File file);
  void close(Kept& kept);

  std::string proc_;  // "<proc>/", to which "<pid>/<file>" is appended
  std::size_t max_kept_;
  std::unordered_map<Pid, Kept> kept_;
  std::string path_;    // reused for every path
  std::string buffer_;  // holds the text of the last read
};

}  // namespace gpumeter::host
