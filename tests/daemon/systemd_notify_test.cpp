// SPDX-License-Identifier: MIT
#include "daemon/systemd_notify.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <filesystem>
#include <string>

#include "core/unique_fd.h"

namespace gpumeter::daemon::systemd_notify_test {

// A datagram socket bound where a service manager would listen: a path, or an abstract name
// when `name` starts with '@'.
class Listener {
 public:
  explicit Listener(const std::string& name)
      : fd_(::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::memcpy(address.sun_path, name.data(), name.size());
    if (name.front() == '@') address.sun_path[0] = '\0';
    const auto length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + name.size());
    bound_ = ::bind(fd_.get(), reinterpret_cast<const sockaddr*>(&address), length) == 0;
  }
  bool bound() const { return bound_; }

  // The next datagram, or "" when none is waiting.
  std::string next() const {
    std::array<char, 512> buffer{};
    const ssize_t got = ::recv(fd_.get(), buffer.data(), buffer.size(), MSG_DONTWAIT);
    return got > 0 ? std::string(buffer.data(), static_cast<std::size_t>(got)) : std::string();
  }

 private:
  UniqueFd fd_;
  bool bound_ = false;
};

// NOTIFY_SOCKET set for one test and removed after it, as systemd sets it for a service.
class NotifySocket : public ::testing::Test {
 protected:
  void TearDown() override { ::unsetenv("NOTIFY_SOCKET"); }
  static void point_at(const std::string& value) { ::setenv("NOTIFY_SOCKET", value.c_str(), 1); }

  std::filesystem::path dir_ = [] {
    std::string pattern = (std::filesystem::temp_directory_path() / "gpumeter-notify-XXXXXX");
    return std::filesystem::path(::mkdtemp(pattern.data()));
  }();
  ~NotifySocket() override { std::filesystem::remove_all(dir_); }
};

TEST_F(NotifySocket, WithoutTheVariableNothingIsSent) {
  ::unsetenv("NOTIFY_SOCKET");
  EXPECT_FALSE(notify_systemd("READY=1"));
}

TEST_F(NotifySocket, APathSocketReceivesTheStateAsSent) {
  const std::string path = dir_ / "notify";
  const Listener listener(path);
  ASSERT_TRUE(listener.bound());
  point_at(path);
  EXPECT_TRUE(notify_systemd("READY=1\nSTATUS=sampling"));
  EXPECT_EQ(listener.next(), "READY=1\nSTATUS=sampling");
  EXPECT_TRUE(notify_systemd("STOPPING=1"));
  EXPECT_EQ(listener.next(), "STOPPING=1");
}

TEST_F(NotifySocket, AnAbstractSocketIsNamedWithAnAt) {
  const std::string name = "@gpumeter-notify-test-" + std::to_string(::getpid());
  const Listener listener(name);
  ASSERT_TRUE(listener.bound());
  point_at(name);
  EXPECT_TRUE(notify_systemd("READY=1"));
  EXPECT_EQ(listener.next(), "READY=1");
}

// A manager that went away, or a variable that names no socket, is no error: the daemon runs
// on, and the manager decides by its timeout.
TEST_F(NotifySocket, NoListenerOrABadValueIsNotSentAndNoError) {
  for (const std::string& value :
       {(dir_ / "nobody-listens").string(), std::string("relative/path"), std::string("@"),
        std::string("/"), "/" + std::string(200, 'x')}) {
    point_at(value);
    EXPECT_FALSE(notify_systemd("READY=1")) << value;
  }
}

}  // namespace gpumeter::daemon::systemd_notify_test
