// SPDX-License-Identifier: MIT
#include "task/protocol.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>
#include <string>

namespace gpumeter::task::protocol_test {

using nlohmann::json;

const Limits kLimits;

ReplyError refusal(std::string_view line) {
  const auto request = parse_request(line, kLimits);
  EXPECT_FALSE(request.has_value()) << line;
  return request ? ReplyError{} : request.error();
}

Request accepted(std::string_view line) {
  auto request = parse_request(line, kLimits);
  EXPECT_TRUE(request.has_value()) << line << ": " << (request ? "" : request.error().message);
  return request ? std::move(*request) : Request{};
}

json reply_json(const std::string& line) {
  EXPECT_FALSE(line.empty());
  EXPECT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1) << "a reply is one line";
  return json::parse(line);
}

TEST(Protocol, BeginWithNameLabelsIdAndPid) {
  const Request request = accepted(
      R"({"op":"begin","name":"decode","labels":{"stream":"cam3"},"id":7,"pid":42,"v":1})");
  EXPECT_EQ(std::get<std::int64_t>(request.id), 7);
  const auto& begin = std::get<BeginRequest>(request.op);
  EXPECT_EQ(begin.name, "decode");
  EXPECT_EQ(begin.labels, (Labels{{"stream", "cam3"}}));
  EXPECT_EQ(begin.pid, 42U);
}

TEST(Protocol, EndQueryAndStatus) {
  const auto end = std::get<EndRequest>(accepted(R"({"op":"end","task":17})").op);
  EXPECT_EQ(end.task, 17U);
  EXPECT_TRUE(end.wait);
  EXPECT_FALSE(std::get<EndRequest>(accepted(R"({"op":"end","task":1,"wait":false})").op).wait);
  const auto query = std::get<QueryRequest>(accepted(R"({"op":"query","since_time_us":5})").op);
  EXPECT_EQ(query.since_us, 5);
  EXPECT_EQ(query.limit, kLimits.query_default);
  EXPECT_EQ(std::get<QueryRequest>(accepted(R"({"op":"query","limit":3})").op).limit, 3U);
  EXPECT_TRUE(std::holds_alternative<StatusRequest>(accepted(R"({"op":"status","id":"s"})").op));
}

TEST(Protocol, StringIdsAreEchoed) {
  EXPECT_EQ(std::get<std::string>(accepted(R"({"op":"status","id":"abc"})").id), "abc");
  EXPECT_EQ(std::get<std::string>(refusal(R"({"op":"end","id":"x"})").id), "x");
}

TEST(Protocol, GarbageIsABadRequest) {
  for (const std::string_view line :
       {"hello", "{", "[]", "42", "\"op\"", "null", R"({"op":"begin"} trailing)", "{\"op\":}"}) {
    EXPECT_EQ(refusal(line).code, ReplyCode::bad_request) << line;
  }
}

TEST(Protocol, IllFormedUtf8IsABadRequest) {
  EXPECT_EQ(refusal("{\"op\":\"begin\",\"name\":\"\xff\xfe\"}").code, ReplyCode::bad_request);
}

