// SPDX-License-Identifier: MIT
// Fake agents for the master's tests and benchmark: real httplib servers on loopback ports,
// each answering GET /api/v1/status (under optional path prefixes) with a handler of the
// test's choosing, and status documents rendered by the real `list --json` renderer.
#pragma once

#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

#include "master/node.h"
#include "support/sample_snapshot.h"
#include "view/json.h"
#include "view/list_json.h"

namespace gpumeter::master::testing {

// A status document as an agent serves it: the sample machine of the CLI's tests, read at
// `time_us`, from `host`.
inline std::string status_body(const std::string& host, std::int64_t time_us) {
  Snapshot snapshot = cli::testing::sample_snapshot();
  snapshot.hostname = host;
  snapshot.time_us = time_us;
  return view::dump_json(view::list_json(snapshot), true);
}

// One httplib server on 127.0.0.1, any free port, serving until destroyed.
class FakeServer {
 public:
  explicit FakeServer(std::size_t threads = 8) {
    server_.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
    port_ = server_.bind_to_any_port("127.0.0.1");
    if (port_ <= 0) throw std::runtime_error("cannot bind a loopback port");
  }
  ~FakeServer() {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }
  FakeServer(const FakeServer&) = delete;
  FakeServer& operator=(const FakeServer&) = delete;

  // Routes are added before start().
  httplib::Server& routes() { return server_; }
  void start() {
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    // The socket already listens (connections wait in its backlog); this only makes sure that
    // stop() finds the server running, or it would not end the accept loop.
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  int port() const { return port_; }
  std::string url(const std::string& prefix = "") const {
    return "http://127.0.0.1:" + std::to_string(port_) + prefix;
  }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

// An agent whose GET /api/v1/status runs `handler`, counting requests.
class FakeAgent {
 public:
  explicit FakeAgent(httplib::Server::Handler handler) {
    server_.routes().Get("/api/v1/status",
                         [this, handler = std::move(handler)](const httplib::Request& request,
                                                              httplib::Response& response) {
                           ++requests_;
                           handler(request, response);
                         });
    server_.start();
  }
  std::string url() const { return server_.url(); }
  int requests() const { return requests_.load(); }

 private:
  std::atomic<int> requests_{0};
  FakeServer server_;
};

// Handlers for the usual agents.
inline httplib::Server::Handler serves_status(const std::string& host, std::int64_t time_us) {
  return [body = status_body(host, time_us)](const httplib::Request&, httplib::Response& response) {
    response.set_content(body, "application/json");
  };
}

inline httplib::Server::Handler serves(int status, std::string body, std::string type) {
  return [=](const httplib::Request&, httplib::Response& response) {
    response.status = status;
    response.set_content(body, type);
  };
}

// Answers only after `gate` opens or `longest` passes: an agent slower than the master's
// timeout. Opening the gate lets the server stop at once when the test ends.
class Gate {
 public:
  void open() {
    const std::lock_guard lock(mutex_);
    open_ = true;
    opened_.notify_all();
  }
  void wait(std::chrono::milliseconds longest) {
    std::unique_lock lock(mutex_);
    opened_.wait_for(lock, longest, [this] { return open_; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable opened_;
  bool open_ = false;
};

// A loopback port with nothing listening: connections to it are refused.
inline int closed_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  // Port 0 binds a free port; closing the socket leaves it free, and unlistened.
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    ::close(fd);
    throw std::runtime_error("cannot find a free port");
  }
  ::close(fd);
  return ntohs(address.sin_port);
}

}  // namespace gpumeter::master::testing
