// SPDX-License-Identifier: MIT
#include "task/line_buffer.h"

namespace gpumeter::task {

LineBuffer::Next LineBuffer::next(std::string& line) {
  const std::size_t newline = data_.find('\n', start_);
  if (newline == std::string::npos) {
    return buffered() > max_ ? Next::too_large : Next::need_more;
  }
  std::size_t length = newline - start_;
  if (length > 0 && data_[newline - 1] == '\r') --length;
  if (length > max_) return Next::too_large;
  line.assign(data_, start_, length);
  start_ = newline + 1;
  // Drop consumed bytes once they are half the buffer, so that copying stays amortised.
  if (start_ * 2 >= data_.size()) {
    data_.erase(0, start_);
    start_ = 0;
  }
  return Next::line;
}

bool LineBuffer::wants_more() const noexcept {
  return buffered() <= max_ && !has_line();
}

void LineBuffer::finish() {
  if (buffered() > 0 && data_.back() != '\n') data_ += '\n';
}

}  // namespace gpumeter::task
