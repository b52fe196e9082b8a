// SPDX-License-Identifier: MIT
// Deadlines on the HTTP server's connections that the HTTP library does not keep: a whole
// request head must arrive within a time from the connection's start or the previous
// response's end (so that a client sending a header line now and then, which resets an
// inactivity timeout, cannot hold a connection for ever), and a response must be written
// within a time. One thread checks them a few times a second and shuts a late connection's
// socket down, which the library then sees as closed by the client.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <unordered_set>

namespace gpumeter::net {

struct ConnectionDeadlines {
  std::chrono::milliseconds request{10'000};   // from start or last response to a whole head
  std::chrono::milliseconds response{60'000};  // from a whole head to the response written
};

class ConnectionWatch {
 public:
  // One watched connection. Created by opened(), destroyed by closed().
  class Watched {
   public:
    explicit Watched(int fd);
    void request_line_read() noexcept;  // a request line was parsed
    void request_read() noexcept;       // a whole request head arrived: the response's clock starts
    // The response is written: the next request's clock starts. Notes the bytes received so
    // far, which unparsed_bytes() compares with.
    void response_sent() noexcept;

    int fd() const noexcept { return fd_; }
    bool cut() const noexcept { return cut_; }  // closed for a deadline
    // Whether bytes arrived after the last response that never became a request line: what
    // the library closes a connection for, without an answer, when a request line has no
    // method and target (it answers 400 to the other malformed requests itself).
    bool unparsed_bytes() const noexcept;
    std::chrono::milliseconds quiet() const noexcept;  // since the last byte received

   private:
    friend class ConnectionWatch;
    int fd_;
    std::atomic<std::int64_t> since_ns_;
    std::atomic<bool> responding_{false};
    std::atomic<bool> in_request_{false};
    std::uint64_t answered_bytes_ = 0;  // only the connection's event loop touches it
    std::atomic<bool> cut_{false};
  };

  explicit ConnectionWatch(ConnectionDeadlines deadlines);
  ~ConnectionWatch();  // stops the thread
  ConnectionWatch(const ConnectionWatch&) = delete;
  ConnectionWatch& operator=(const ConnectionWatch&) = delete;

  // A new connection on socket `fd`; the caller must call closed() before the socket is closed.
  Watched* opened(int fd);
  void closed(Watched* connection);

  std::size_t open_connections() const;
  std::uint64_t cut_connections() const noexcept { return cut_total_; }

 private:
  void run();
  void cut_late(std::int64_t now_ns);

  ConnectionDeadlines deadlines_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::unordered_set<Watched*> connections_;
  std::atomic<std::uint64_t> cut_total_{0};
  std::thread thread_;
};

}  // namespace gpumeter::net
