// SPDX-License-Identifier: MIT
// The task socket: a listening Unix stream socket at a path, with a chosen file mode. It
// refuses to replace a socket another daemon is listening on, replaces a stale one (left by a
// daemon that was killed), and never removes anything that is not a socket. On close it
// removes the socket file, if the file is still the one it created.
#pragma once

#include <sys/types.h>

#include <expected>
#include <filesystem>
#include <optional>

#include "core/error.h"
#include "core/model.h"
#include "task/task.h"

namespace gpumeter::task {

class Listener {
 public:
  // Creates, binds and listens; non-blocking and close-on-exec. `mode` is the socket file's
  // permission bits (0600: the owner only; 0660: its group too).
  // Errors: io, with the path and what went wrong (another daemon is listening; the path
  // exists and is not a socket; the directory is missing; the path is too long for a socket).
  static std::expected<Listener, Error> open(const std::filesystem::path& path, mode_t mode);

  Listener(Listener&& other) noexcept;
  Listener& operator=(Listener&& other) noexcept;
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;
  ~Listener();

  int fd() const noexcept { return fd_; }
  const std::filesystem::path& path() const noexcept { return path_; }

  // Stops listening and removes the socket file. Idempotent.
  void close() noexcept;

 private:
  Listener(int fd, std::filesystem::path path, dev_t device, ino_t inode);

  int fd_ = -1;
  std::filesystem::path path_;
  dev_t device_ = 0;
  ino_t inode_ = 0;
};

// The peer of an accepted connection, from SO_PEERCRED (pid translated into our namespace).
struct PeerCredentials {
  Pid pid = 0;
  Uid uid = 0;
};
std::optional<PeerCredentials> peer_credentials(int fd) noexcept;

// Connects to the socket at `path` (blocking, close-on-exec). Errors: io, naming the path;
// the message says when nothing is listening there.
std::expected<int, Error> connect_to(const std::filesystem::path& path);

}  // namespace gpumeter::task
