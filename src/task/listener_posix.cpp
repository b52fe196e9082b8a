// SPDX-License-Identifier: MIT
#include <fmt/format.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "task/listener.h"

namespace gpumeter::task {
namespace {

constexpr int kBacklog = 64;

Error io_error(const std::filesystem::path& path, std::string_view what, int error_number) {
  return Error{ErrorCode::io,
               fmt::format("{}: {}: {}", path.string(), what, std::strerror(error_number))};
}

std::expected<sockaddr_un, Error> address_of(const std::filesystem::path& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  const std::string& text = path.native();
  if (text.empty() || text.size() >= sizeof(address.sun_path)) {
    return std::unexpected(
        Error{ErrorCode::invalid_input, fmt::format("{}: a socket path must hold 1 to {} bytes",
                                                    text, sizeof(address.sun_path) - 1)});
  }
  std::memcpy(address.sun_path, text.data(), text.size());
  return address;
}

// Connects a new socket to `address`; returns the socket or -1 with errno set.
int connect_socket(const sockaddr_un& address) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  // The sockaddr casts are how the sockets API is typed.
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast)
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
    const int saved = errno;
    ::close(fd);
    errno = saved;
    return -1;
  }
  return fd;
}

// Makes the path free for a new socket: absent is fine; a socket nobody listens on (left by a
// daemon that was killed) is removed; anything else stays and is an error.
std::expected<void, Error> clear_stale(const std::filesystem::path& path,
                                       const sockaddr_un& address) {
  struct stat status{};
  if (::lstat(path.c_str(), &status) != 0) {
    if (errno == ENOENT) return {};
    return std::unexpected(io_error(path, "cannot inspect", errno));
  }
  if (!S_ISSOCK(status.st_mode)) {
    return std::unexpected(
        Error{ErrorCode::io,
              fmt::format("{}: exists and is not a socket; not replacing it", path.string())});
  }
  const int probe = connect_socket(address);
  if (probe >= 0) {
    ::close(probe);
    return std::unexpected(
        Error{ErrorCode::io,
              fmt::format("{}: another gpumeter daemon is listening there", path.string())});
  }
  if (errno != ECONNREFUSED) return std::unexpected(io_error(path, "cannot probe", errno));
  if (::unlink(path.c_str()) != 0) return std::unexpected(io_error(path, "cannot remove", errno));
  return {};
}

// Binds, sets the mode, then listens: until listen() nobody can connect, so the moment between
// bind (mode from the umask) and chmod lets no one in.
std::expected<struct stat, Error> bind_and_listen(int fd, const std::filesystem::path& path,
                                                  const sockaddr_un& address, mode_t mode) {
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast)
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
    return std::unexpected(io_error(path, "cannot bind", errno));
  }
  struct stat status{};
  if (::chmod(path.c_str(), mode) != 0 || ::lstat(path.c_str(), &status) != 0 ||
      ::listen(fd, kBacklog) != 0) {
    const int saved = errno;
    ::unlink(path.c_str());
    return std::unexpected(io_error(path, "cannot set up", saved));
  }
  return status;
}

}  // namespace

std::expected<Listener, Error> Listener::open(const std::filesystem::path& path, mode_t mode) {
  const auto address = address_of(path);
  if (!address) return std::unexpected(address.error());
  if (auto cleared = clear_stale(path, *address); !cleared) {
    return std::unexpected(std::move(cleared.error()));
  }
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return std::unexpected(io_error(path, "cannot create a socket", errno));
  const auto bound = bind_and_listen(fd, path, *address, mode);
  if (!bound) {
    ::close(fd);
    return std::unexpected(bound.error());
  }
  return Listener(fd, path, bound->st_dev, bound->st_ino);
}

Listener::Listener(int fd, std::filesystem::path path, dev_t device, ino_t inode)
    : fd_(fd), path_(std::move(path)), device_(device), inode_(inode) {}

Listener::Listener(Listener&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      path_(std::move(other.path_)),
      device_(other.device_),
      inode_(other.inode_) {}

Listener& Listener::operator=(Listener&& other) noexcept {
  if (this != &other) {
    close();
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
    device_ = other.device_;
    inode_ = other.inode_;
  }
  return *this;
}

Listener::~Listener() {
  close();
}

void Listener::close() noexcept {
  if (fd_ < 0) return;
  ::close(fd_);
  fd_ = -1;
  // Only our own socket: another daemon may have replaced a file we lost track of.
  struct stat status{};
  if (::lstat(path_.c_str(), &status) == 0 && status.st_dev == device_ && status.st_ino == inode_) {
    ::unlink(path_.c_str());
  }
}

std::optional<PeerCredentials> peer_credentials(int fd) noexcept {
  ucred credentials{};
  socklen_t size = sizeof(credentials);
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) != 0 || credentials.pid <= 0) {
    return std::nullopt;
  }
  return PeerCredentials{static_cast<Pid>(credentials.pid), static_cast<Uid>(credentials.uid)};
}

std::expected<int, Error> connect_to(const std::filesystem::path& path) {
  const auto address = address_of(path);
  if (!address) return std::unexpected(address.error());
  const int fd = connect_socket(*address);
  if (fd >= 0) return fd;
  if (errno == ENOENT || errno == ECONNREFUSED) {
    return std::unexpected(
        Error{ErrorCode::io,
              fmt::format("no gpumeter daemon is running (nothing listens on {})", path.string())});
  }
  return std::unexpected(io_error(path, "cannot connect", errno));
}

}  // namespace gpumeter::task
