// SPDX-License-Identifier: MIT
#include "task/server.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "support/fake_monitor.h"
#include "task/exchange.h"

namespace gpumeter::task::server_test {

using nlohmann::json;
using testing::FakeMonitor;
using testing::kSecond;

std::filesystem::path temporary_directory() {
  std::string pattern = (std::filesystem::temp_directory_path() / "gpumeter-task-XXXXXX").string();
  const char* made = ::mkdtemp(pattern.data());
  EXPECT_NE(made, nullptr);
  return made == nullptr ? std::filesystem::path{} : std::filesystem::path(made);
}

// A blocking client connection that gives up on a read after ten seconds.
class Client {
 public:
  explicit Client(const std::filesystem::path& socket) {
    auto fd = connect_to(socket);
    EXPECT_TRUE(fd.has_value()) << (fd ? "" : fd.error().message);
    fd_ = fd.value_or(-1);
    const timeval limit{.tv_sec = 10, .tv_usec = 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit));
  }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;
  ~Client() { ::close(fd_); }

  void send(const std::string& data) const {
    ASSERT_EQ(::send(fd_, data.data(), data.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(data.size()));
  }
  // The next reply line, or "" when the daemon closed the connection (or nothing came).
  std::string line() {
    while (pending_.find('\n') == std::string::npos) {
      std::array<char, 4096> buffer{};
      const ssize_t got = ::recv(fd_, buffer.data(), buffer.size(), 0);
      if (got <= 0) return {};
      pending_.append(buffer.data(), static_cast<std::size_t>(got));
    }
    const auto newline = pending_.find('\n');
    std::string line = pending_.substr(0, newline);
    pending_.erase(0, newline + 1);
    return line;
  }
  json ask(const std::string& request) {
    send(request + "\n");
    const std::string reply = line();
    EXPECT_FALSE(reply.empty()) << request;
    return reply.empty() ? json{} : json::parse(reply);
  }

 private:
  int fd_ = -1;
  std::string pending_;
};

class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = temporary_directory();
    socket_ = directory_ / "gpumeter.sock";
    monitor_.set_alive(static_cast<Pid>(::getpid()), 123, ::getuid());
  }
  void TearDown() override {
    stop();
    std::filesystem::remove_all(directory_);
  }

  void start(Limits limits = {}, std::chrono::milliseconds idle_poll = Server::kIdlePoll) {
    auto listener = Listener::open(socket_, 0600);
    ASSERT_TRUE(listener.has_value()) << (listener ? "" : listener.error().message);
    listener_.emplace(std::move(*listener));
    ServiceConfig config;
    config.limits = limits;
    config.interval_us = kSecond;
    service_.emplace(monitor_, config);
    server_.emplace(*service_, *listener_, limits, wall_clock_us, idle_poll);
    stop_fd_ = ::eventfd(0, EFD_CLOEXEC);
    thread_ = std::thread([this] { result_ = server_->run(stop_fd_); });
  }
  void stop() {
    if (!thread_.joinable()) return;
    const std::uint64_t one = 1;
    EXPECT_EQ(::write(stop_fd_, &one, sizeof(one)), static_cast<ssize_t>(sizeof(one)));
    thread_.join();
    ::close(stop_fd_);
    EXPECT_TRUE(result_.has_value());
  }

  std::filesystem::path directory_;
  std::filesystem::path socket_;
  FakeMonitor monitor_;
  std::optional<Listener> listener_;
  std::optional<Service> service_;
  std::optional<Server> server_;
  int stop_fd_ = -1;
  std::thread thread_;
  std::expected<void, Error> result_;
};

TEST_F(ServerTest, BeginAndEndOverTheSocketWithThePeersOwnCredentials) {
  start();
  Client client(socket_);
  const json begun = client.ask(R"({"op":"begin","name":"decode","id":1})");
  ASSERT_EQ(begun["ok"], true) << begun.dump();
  EXPECT_EQ(begun["pid"], ::getpid());
  client.send(R"({"op":"end","task":1,"id":2})"
              "\n");
  // The reply waits for a sampler round past the end.
  monitor_.set_round(wall_clock_us() + 60 * kSecond);
  const json ended = json::parse(client.line());
  EXPECT_EQ(ended["id"], 2);
  EXPECT_EQ(ended["state"], "ended");
  EXPECT_EQ(ended["uid"], ::getuid());
  EXPECT_DOUBLE_EQ(ended["usage"]["gpus"][0]["sm_percent"].get<double>(), 80.0);
}