TEST(Protocol, DeepNestingIsRefusedBeforeParsing) {
  const std::string deep = R"({"op":"begin","name":"x","labels":)" + std::string(30'000, '[');
  const ReplyError error = refusal(deep);
  EXPECT_EQ(error.code, ReplyCode::bad_request);
  EXPECT_NE(error.message.find("nests"), std::string::npos);
}

TEST(Protocol, MissingAndIllTypedFields) {
  for (const std::string_view line : {
           R"({"name":"x"})",                                 // no op
           R"({"op":7})",                                     // op not a string
           R"({"op":"begin"})",                               // no name
           R"({"op":"begin","name":""})",                     // empty name
           R"({"op":"begin","name":5})",                      // name not a string
           R"({"op":"begin","name":"x","labels":[]})",        // labels not an object
           R"({"op":"begin","name":"x","labels":{"a":1}})",   // label not a string
           R"({"op":"begin","name":"x","labels":{"":"v"}})",  // empty label key
           R"({"op":"begin","name":"x","pid":0})",            // pid out of range
           R"({"op":"begin","name":"x","pid":1.5})",          // pid not an integer
           R"({"op":"end"})",                                 // no task
           R"({"op":"end","task":0})",                        // task out of range
           R"({"op":"end","task":"1"})",                      // task not an integer
           R"({"op":"end","task":9007199254740992})",         // task past 2^53 - 1
           R"({"op":"end","task":1,"wait":"yes"})",           // wait not a boolean
           R"({"op":"query","since_time_us":-1})",            // negative time
           R"({"op":"query","limit":0})",                     // limit out of range
           R"({"op":"query","limit":10001})",                 // limit out of range
           R"({"op":"status","id":1.5})",                     // id neither integer nor string
           R"({"op":"status","id":18446744073709551615})",    // id beyond int64
       }) {
    EXPECT_EQ(refusal(line).code, ReplyCode::bad_request) << line;
  }
}

TEST(Protocol, UnknownKeysAreTypos) {
  const ReplyError error = refusal(R"({"op":"begin","name":"x","lables":{},"id":3})");
  EXPECT_EQ(error.code, ReplyCode::bad_request);
  EXPECT_NE(error.message.find("lables"), std::string::npos);
  EXPECT_EQ(std::get<std::int64_t>(error.id), 3);
  EXPECT_EQ(refusal(R"({"op":"status","task":1})").code, ReplyCode::bad_request);
}

TEST(Protocol, SizesAreBounded) {
  const std::string long_name(kLimits.name_bytes + 1, 'n');
  EXPECT_EQ(refusal(R"({"op":"begin","name":")" + long_name + "\"}").code, ReplyCode::bad_request);
  json many = {{"op", "begin"}, {"name", "x"}, {"labels", json::object()}};
  for (std::size_t i = 0; i <= kLimits.labels; ++i) many["labels"][std::to_string(i)] = "v";
  EXPECT_EQ(refusal(many.dump()).code, ReplyCode::bad_request);
  const std::string long_id(kLimits.id_bytes + 1, 'i');
  EXPECT_EQ(refusal(R"({"op":"status","id":")" + long_id + "\"}").code, ReplyCode::bad_request);
}

TEST(Protocol, UnknownOp) {
  const ReplyError error = refusal(R"({"op":"pause","id":2})");
  EXPECT_EQ(error.code, ReplyCode::unknown_op);
  EXPECT_EQ(std::get<std::int64_t>(error.id), 2);
}

TEST(Protocol, UnsupportedVersion) {
  EXPECT_EQ(refusal(R"({"op":"status","v":2})").code, ReplyCode::unsupported_version);
  EXPECT_EQ(refusal(R"({"op":"status","v":"1"})").code, ReplyCode::unsupported_version);
}

TEST(Protocol, OversizedLineIsTooLarge) {
  const std::string line(kLimits.line_bytes + 1, ' ');
  EXPECT_EQ(refusal(line).code, ReplyCode::too_large);
}

TEST(Protocol, BlankLines) {
  EXPECT_TRUE(is_blank(""));
  EXPECT_TRUE(is_blank(" \t\r"));
  EXPECT_FALSE(is_blank(" {}"));
}

// Whatever the bytes, parsing answers: a request or an error, never a crash or a throw.
TEST(Protocol, RandomBytesNeverThrow) {
  std::mt19937 random(12345);
  std::uniform_int_distribution<int> byte(0, 255);
  const std::string alphabet = R"({}[]":,0123456789.-eEtruefalsn\ opbgidvwk)";
  std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);
  for (int round = 0; round < 20'000; ++round) {
    std::string line;
    const bool structured = round % 2 == 0;
    for (int i = 0; i < round % 64; ++i) {
      line += structured ? alphabet[pick(random)] : static_cast<char>(byte(random));
    }
    const auto request = parse_request(line, kLimits);
    if (!request) {
      EXPECT_FALSE(error_reply(request.error()).empty());
    }
  }
}

TEST(Protocol, EveryErrorCodeHasItsStableWord) {
  const std::vector<std::pair<ReplyCode, std::string_view>> words{
      {ReplyCode::bad_request, "bad_request"},
      {ReplyCode::unknown_op, "unknown_op"},
      {ReplyCode::unsupported_version, "unsupported_version"},
      {ReplyCode::too_large, "too_large"},
      {ReplyCode::unknown_task, "unknown_task"},
      {ReplyCode::unknown_process, "unknown_process"},
      {ReplyCode::not_permitted, "not_permitted"},
      {ReplyCode::limit_reached, "limit_reached"},
      {ReplyCode::internal, "internal"},
  };
  for (const auto& [code, word] : words) {
    const json reply = reply_json(error_reply({code, "why", std::int64_t{9}}));
    EXPECT_EQ(reply["v"], 1);
    EXPECT_EQ(reply["ok"], false);
    EXPECT_EQ(reply["id"], 9);
    EXPECT_EQ(reply["error"]["code"], word);
    EXPECT_EQ(reply["error"]["message"], "why");
  }
}

TEST(Protocol, ErrorReplyWithoutIdHasNoIdKey) {
  const json reply = reply_json(error_reply({ReplyCode::bad_request, "x", {}}));
  EXPECT_FALSE(reply.contains("id"));
}

