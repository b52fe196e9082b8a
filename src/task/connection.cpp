// SPDX-License-Identifier: MIT
#include "task/connection.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <utility>

#include "task/heap_release.h"

namespace gpumeter::task {
namespace {

constexpr std::size_t kReadBytes = 16'384;
// Replies not yet taken by the peer: past this, its requests wait (a query reply may be
// several MiB, so this bounds the backlog, not one reply).
constexpr std::size_t kOutputBacklogBytes = 1U << 20U;

}  // namespace

Connection::Connection(int fd, Caller caller, const Limits& limits)
    : fd_(fd),
      caller_(caller),
      pending_limit_(limits.pending_requests_per_connection),
      unsent_limit_(limits.unsent_bytes_per_connection),
      stalled_after_(limits.stalled_ms),
      input_(limits.line_bytes) {}

short Connection::events() const noexcept {
  short events = 0;
  if (reading_ && input_.wants_more() && output_.size() < kOutputBacklogBytes) events |= POLLIN;
  if (!output_.empty()) events |= POLLOUT;
  return events;
}

void Connection::receive() {
  std::array<char, kReadBytes> buffer{};
  const ssize_t got = ::recv(fd_.get(), buffer.data(), buffer.size(), MSG_DONTWAIT);
  if (got > 0) {
    last_progress_ = std::chrono::steady_clock::now();
    input_.append({buffer.data(), static_cast<std::size_t>(got)});
  } else if (got == 0) {
    reading_ = false;  // the peer will send no more; it may still read what it is owed
    input_.finish();
  } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
    failed_ = true;
  }
}

bool Connection::takes_requests() const noexcept {
  if (closing_ || failed_) return false;
  if (peer_gone_) return true;  // its input is bounded, and no reply will be kept
  return slots_.size() < pending_limit_ && output_.size() < kOutputBacklogBytes;
}

void Connection::handle_lines(Service& service, TimeUs now_us) {
  std::string line;
  while (takes_requests()) {
    const LineBuffer::Next next = input_.next(line);
    if (next == LineBuffer::Next::need_more) return;
    if (next == LineBuffer::Next::too_large) {
      queue(service.too_large());
      return;
    }
    if (is_blank(line)) continue;
    Outcome outcome = service.handle(line, caller_, now_us);
    if (!peer_gone_) queue(std::move(outcome));
    // Checked at once, not after the lines: a batch of pipelined queries would pass it far.
    if (unsent_bytes() > unsent_limit_) drop();
  }
}

void Connection::queue(Outcome outcome) {
  if (outcome.close) {
    // Nothing after this request is read or carried out.
    reading_ = false;
    closing_ = true;
  }
  if (!outcome.waiting) ready_bytes_ += outcome.reply.size();
  slots_.push_back(
      Slot{std::move(outcome.reply), outcome.waiting, std::move(outcome.id), outcome.close});
}

void Connection::resolve(const Task& settled) {
  for (Slot& slot : slots_) {
    if (slot.waiting == settled.id) {
      slot.text = Service::end_reply_for(slot.id, settled);
      slot.waiting.reset();
      ready_bytes_ += slot.text.size();
    }
  }
}

void Connection::flush_slots() {
  // Owed output starts the stall clock afresh: a client idle for an hour is not stalled yet.
  if (output_.empty() && !slots_.empty() && !slots_.front().waiting) {
    last_progress_ = std::chrono::steady_clock::now();
  }
  while (!slots_.empty() && !slots_.front().waiting) {
    ready_bytes_ -= std::min(ready_bytes_, slots_.front().text.size());
    output_ += slots_.front().text;
    slots_.pop_front();
  }
}

void Connection::release_output() {
  if (output_.capacity() < kLargeOutputBytes) return;
  std::string().swap(output_);
  release_free_heap();
}

void Connection::send() {
  flush_slots();
  while (!output_.empty() && !failed_) {
    const ssize_t sent =
        ::send(fd_.get(), output_.data(), output_.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    if (sent < 0) {
      if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) failed_ = true;
      return;
    }
    if (sent > 0) last_progress_ = std::chrono::steady_clock::now();
    output_.erase(0, static_cast<std::size_t>(sent));
  }
  if (output_.empty()) release_output();
}

bool Connection::drop_if_stuck(std::chrono::steady_clock::time_point now) {
  if (failed_) return false;
  // Only output it could take counts: replies behind an end still waiting for its figures
  // are the daemon's delay, not the client's.
  const bool owed = !output_.empty();
  const bool partial = reading_ && input_.buffered() > 0 && !input_.has_line();
  const bool stalled = (owed || partial) && now - last_progress_ >= stalled_after_;
  if (unsent_bytes() <= unsent_limit_ && !stalled) return false;
  drop();
  return true;
}

void Connection::drop() {
  failed_ = true;
  // What it was owed goes with it: that is the memory the limit protects.
  slots_.clear();
  ready_bytes_ = 0;
  output_.clear();
  release_output();
}

bool Connection::finished() const noexcept {
  if (failed_) return true;
  if (peer_gone_) return closing_ || !input_.has_line();
  const bool owes_nothing = slots_.empty() && output_.empty();
  if (closing_) return owes_nothing;
  // After the peer's EOF: done once every complete line is answered.
  if (!reading_) return owes_nothing && !input_.has_line();
  return false;
}

}  // namespace gpumeter::task