TEST_F(ServerTest, RepliesKeepRequestOrderBehindAWaitingEnd) {
  start();
  Client client(socket_);
  client.ask(R"({"op":"begin","name":"a"})");
  client.send(R"({"op":"end","task":1,"id":"end"})"
              "\n"
              R"({"op":"begin","name":"b","id":"next"})"
              "\n");
  monitor_.set_round(wall_clock_us() + 60 * kSecond);
  EXPECT_EQ(json::parse(client.line())["id"], "end");
  EXPECT_EQ(json::parse(client.line())["id"], "next");
}

// More requests in one write than a connection may have pending: the ones beyond the limit are
// carried out as soon as the replies before them went out, not when poll() next times out. An
// idle poll of ten minutes makes a stall fail the client's ten-second read instead of slowing
// it down.
TEST_F(ServerTest, PipelinedRequestsBeyondThePendingLimitAreAnsweredWithoutATimer) {
  start({}, std::chrono::minutes(10));
  Client client(socket_);
  constexpr int kRequests = 1000;
  std::string requests;
  for (int i = 1; i <= kRequests; ++i)
    requests += fmt::format(R"({{"op":"status","id":{}}})"
                            "\n",
                            i);
  client.send(requests);
  for (int i = 1; i <= kRequests; ++i) {
    const std::string reply = client.line();
    ASSERT_FALSE(reply.empty()) << "no reply to request " << i;
    ASSERT_EQ(json::parse(reply)["id"], i);
  }
}

TEST_F(ServerTest, GarbageGetsErrorRepliesAndTheServerKeepsServing) {
  start();
  Client client(socket_);
  client.send("\n   \n");  // blank lines are not answered
  for (const std::string garbage : {"hello", "{]", "\x01\x02\xff", R"({"op":"nope"})"}) {
    const json reply = client.ask(garbage);
    EXPECT_EQ(reply["ok"], false) << garbage;
  }
  EXPECT_EQ(client.ask(R"({"op":"status"})")["ok"], true);
}

TEST_F(ServerTest, AnOversizedLineIsRefusedAndTheConnectionClosed) {
  Limits limits;
  limits.line_bytes = 1000;
  start(limits);
  Client client(socket_);
  client.send(std::string(5000, 'x'));
  const json reply = json::parse(client.line());
  EXPECT_EQ(reply["error"]["code"], "too_large");
  EXPECT_EQ(client.line(), "") << "the connection is closed";
  Client next(socket_);
  EXPECT_EQ(next.ask(R"({"op":"status"})")["ok"], true);
}

TEST_F(ServerTest, ConnectionsOverTheLimitAreTurnedAway) {
  Limits limits;
  limits.connections = 1;
  start(limits);
  Client first(socket_);
  EXPECT_EQ(first.ask(R"({"op":"status"})")["ok"], true);
  Client second(socket_);
  const std::string reply = second.line();
  ASSERT_FALSE(reply.empty());
  EXPECT_EQ(json::parse(reply)["error"]["code"], "limit_reached");
  EXPECT_EQ(first.ask(R"({"op":"status"})")["ok"], true);
}

// Reads until the daemon closes the connection; false when ten seconds pass first.
bool closed_by_daemon(Client& client) {
  for (int lines = 0; lines < 100'000; ++lines) {
    if (client.line().empty()) return true;
  }
  return false;
}

TEST_F(ServerTest, AClientWhoseUnsentRepliesPassTheLimitIsDropped) {
  Limits limits;
  limits.unsent_bytes_per_connection = 8 * 1024;
  start(limits);
  Client greedy(socket_);
  std::string requests;
  for (int i = 0; i < 60; ++i)
    requests += R"({"op":"status"})"
                "\n";  // ~1 KiB replies
  greedy.send(requests);
  EXPECT_TRUE(closed_by_daemon(greedy));
  Client next(socket_);
  EXPECT_EQ(next.ask(R"({"op":"status"})")["ok"], true);
}

TEST_F(ServerTest, AClientThatLeavesALineUnfinishedIsDroppedAnIdleOneKept) {
  Limits limits;
  limits.stalled_ms = 300;
  start(limits);
  Client idle(socket_);
  EXPECT_EQ(idle.ask(R"({"op":"status"})")["ok"], true);
  Client stalled(socket_);
  stalled.send(R"({"op":"sta)");
  EXPECT_EQ(stalled.line(), "") << "closed, with no reply";
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  EXPECT_EQ(idle.ask(R"({"op":"status"})")["ok"], true) << "owing nothing, it stays";
}

