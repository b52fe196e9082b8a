#include "task/connection.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <utility>

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
      input_(limits.line_bytes) {}

Connection::Connection(Connection&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      caller_(other.caller_),
      pending_limit_(other.pending_limit_),
      input_(std::move(other.input_)),
      slots_(std::move(other.slots_)),
      output_(std::move(other.output_)),
      reading_(other.reading_),
      closing_(other.closing_),
      failed_(other.failed_),
      peer_gone_(other.peer_gone_) {}

Connection& Connection::operator=(Connection&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    caller_ = other.caller_;
    pending_limit_ = other.pending_limit_;
    input_ = std::move(other.input_);
    slots_ = std::move(other.slots_);
    output_ = std::move(other.output_);
    reading_ = other.reading_;
    closing_ = other.closing_;
    failed_ = other.failed_;
    peer_gone_ = other.peer_gone_;
  }
  return *this;
}

Connection::~Connection() {
  if (fd_ >= 0) ::close(fd_);
}

short Connection::events() const noexcept {
  short events = 0;
  if (reading_ && input_.wants_more() && output_.size() < kOutputBacklogBytes) events |= POLLIN;
  if (!output_.empty()) events |= POLLOUT;
  return events;
}

void Connection::receive() {
  std::array<char, kReadBytes> buffer{};
  const ssize_t got = ::recv(fd_, buffer.data(), buffer.size(), MSG_DONTWAIT);
  if (got > 0) {
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
  }
}

void Connection::queue(Outcome outcome) {
  if (outcome.close) {
    // Nothing after this request is read or carried out.
    reading_ = false;
    closing_ = true;
  }
  slots_.push_back(
      Slot{std::move(outcome.reply), outcome.waiting, std::move(outcome.id), outcome.close});
}

void Connection::resolve(const Task& settled) {
  for (Slot& slot : slots_) {
    if (slot.waiting == settled.id) {
      slot.text = Service::end_reply_for(slot.id, settled);
      slot.waiting.reset();
    }
  }
}

void Connection::flush_slots() {
  while (!slots_.empty() && !slots_.front().waiting) {
    output_ += slots_.front().text;
    slots_.pop_front();
  }
}

void Connection::send() {
  flush_slots();
  while (!output_.empty() && !failed_) {
    const ssize_t sent = ::send(fd_, output_.data(), output_.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    if (sent < 0) {
      if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) failed_ = true;
      return;
    }
    output_.erase(0, static_cast<std::size_t>(sent));
  }
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
