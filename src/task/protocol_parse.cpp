// SPDX-License-Identifier: MIT
#include <fmt/format.h>

#include <array>
#include <limits>
#include <nlohmann/json.hpp>
#include <utility>

#include "task/protocol.h"

namespace gpumeter::task {
namespace {

using nlohmann::json;

// Task ids and times stay below 2^53 so that readers holding numbers as doubles keep them.
constexpr std::int64_t kMaxExactInteger = (std::int64_t{1} << 53) - 1;
// No request nests deeper than labels inside the request; a little slack for error messages.
constexpr int kMaxDepth = 4;

ReplyError make_error(ReplyCode code, std::string message, RequestId id = {}) {
  return ReplyError{code, std::move(message), std::move(id)};
}

// Counts brackets outside strings, so that a line of 60,000 '[' is refused before the parser
// builds (and later destroys) a tree that deep.
bool nesting_within(std::string_view line, int max_depth) noexcept {
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (const char c : line) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return false;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return true;
}

// nlohmann's messages start with "[json.exception.parse_error.101] "; people need the rest.
std::string parser_message(const char* what) {
  const std::string_view text(what);
  const auto end_of_tag = text.find("] ");
  return std::string(end_of_tag == std::string_view::npos ? text : text.substr(end_of_tag + 2));
}

std::expected<json, ReplyError> parse_object(std::string_view line) {
  if (!nesting_within(line, kMaxDepth)) {
    return std::unexpected(make_error(ReplyCode::bad_request, "the request nests too deeply"));
  }
  json doc;
  try {
    doc = json::parse(line);
  } catch (const json::exception& error) {
    return std::unexpected(make_error(ReplyCode::bad_request,
                                      fmt::format("not JSON: {}", parser_message(error.what()))));
  }
  if (!doc.is_object()) {
    return std::unexpected(make_error(ReplyCode::bad_request, "a request is a JSON object"));
  }
  return doc;
}

std::expected<RequestId, ReplyError> read_id(const json& doc, const Limits& limits) {
  const auto it = doc.find("id");
  if (it == doc.end()) return RequestId{};
  if (it->is_number_integer() &&
      !(it->is_number_unsigned() &&
        it->get<std::uint64_t>() > std::numeric_limits<std::int64_t>::max())) {
    return RequestId{it->get<std::int64_t>()};
  }
  if (it->is_string() && it->get_ref<const std::string&>().size() <= limits.id_bytes) {
    return RequestId{it->get<std::string>()};
  }
  return std::unexpected(make_error(
      ReplyCode::bad_request,
      fmt::format("\"id\" must be an integer or a string of at most {} bytes", limits.id_bytes)));
}

// Reads the fields of one request; every error carries the request's id.
class Fields {
 public:
  Fields(const json& doc, RequestId id) : doc_(doc), id_(std::move(id)) {}

  ReplyError bad(std::string message) const {
    return make_error(ReplyCode::bad_request, std::move(message), id_);
  }
  const RequestId& id() const noexcept { return id_; }
  const json* find(std::string_view key) const {
    const auto it = doc_.find(key);
    return it == doc_.end() ? nullptr : &*it;
  }

  std::expected<void, ReplyError> only(std::span<const std::string_view> allowed) const;
  std::expected<std::string, ReplyError> text(std::string_view key, std::size_t max_bytes) const;
  std::expected<std::optional<std::int64_t>, ReplyError> integer(std::string_view key,
                                                                 std::int64_t min,
                                                                 std::int64_t max) const;
  std::expected<std::optional<bool>, ReplyError> boolean(std::string_view key) const;