TEST_F(ServerTest, RequestsOfAPeerThatHungUpAreStillCarriedOut) {
  start();
  {
    Client fire_and_forget(socket_);
    fire_and_forget.send(R"({"op":"begin","name":"left"})"
                         "\n");
  }
  Client client(socket_);
  for (int attempt = 0; attempt < 200; ++attempt) {
    if (client.ask(R"({"op":"status"})")["tasks"]["begun"] == 1) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(client.ask(R"({"op":"query"})")["open"][0]["name"], "left");
}

TEST_F(ServerTest, StoppingAnswersWaitingEndsAndRemovesTheSocket) {
  start();
  Client client(socket_);
  client.ask(R"({"op":"begin","name":"a"})");
  client.send(R"({"op":"end","task":1,"id":"last"})"
              "\n");
  // The sampler never passes the end; stopping settles it with what there is.
  Client observer(socket_);
  for (int attempt = 0; attempt < 200; ++attempt) {
    if (observer.ask(R"({"op":"status"})")["tasks"]["open"] == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  stop();
  EXPECT_FALSE(std::filesystem::exists(socket_));
  const json ended = json::parse(client.line());
  EXPECT_EQ(ended["id"], "last");
  EXPECT_EQ(ended["state"], "ended");
  EXPECT_EQ(client.line(), "") << "closed";
}

TEST(Listener, SocketFileHasTheChosenMode) {
  const auto directory = temporary_directory();
  for (const mode_t mode : {0600U, 0660U}) {
    const auto path = directory / "mode.sock";
    auto listener = Listener::open(path, mode);
    ASSERT_TRUE(listener.has_value());
    struct stat status{};
    ASSERT_EQ(::lstat(path.c_str(), &status), 0);
    EXPECT_TRUE(S_ISSOCK(status.st_mode));
    EXPECT_EQ(status.st_mode & 0777U, mode);
  }
  std::filesystem::remove_all(directory);
}

TEST(Listener, RefusesToReplaceALiveSocket) {
  const auto directory = temporary_directory();
  const auto path = directory / "live.sock";
  auto first = Listener::open(path, 0600);
  ASSERT_TRUE(first.has_value());
  const auto second = Listener::open(path, 0600);
  ASSERT_FALSE(second.has_value());
  EXPECT_NE(second.error().message.find("another gpumeter daemon"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(path));
  std::filesystem::remove_all(directory);
}

TEST(Listener, ReplacesAStaleSocket) {
  const auto directory = temporary_directory();
  const auto path = directory / "stale.sock";
  {
    // A socket bound and abandoned, as a killed daemon leaves it.
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, path.c_str(), sizeof(address.sun_path) - 1);
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast)
    ASSERT_EQ(::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)), 0);
    ::close(fd);
  }
  ASSERT_TRUE(std::filesystem::exists(path));
  const auto listener = Listener::open(path, 0600);
  EXPECT_TRUE(listener.has_value()) << (listener ? "" : listener.error().message);
  std::filesystem::remove_all(directory);
}

TEST(Listener, NeverRemovesAFileThatIsNotASocket) {
  const auto directory = temporary_directory();
  const auto path = directory / "precious.txt";
  std::ofstream(path) << "keep me";
  const auto listener = Listener::open(path, 0600);
  ASSERT_FALSE(listener.has_value());
  EXPECT_NE(listener.error().message.find("not a socket"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(path));
  std::filesystem::remove_all(directory);
}

TEST(Listener, CloseRemovesOnlyItsOwnSocket) {
  const auto directory = temporary_directory();
  const auto path = directory / "own.sock";
  auto listener = Listener::open(path, 0600);
  ASSERT_TRUE(listener.has_value());
  listener->close();
  EXPECT_FALSE(std::filesystem::exists(path));
  std::ofstream(path) << "someone else's";
  listener->close();  // idempotent, and the new file is not its own
  EXPECT_TRUE(std::filesystem::exists(path));
  std::filesystem::remove_all(directory);
}

TEST(Listener, ATooLongPathIsRefused) {
  const auto listener = Listener::open(std::filesystem::path("/tmp") / std::string(200, 'p'), 0600);
  ASSERT_FALSE(listener.has_value());
  EXPECT_EQ(listener.error().code, ErrorCode::invalid_input);
}

TEST(Exchange, SaysWhenNoDaemonIsRunning) {
  const auto directory = temporary_directory();
  const auto reply = exchange(directory / "nobody.sock", R"({"op":"status"})");
  ASSERT_FALSE(reply.has_value());
  EXPECT_NE(reply.error().message.find("no gpumeter daemon is running"), std::string::npos);
  std::filesystem::remove_all(directory);
}

TEST_F(ServerTest, ExchangeSendsOneRequestAndReadsItsReply) {
  start();
  const auto reply = exchange(socket_, R"({"op":"status","id":5})");
  ASSERT_TRUE(reply.has_value()) << (reply ? "" : reply.error().message);
  EXPECT_EQ(json::parse(*reply)["id"], 5);
}

}  // namespace gpumeter::task::server_test
