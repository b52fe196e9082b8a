// SPDX-License-Identifier: MIT
// Splits a connection's byte stream into request lines, holding at most one line's limit of
// unread bytes plus one read: a peer that never sends a newline cannot make it grow.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace gpumeter::task {

class LineBuffer {
 public:
  explicit LineBuffer(std::size_t max_line_bytes) : max_(max_line_bytes) {}

  enum class Next : std::uint8_t {
    line,       // `line` holds the next line, without its newline (and a '\r' before it)
    need_more,  // no complete line yet
    too_large,  // the next line is longer than the limit; the buffer is of no further use
  };
  Next next(std::string& line);

  // Whether to read more from the peer: only when no complete line waits and the partial
  // line is still within the limit.
  bool wants_more() const noexcept;

  // Appends bytes read from the peer.
  void append(std::string_view bytes) { data_.append(bytes); }

  // The peer sent its last byte: a final line without a newline still counts.
  void finish();

  std::size_t buffered() const noexcept { return data_.size() - start_; }
  bool has_line() const noexcept { return data_.find('\n', start_) != std::string::npos; }

 private:
  std::size_t max_;
  std::string data_;
  std::size_t start_ = 0;  // bytes of data_ already consumed
};

}  // namespace gpumeter::task
