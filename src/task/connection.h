// SPDX-License-Identifier: MIT
// One client connection of the task server: its peer, its input split into lines, its
// replies in request order (some waiting for a task's figures) and its unsent output.
// Non-blocking; the server's poll loop drives it.
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <optional>
#include <string>

#include "core/unique_fd.h"
#include "task/line_buffer.h"
#include "task/service.h"

namespace gpumeter::task {

class Connection {
 public:
  // Takes ownership of the connected socket `fd`.
  Connection(int fd, Caller caller, const Limits& limits);
  Connection(Connection&& other) noexcept = default;
  Connection& operator=(Connection&& other) noexcept = default;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection() = default;

  int fd() const noexcept { return fd_.get(); }
  // What to poll for: input while it may read more, output while some is unsent.
  short events() const noexcept;

  // Reads once from the peer. An orderly close by the peer stops reading; the replies still
  // owed are sent if the peer still reads.
  void receive();
  // The peer closed its end for good (poll said so without input): the requests it sent are
  // still carried out, but nobody is left to answer.
  void hang_up() noexcept { peer_gone_ = true; }
  // Carries out the complete lines received, while fewer replies than the limit are owed.
  void handle_lines(Service& service, TimeUs now_us);
  // Fills the replies that wait for `settled`.
  void resolve(const Task& settled);
  // Moves the replies that are ready, in order, to the output, and writes what the peer takes.
  void send();
  // Drops the client (it is finished) when its unsent replies pass the limit, or when it has
  // taken no output it is owed, or sent no byte of a request line it left unfinished, for
  // Limits::stalled_ms by `now`. Returns whether it was dropped now.
  bool drop_if_stuck(std::chrono::steady_clock::time_point now);

  // Complete lines are waiting that handle_lines() would carry out now (pipelined requests
  // beyond the pending limit, once their predecessors' replies went out): the server must not
  // sleep in poll(), as no new event would wake it for them.
  bool has_ready_lines() const noexcept { return takes_requests() && input_.has_line(); }

  // Nothing more will happen: the peer is gone, or it was told to go and has its replies.
  bool finished() const noexcept;

 private:
  struct Slot {
    std::string text;               // the reply, once ready
    std::optional<TaskId> waiting;  // the end reply waits for this task
    RequestId id;
    bool close_after = false;
  };

  bool takes_requests() const noexcept;
  void queue(Outcome outcome);
  void flush_slots();
  // Replies ready or in the output, not yet taken by the peer.
  std::size_t unsent_bytes() const noexcept { return output_.size() + ready_bytes_; }
  void release_output();
  void drop();

  UniqueFd fd_;
  Caller caller_;
  std::size_t pending_limit_ = 0;
  std::size_t unsent_limit_ = 0;
  std::chrono::milliseconds stalled_after_{0};
  // The last time the peer sent or took a byte, or began to be owed output.
  std::chrono::steady_clock::time_point last_progress_ = std::chrono::steady_clock::now();
  std::size_t ready_bytes_ = 0;  // text of the slots that are ready but not yet in output_
  LineBuffer input_;
  std::deque<Slot> slots_;
  std::string output_;
  bool reading_ = true;   // false after EOF, an error or a reply that closes
  bool closing_ = false;  // finish once the output is sent
  bool failed_ = false;
  bool peer_gone_ = false;
};

}  // namespace gpumeter::task
