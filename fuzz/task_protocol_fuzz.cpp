// SPDX-License-Identifier: MIT
// The task protocol (src/task; docs/task-protocol.md): the bytes a client sends on the Unix
// socket, cut into lines by LineBuffer and parsed by parse_request, as a connection does.
// The first byte picks the sizes of the reads the bytes arrive in, so that lines split
// across reads are exercised. Promise: every line parses or gives an error reply; the buffer
// never holds more than a line's limit plus one read; a request honours the limits; an error
// reply is one line.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>

#include "fuzz_check.h"
#include "task/limits.h"
#include "task/line_buffer.h"
#include "task/protocol.h"

namespace {

using namespace gpumeter;

// Small limits, so that the fuzzer reaches every "too large" path with short inputs.
constexpr task::Limits kLimits{.line_bytes = 512,
                               .name_bytes = 32,
                               .labels = 4,
                               .label_key_bytes = 16,
                               .label_value_bytes = 32,
                               .id_bytes = 32};

void check_request(const task::Request& request) {
  if (const auto* begin = std::get_if<task::BeginRequest>(&request.op)) {
    fuzz::check(begin->name.size() <= kLimits.name_bytes, "task: name over its limit");
    fuzz::check(begin->labels.size() <= kLimits.labels, "task: too many labels");
  }
}

void parse_line(const std::string& line) {
  if (task::is_blank(line)) return;
  const auto request = task::parse_request(line, kLimits);
  if (request) {
    check_request(*request);
  } else {
    // One reply is one line, whatever the request echoed into it.
    const auto reply = task::error_reply(request.error());
    fuzz::check(reply.ends_with('\n') && std::ranges::count(reply, '\n') == 1,
                "task: an error reply that is not one line");
  }
}

// Drains every complete line; false once the buffer gave up on a too long line.
bool drain(task::LineBuffer& buffer) {
  std::string line;
  for (;;) {
    switch (buffer.next(line)) {
      case task::LineBuffer::Next::line:
        fuzz::check(line.size() <= kLimits.line_bytes, "task: line over the limit");
        parse_line(line);
        break;
      case task::LineBuffer::Next::need_more: return true;
      case task::LineBuffer::Next::too_large: return false;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t read_size = 1 + data[0] % 97;
  auto bytes = fuzz::text_of(data + 1, size - 1);
  task::LineBuffer buffer(kLimits.line_bytes);
  while (!bytes.empty() && buffer.wants_more()) {
    const auto chunk = bytes.substr(0, std::min(read_size, bytes.size()));
    buffer.append(chunk);
    bytes.remove_prefix(chunk.size());
    fuzz::check(buffer.buffered() <= kLimits.line_bytes + 1 + read_size, "task: buffer grew");
    if (!drain(buffer)) return 0;
  }
  buffer.finish();
  drain(buffer);
  return 0;
}
