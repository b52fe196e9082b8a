// SPDX-License-Identifier: MIT
#include "host/reservation.h"

#include <fmt/format.h>

#include <algorithm>
#include <system_error>

#include "core/wall_clock.h"
#include "host/files.h"
#include "host/private_directory.h"
#include "host/procfs.h"
#include "host/reservation_record.h"

namespace gpumeter::host {
namespace {

namespace fs = std::filesystem;

Error io_error(std::string_view what, const fs::path& path, std::error_code error) {
  return {ErrorCode::io, fmt::format("cannot {} {}: {}", what, path.string(), error.message())};
}

// The start of the process that has `pid` now, if any: the owners are on this machine.
std::optional<std::uint64_t> start_ticks_now(int pid) {
  auto ticks = process_start_ticks("/", static_cast<Pid>(pid));
  return ticks ? std::optional<std::uint64_t>(*ticks) : std::nullopt;
}

std::expected<fs::path, Error> prepared_directory(const ReservationOptions& options) {
  std::vector<fs::path> chain = {options.directory};
  if (options.directory.empty()) {
    chain = default_state_directories("reservations");
  } else if (options.directory.has_parent_path()) {
    std::error_code error;
    fs::create_directories(options.directory.parent_path(), error);
    if (error) return std::unexpected(io_error("create", options.directory.parent_path(), error));
  }
  for (const fs::path& dir : chain) {
    if (auto ok = ensure_private_directory(dir); !ok) return std::unexpected(ok.error());
  }
  return chain.back();
}

// Whether the reservation file at `path` should go: unreadable files stay (we cannot tell
// whose they are), malformed ones go (nothing can ever release them otherwise).
bool is_stale(const fs::path& path, TimeUs now) {
  auto text = read_file(path);
  if (!text) return false;
  auto record = parse_record(*text);
  return !record || !is_live(*record, now, start_ticks_now(record->owner_pid));
}

// Removes stale reservations and temporary files left by a writer that died. Runs under the
// directory lock, so no temporary file belongs to a writer still at work. Best effort: a file
// that cannot be listed or removed stays, and claim() skips its GPU as if it were reserved.
void reclaim_stale(const fs::path& dir, TimeUs now) {
  std::error_code error;
  for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
    const fs::path& path = it->path();
    const std::string name = path.filename().string();
    if (name.starts_with(".tmp-") || (!name.starts_with('.') && is_stale(path, now))) {
      std::error_code ignored;
      fs::remove(path, ignored);
    }
  }
}

void remove_reservations(const fs::path& dir, const std::vector<std::string>& uuids) {
  std::error_code ignored;  // best effort: they expire anyway
  for (const std::string& uuid : uuids) fs::remove(dir / reservation_file_name(uuid), ignored);
}

std::expected<std::vector<std::string>, Error> claim(const fs::path& dir,
                                                     const std::vector<std::string>& candidates,
                                                     std::size_t want, std::size_t at_least,
                                                     const ReservationRecord& record) {
  std::vector<std::string> reserved;
  for (const std::string& uuid : candidates) {
    if (reserved.size() >= want) break;
    if (uuid.empty() || std::ranges::find(reserved, uuid) != reserved.end()) continue;
    const std::string name = reservation_file_name(uuid);
    std::error_code error;
    if (fs::exists(dir / name, error) || error) continue;  // a live reservation holds it
    if (auto written = write_file_atomically(dir, name, format_record(record)); !written) {
      remove_reservations(dir, reserved);
      return std::unexpected(io_error("write", dir / name, written.error()));
    }
    reserved.push_back(uuid);
  }
  if (reserved.size() < at_least) {
    // All or nothing: a caller that cannot have enough must not hold the few it got.
    remove_reservations(dir, reserved);
    reserved.clear();
  }
  return reserved;
}

}  // namespace

Reservations::Reservations(ReservationOptions options) : options_(std::move(options)) {}

std::expected<std::vector<std::string>, Error> Reservations::reserve(
    const std::vector<std::string>& candidates, std::size_t want, int owner_pid,
    std::size_t at_least) {
  if (owner_pid <= 0) {
    return std::unexpected(
        Error{ErrorCode::invalid_input, fmt::format("invalid owner pid {}", owner_pid)});
  }
  auto dir = prepared_directory(options_);
  if (!dir) return std::unexpected(dir.error());
  auto lock = DirectoryLock::acquire(*dir);
  if (!lock) return std::unexpected(io_error("lock", *dir / ".lock", lock.error()));
  const TimeUs now = wall_clock_us();
  reclaim_stale(*dir, now);
  const ReservationRecord record{
      .owner_pid = owner_pid,
      .owner_start_ticks = start_ticks_now(owner_pid),
      .expires_us =
          now + std::chrono::duration_cast<std::chrono::microseconds>(options_.grace).count(),
  };
  return claim(*dir, candidates, want, at_least, record);
}

}  // namespace gpumeter::host
