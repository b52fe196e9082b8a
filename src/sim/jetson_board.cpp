// SPDX-License-Identifier: MIT
#include "sim/jetson_board.h"

#include <fmt/format.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>  // mkdtemp: POSIX, not in <cstdlib>

#include <chrono>
#include <fstream>
#include <iostream>
#include <system_error>

#include "core/bounded_file.h"
#include "sim/clock.h"

namespace gpumeter::sim {
namespace {

constexpr auto kRefreshEvery = std::chrono::milliseconds(50);
constexpr std::size_t kCommLength = 15;  // the kernel's TASK_COMM_LEN less its NUL

// A process's command as nvmap prints it: the kernel's comm, without blanks (nvmap's columns
// are separated by them).
std::string comm_of(std::string name) {
  if (name.size() > kCommLength) name.resize(kCommLength);
  for (char& c : name) {
    if (c == ' ' || c == '\t' || c == '\n') c = '_';
  }
  return name.empty() ? "process" : name;
}

std::string name_of(const ProcessSpec& process, std::uint32_t pid) {
  if (!process.name.empty()) return comm_of(process.name);
  if (process.host && !process.host->command.empty()) {
    return comm_of(std::filesystem::path(process.host->command.front()).filename().string());
  }
  if (process.real) {
    if (auto comm = read_file_at_most(fmt::format("/proc/{}/comm", pid), 64)) {
      while (!comm->empty() && comm->back() == '\n') comm->pop_back();
      return comm_of(std::move(*comm));
    }
  }
  return "process";
}

// Writes `content` to `path` so that a reader sees the old file or the new one, never a part.
std::expected<void, Error> replace_file(const std::filesystem::path& path,
                                        const std::string& content) {
  std::error_code error;
  std::filesystem::create_directories(path.parent_path(), error);
  const std::filesystem::path temporary = path.string() + ".new";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << content;
    if (!out) error = std::make_error_code(std::errc::io_error);
  }
  if (!error) std::filesystem::rename(temporary, path, error);
  if (error) {
    return std::unexpected(
        Error{ErrorCode::io, fmt::format("cannot write {}: {}", path.string(), error.message())});
  }
  return {};
}

}  // namespace

SimulatedJetson::SimulatedJetson(Scenario scenario, JetsonSpec board, MachineEpoch epoch,
                                 std::filesystem::path root)
    : scenario_(std::move(scenario)),
      board_(std::move(board)),
      timeline_(scenario_),
      epoch_(std::move(epoch)),
      root_(std::move(root)) {}

std::expected<std::unique_ptr<SimulatedJetson>, Error> SimulatedJetson::start(
    Scenario scenario, const std::filesystem::path& scenario_path) {
  if (!scenario.jetson) {
    return std::unexpected(Error{
        ErrorCode::invalid_input,
        fmt::format("{}: not a Jetson scenario (expected a \"jetson\" block naming the board)",
                    scenario_path.string())});
  }
  std::error_code error;
  std::string pattern = (std::filesystem::temp_directory_path(error) / "gpumeter-jetson-XXXXXX");
  if (error || mkdtemp(pattern.data()) == nullptr) {
    return std::unexpected(
        Error{ErrorCode::io, fmt::format("cannot make a directory for the simulated board in {}",
                                         std::filesystem::temp_directory_path(error).string())});
  }
  MachineEpoch epoch = machine_epoch(scenario_path, history_lead_s(scenario));
  if (!epoch.warning.empty()) std::cerr << "gpumeter simulator: " << epoch.warning << '\n';
  JetsonSpec spec = *scenario.jetson;
  std::unique_ptr<SimulatedJetson> board(
      new SimulatedJetson(std::move(scenario), std::move(spec), std::move(epoch), pattern));
  if (auto written = board->refresh(); !written) return std::unexpected(written.error());
  // The writer takes no signal: a daemon stops on SIGTERM through a signalfd, which sees only
  // signals that every thread blocks, and this thread starts before the daemon blocks them.
  sigset_t all;
  sigset_t before;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &before);
  board->thread_ =
      std::jthread([raw = board.get()](const std::stop_token& stop) { raw->run(stop); });
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
  return board;
}

SimulatedJetson::~SimulatedJetson() {
  if (thread_.joinable()) {
    thread_.request_stop();
    thread_.join();
  }
  std::error_code ignored;
  std::filesystem::remove_all(root_, ignored);
}

std::vector<NvmapEntry> SimulatedJetson::nvmap_entries(double t) const {
  std::vector<NvmapEntry> entries;
  for (const ProcessSpec* process : timeline_.processes(0, t)) {
    const std::optional<std::uint32_t> pid = timeline_.pid_of(*process);
    const std::uint64_t bytes = timeline_.process_memory(*process, t).value_or(0);
    if (!pid || bytes == 0) continue;
    entries.push_back({*pid, name_of(*process, *pid), bytes});
  }
  return entries;
}

std::expected<void, Error> SimulatedJetson::refresh() {
  timeline_.refresh_pids();
  const SimUs now = now_us() - epoch_.epoch_us;
  const double t = seconds(now);
  const JetsonTree tree =
      jetson_tree(board_, scenario_.devices.front(), timeline_.reading(0, now), nvmap_entries(t));
  for (const auto& [path, content] : tree) {
    const auto old = written_.find(path);
    if (old != written_.end() && old->second == content) continue;
    auto written = replace_file(root_ / std::filesystem::path(path).relative_path(), content);
    if (!written) return written;
    written_[path] = content;
  }
  return {};
}

void SimulatedJetson::run(const std::stop_token& stop) {
  bool reported = false;
  std::unique_lock lock(mutex_);
  while (!stop.stop_requested()) {
    if (auto written = refresh(); !written && !reported) {
      std::cerr << "gpumeter simulator: " << written.error().message << '\n';
      reported = true;  // once: the next round would say the same
    }
    wake_.wait_for(lock, stop, kRefreshEvery, [] { return false; });
  }
}

}  // namespace gpumeter::sim