Task ended_task() {
  Task task{.id = 17, .name = "decode", .labels = {{"stream", "cam3"}}};
  task.owner = {4242, 1'700'000'000'000'000};
  task.uid = 1000;
  task.user = "alice";
  task.state = TaskState::ended;
  task.begin_us = 1'700'000'001'000'000;
  task.end_us = 1'700'000'002'500'000;
  GpuUsage gpu;
  gpu.device = 0;
  gpu.engines[0] = {1.2, 80.0, 97.0, 1.05, 1.3, 70.0, 86.0 + 2.0 / 3.0};
  const auto not_supported = std::unexpected(Unavailable::not_supported);
  gpu.engines[4] = {not_supported, not_supported, not_supported, not_supported,
                    not_supported, not_supported, not_supported};
  gpu.memory.peak_bytes = 1U << 30U;
  gpu.energy.processes_joules = 210.5;
  gpu.confidence = {166'667, 0.5, false, 1'000'000, false, 16.0 + 2.0 / 3.0};
  Usage usage{{task.begin_us, *task.end_us}, {gpu}, {}};
  usage.host.cpu_user_seconds = 0.9;
  usage.host.peak_rss_bytes = std::unexpected(Unavailable::process_gone);
  task.figures = TaskFigures{usage, {{0, "GPU-abc"}}};
  return task;
}

TEST(Protocol, BeginReply) {
  const json reply = reply_json(begin_reply(std::string("c1"), ended_task()));
  EXPECT_EQ(reply["ok"], true);
  EXPECT_EQ(reply["id"], "c1");
  EXPECT_EQ(reply["task"], 17);
  EXPECT_EQ(reply["pid"], 4242);
  EXPECT_EQ(reply["begin_time_us"], 1'700'000'001'000'000);
}

TEST(Protocol, EndReplyCarriesTheRecordAndItsFigures) {
  const json reply = reply_json(end_reply(std::int64_t{3}, ended_task()));
  EXPECT_EQ(reply["task"], 17);
  EXPECT_EQ(reply["state"], "ended");
  EXPECT_EQ(reply["abandoned"], false);
  EXPECT_EQ(reply["user"], "alice");
  EXPECT_DOUBLE_EQ(reply["duration_seconds"].get<double>(), 1.5);
  const json& gpu = reply["usage"]["gpus"][0];
  EXPECT_EQ(gpu["uuid"], "GPU-abc");
  EXPECT_DOUBLE_EQ(gpu["sm_percent"].get<double>(), 80.0);
  EXPECT_DOUBLE_EQ(gpu["sm_busy_seconds"].get<double>(), 1.2);
  EXPECT_DOUBLE_EQ(gpu["sm_peak_percent"].get<double>(), 97.0);
  EXPECT_DOUBLE_EQ(gpu["sm_busy_seconds_lower"].get<double>(), 1.05);
  EXPECT_DOUBLE_EQ(gpu["sm_busy_seconds_upper"].get<double>(), 1.3);
  EXPECT_DOUBLE_EQ(gpu["sm_percent_lower"].get<double>(), 70.0);
  EXPECT_DOUBLE_EQ(gpu["sm_percent_upper"].get<double>(), 86.0 + 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(gpu["sm_bounds_width_pp"].get<double>(), 16.0 + 2.0 / 3.0);
  EXPECT_EQ(gpu["unavailable"]["jpeg_peak_percent"], "not_supported");
  EXPECT_TRUE(gpu["jpeg_busy_seconds_upper"].is_null());
  EXPECT_EQ(gpu["unavailable"]["jpeg_percent_lower"], "not_supported");
  EXPECT_EQ(gpu["coarse_bucket_us"], 1'000'000);
  EXPECT_FALSE(gpu["shorter_than_coarse_bucket"].get<bool>());
  EXPECT_TRUE(gpu["jpeg_percent"].is_null());
  EXPECT_EQ(gpu["unavailable"]["jpeg_percent"], "not_supported");
  EXPECT_EQ(gpu["memory_peak_bytes"], 1U << 30U);
  EXPECT_DOUBLE_EQ(gpu["energy_joules"].get<double>(), 210.5);
  EXPECT_TRUE(gpu["low_confidence"].get<bool>());
  const json& host = reply["usage"]["host"];
  EXPECT_DOUBLE_EQ(host["cpu_user_seconds"].get<double>(), 0.9);
  EXPECT_EQ(host["unavailable"]["peak_rss_bytes"], "process_gone");
}

TEST(Protocol, EveryNullHasAReasonAndEveryReasonANull) {
  const json gpu = reply_json(end_reply({}, ended_task()))["usage"]["gpus"][0];
  for (const auto& [key, value] : gpu.items()) {
    if (key == "uuid") continue;
    EXPECT_EQ(value.is_null(), gpu["unavailable"].contains(key)) << key;
  }
}

TEST(Protocol, OpenTaskRecord) {
  Task task = ended_task();
  task.state = TaskState::open;
  task.end_us.reset();
  task.figures.reset();
  const Task* open_task = &task;
  const json reply = reply_json(query_reply({}, {}, std::span(&open_task, 1), false, 1U << 20U));
  const json& open = reply["open"][0];
  EXPECT_EQ(open["state"], "open");
  EXPECT_TRUE(open["end_time_us"].is_null());
  EXPECT_TRUE(open["duration_seconds"].is_null());
  EXPECT_TRUE(open["usage"].is_null());
  EXPECT_TRUE(reply["tasks"].empty());
  EXPECT_EQ(reply["truncated"], false);
}

TEST(Protocol, QueryReplyKeepsWithinItsBytesAndPointsToTheRest) {
  std::vector<Task> tasks(500, ended_task());
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    tasks[i].id = i + 1;
    tasks[i].end_us = 1'000'000 + static_cast<TimeUs>(i);
    for (int k = 0; k < 16; ++k) tasks[i].labels[fmt::format("k{:02}", k)] = std::string(250, 'x');
  }
  std::vector<const Task*> ended;
  for (const Task& task : tasks) ended.push_back(&task);
  constexpr std::size_t kMax = 64 * 1024;
  const std::string line = query_reply(7, ended, ended, false, kMax);
  EXPECT_LE(line.size(), kMax);
  const json reply = reply_json(line);
  EXPECT_EQ(reply["truncated"], true);
  EXPECT_EQ(reply["open_truncated"], true);
  const json& kept = reply["tasks"];
  ASSERT_FALSE(kept.empty());
  EXPECT_EQ(kept.back()["task"], 500) << "the newest ended tasks are kept, oldest first";
  const std::uint64_t oldest = kept.front()["task"];
  const auto cursor = parse_cursor(reply["next"].get<std::string>());
  ASSERT_TRUE(cursor.has_value());
  EXPECT_EQ(cursor->task, oldest);
  EXPECT_EQ(cursor->end_us, 1'000'000 + static_cast<TimeUs>(oldest) - 1);
}

TEST(Protocol, QueryCursors) {
  EXPECT_EQ(to_string(QueryCursor{12, 3}), "12:3");
  EXPECT_EQ(parse_cursor("12:3"), (QueryCursor{12, 3}));
  for (const char* bad :
       {"", ":", "12", "12:", ":3", "-1:3", "1:x", "1:2:3", "99999999999999999999:1"}) {
    EXPECT_FALSE(parse_cursor(bad).has_value()) << bad;
  }
  const auto request = parse_request(R"({"v":1,"op":"query","before":"12:3","limit":5})", Limits{});
  ASSERT_TRUE(request.has_value());
  EXPECT_EQ(std::get<QueryRequest>(request->op).before, (QueryCursor{12, 3}));
  EXPECT_FALSE(parse_request(R"({"v":1,"op":"query","before":12})", Limits{}).has_value());
}

TEST(Protocol, LabelsAreBoundedInBytesTogether) {
  std::string labels;
  for (int k = 0; k < 16; ++k) {
    labels += fmt::format("{}\"k{:02}\":\"{}\"", k == 0 ? "" : ",", k, std::string(256, 'x'));
  }
  const auto request = parse_request(
      fmt::format(R"({{"v":1,"op":"begin","name":"n","labels":{{{}}}}})", labels), Limits{});
  ASSERT_FALSE(request.has_value());
  EXPECT_EQ(request.error().code, ReplyCode::bad_request);
  EXPECT_NE(request.error().message.find("4096 bytes together"), std::string::npos)
      << request.error().message;
}

TEST(Protocol, StatusReply) {
  StatusInfo status{.version = "0.1.0", .pid = 10, .uid = 0, .interval_ms = 100};
  status.open = 2;
  const json reply = reply_json(status_reply({}, status));
  EXPECT_EQ(reply["daemon"]["version"], "0.1.0");
  EXPECT_EQ(reply["sampler"]["interval_ms"], 100);
  EXPECT_TRUE(reply["sampler"]["last_sample_time_us"].is_null());
  EXPECT_EQ(reply["tasks"]["open"], 2);
  EXPECT_EQ(reply["limits"]["line_bytes"], kLimits.line_bytes);
}

}  // namespace gpumeter::task::protocol_test