 private:
  const json& doc_;
  RequestId id_;
};

std::expected<void, ReplyError> Fields::only(std::span<const std::string_view> allowed) const {
  for (const auto& [key, value] : doc_.items()) {
    if (key == "op" || key == "id" || key == "v") continue;
    if (std::ranges::find(allowed, std::string_view(key)) == allowed.end()) {
      return std::unexpected(bad(fmt::format("unknown key \"{}\" for op \"{}\"", key,
                                             doc_["op"].get_ref<const std::string&>())));
    }
  }
  return {};
}

std::expected<std::string, ReplyError> Fields::text(std::string_view key,
                                                    std::size_t max_bytes) const {
  const json* value = find(key);
  if (value == nullptr) return std::unexpected(bad(fmt::format("missing \"{}\"", key)));
  if (!value->is_string()) return std::unexpected(bad(fmt::format("\"{}\" must be a string", key)));
  const auto& text = value->get_ref<const std::string&>();
  if (text.empty() || text.size() > max_bytes) {
    return std::unexpected(bad(fmt::format("\"{}\" must hold 1 to {} bytes", key, max_bytes)));
  }
  return text;
}

std::expected<std::optional<std::int64_t>, ReplyError> Fields::integer(std::string_view key,
                                                                       std::int64_t min,
                                                                       std::int64_t max) const {
  const json* value = find(key);
  if (value == nullptr) return std::optional<std::int64_t>{};
  const bool fits = value->is_number_integer() &&
                    !(value->is_number_unsigned() &&
                      value->get<std::uint64_t>() > static_cast<std::uint64_t>(max));
  if (!fits || value->get<std::int64_t>() < min || value->get<std::int64_t>() > max) {
    return std::unexpected(
        bad(fmt::format("\"{}\" must be an integer from {} to {}", key, min, max)));
  }
  return value->get<std::int64_t>();
}

std::expected<std::optional<bool>, ReplyError> Fields::boolean(std::string_view key) const {
  const json* value = find(key);
  if (value == nullptr) return std::optional<bool>{};
  if (!value->is_boolean())
    return std::unexpected(bad(fmt::format("\"{}\" must be true or false", key)));
  return value->get<bool>();
}

std::expected<Labels, ReplyError> read_labels(const Fields& fields, const Limits& limits) {
  const json* value = fields.find("labels");
  if (value == nullptr) return Labels{};
  if (!value->is_object() || value->size() > limits.labels) {
    return std::unexpected(fields.bad(
        fmt::format("\"labels\" must be an object of at most {} strings", limits.labels)));
  }
  Labels labels;
  std::size_t bytes = 0;
  for (const auto& [key, text] : value->items()) {
    if (key.empty() || key.size() > limits.label_key_bytes || !text.is_string() ||
        text.get_ref<const std::string&>().size() > limits.label_value_bytes) {
      return std::unexpected(fields.bad(fmt::format(
          "label keys must hold 1 to {} bytes and values be strings of at most {} bytes",
          limits.label_key_bytes, limits.label_value_bytes)));
    }
    bytes += key.size() + text.get_ref<const std::string&>().size();
    if (bytes > limits.labels_bytes) {
      return std::unexpected(fields.bad(fmt::format(
          "label keys and values may hold at most {} bytes together", limits.labels_bytes)));
    }
    labels.emplace(key, text.get<std::string>());
  }
  return labels;
}

// "rusage": {"user_us": U, "system_us": S}, the caller's own CPU time (getrusage).
std::expected<std::optional<CpuTimes>, ReplyError> read_rusage(const Fields& fields) {
  const json* value = fields.find("rusage");
  if (value == nullptr) return std::optional<CpuTimes>{};
  constexpr std::string_view kExpected =
      "\"rusage\" must be {\"user_us\": N, \"system_us\": N} with integers from 0 to 2^53";
  if (!value->is_object() || value->size() != 2)
    return std::unexpected(fields.bad(std::string(kExpected)));
  CpuTimes times;
  for (const auto& [key, field] : value->items()) {
    const bool fits = field.is_number_unsigned() &&
                      field.get<std::uint64_t>() <= static_cast<std::uint64_t>(kMaxExactInteger);
    std::int64_t* target = key == "user_us"     ? &times.user_us
                           : key == "system_us" ? &times.system_us
                                                : nullptr;
    if (target == nullptr || !fits) return std::unexpected(fields.bad(std::string(kExpected)));
    *target = field.get<std::int64_t>();
  }
  return times;
}

std::expected<Request, ReplyError> parse_begin(const Fields& fields, const Limits& limits) {
  static constexpr std::array<std::string_view, 4> kKeys{"name", "labels", "pid", "rusage"};
  if (auto known = fields.only(kKeys); !known) return std::unexpected(known.error());
  auto name = fields.text("name", limits.name_bytes);
  if (!name) return std::unexpected(name.error());
  auto labels = read_labels(fields, limits);
  if (!labels) return std::unexpected(labels.error());
  const auto pid = fields.integer("pid", 1, std::numeric_limits<std::int32_t>::max());
  if (!pid) return std::unexpected(pid.error());
  auto rusage = read_rusage(fields);
  if (!rusage) return std::unexpected(rusage.error());
  BeginRequest begin{std::move(*name), std::move(*labels), std::nullopt, *rusage};
  if (const std::optional<std::int64_t>& value = *pid; value.has_value()) {
    begin.pid = static_cast<Pid>(*value);
  }
  return Request{fields.id(), std::move(begin)};
}

std::expected<Request, ReplyError> parse_end(const Fields& fields, const Limits& /*limits*/) {
  static constexpr std::array<std::string_view, 3> kKeys{"task", "wait", "rusage"};
  if (auto known = fields.only(kKeys); !known) return std::unexpected(known.error());
  const auto task = fields.integer("task", 1, kMaxExactInteger);
  if (!task) return std::unexpected(task.error());
  const std::optional<std::int64_t>& id = *task;
  if (!id.has_value()) return std::unexpected(fields.bad("missing \"task\""));
  const auto wait = fields.boolean("wait");
  if (!wait) return std::unexpected(wait.error());
  auto rusage = read_rusage(fields);
  if (!rusage) return std::unexpected(rusage.error());
  return Request{fields.id(), EndRequest{static_cast<TaskId>(*id), wait->value_or(true), *rusage}};
}

std::expected<Request, ReplyError> parse_query(const Fields& fields, const Limits& limits) {
  static constexpr std::array<std::string_view, 3> kKeys{"since_time_us", "limit", "before"};
  if (auto known = fields.only(kKeys); !known) return std::unexpected(known.error());
  const auto since = fields.integer("since_time_us", 0, std::numeric_limits<std::int64_t>::max());
  if (!since) return std::unexpected(since.error());
  const auto limit = fields.integer("limit", 1, static_cast<std::int64_t>(limits.query_max));
  if (!limit) return std::unexpected(limit.error());
  const auto count =
      static_cast<std::size_t>(limit->value_or(static_cast<std::int64_t>(limits.query_default)));
  QueryRequest query{since->value_or(0), count, std::nullopt};
  if (const json* before = fields.find("before"); before != nullptr) {
    const auto cursor =
        before->is_string() ? parse_cursor(before->get_ref<const std::string&>()) : std::nullopt;
    if (!cursor) {
      return std::unexpected(
          fields.bad("\"before\" must be the \"next\" of an earlier reply: \"END_TIME_US:TASK\""));
    }
    query.before = cursor;
  }
  return Request{fields.id(), query};
}

std::expected<Request, ReplyError> parse_status(const Fields& fields, const Limits& /*limits*/) {
  if (auto known = fields.only({}); !known) return std::unexpected(known.error());
  return Request{fields.id(), StatusRequest{}};
}

using OpParser = std::expected<Request, ReplyError> (*)(const Fields&, const Limits&);

struct OpRow {
  std::string_view name;
  OpParser parse;
};

constexpr std::array kOps{
    OpRow{"begin", parse_begin},
    OpRow{"end", parse_end},
    OpRow{"query", parse_query},
    OpRow{"status", parse_status},
};

std::expected<Request, ReplyError> parse_op(const Fields& fields, const Limits& limits) {
  const json* op = fields.find("op");
  if (op == nullptr || !op->is_string()) {
    return std::unexpected(fields.bad("missing \"op\" (a string: begin, end, query or status)"));
  }
  const auto& name = op->get_ref<const std::string&>();
  const auto row = std::ranges::find(kOps, std::string_view(name), &OpRow::name);
  if (row == kOps.end()) {
    return std::unexpected(
        make_error(ReplyCode::unknown_op, fmt::format("unknown op \"{}\"", name), fields.id()));
  }
  return row->parse(fields, limits);
}

}  // namespace

bool is_blank(std::string_view line) noexcept {
  return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

std::expected<Request, ReplyError> parse_request(std::string_view line, const Limits& limits) {
  if (line.size() > limits.line_bytes) {
    return std::unexpected(
        make_error(ReplyCode::too_large,
                   fmt::format("a request line may hold at most {} bytes", limits.line_bytes)));
  }
  auto doc = parse_object(line);
  if (!doc) return std::unexpected(std::move(doc.error()));
  auto id = read_id(*doc, limits);
  if (!id) return std::unexpected(std::move(id.error()));
  const auto version = doc->find("v");
  if (version != doc->end() && !(version->is_number_integer() && *version == kProtocolVersion)) {
    return std::unexpected(
        make_error(ReplyCode::unsupported_version,
                   fmt::format("this daemon speaks version {} of the protocol", kProtocolVersion),
                   std::move(*id)));
  }
  return parse_op(Fields(*doc, std::move(*id)), limits);
}

}  // namespace gpumeter::task
