// SPDX-License-Identifier: MIT
#include "protocol.h"

#include <sys/resource.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <string_view>
#include <utility>

namespace gpumeter::client {
namespace {

using nlohmann::json;

constexpr double kAbsent = std::numeric_limits<double>::quiet_NaN();

json parse_object(const std::string& text) {
  json value = json::parse(text, nullptr, /*allow_exceptions=*/false);
  return value.is_object() ? value : json();
}

// 0 for an ok reply of version 1, else the code its error names.
int reply_status(const json& reply) {
  if (!reply.is_object() || reply.value("v", 0) != 1) return GPUMETER_E_PROTOCOL;
  if (reply.value("ok", false)) return GPUMETER_OK;
  const auto error = reply.find("error");
  if (error == reply.end() || !error->is_object()) return GPUMETER_E_PROTOCOL;
  return error_code(error->value("code", ""));
}

double number_or_absent(const json& object, const char* key) {
  const auto found = object.find(key);
  return found != object.end() && found->is_number() ? found->get<double>() : kAbsent;
}

// Sums a key over the GPUs; absent when no GPU has it.
double gpu_sum(const json& gpus, const char* key) {
  double sum = kAbsent;
  for (const json& gpu : gpus) {
    const double value = number_or_absent(gpu, key);
    if (!std::isnan(value)) sum = std::isnan(sum) ? value : sum + value;
  }
  return sum;
}

double gpu_max(const json& gpus, const char* key) {
  double most = kAbsent;
  for (const json& gpu : gpus) {
    const double value = number_or_absent(gpu, key);
    if (!std::isnan(value)) most = std::isnan(most) ? value : std::max(most, value);
  }
  return most;
}

std::uint64_t bytes(double value) {
  return std::isnan(value) || value < 0 ? GPUMETER_UNAVAILABLE_U64
                                        : static_cast<std::uint64_t>(value);
}

bool any_low_confidence(const json& gpus) {
  return std::ranges::any_of(gpus,
                             [](const json& gpu) { return gpu.value("low_confidence", false); });
}

void fill_usage(const json& usage, gpumeter_task_result& out) {
  static const json kNone = json::object();
  const auto gpus_found = usage.find("gpus");
  const json& gpus = gpus_found != usage.end() && gpus_found->is_array() ? *gpus_found : kNone;
  const auto host_found = usage.find("host");
  const json& host = host_found != usage.end() && host_found->is_object() ? *host_found : kNone;
  out.has_usage = 1;
  out.gpu_count = static_cast<std::uint32_t>(gpus.is_array() ? gpus.size() : 0);
  out.low_confidence = any_low_confidence(gpus) ? 1 : 0;
  out.sm_busy_seconds = gpu_sum(gpus, "sm_busy_seconds");
  out.sm_percent = gpu_max(gpus, "sm_percent");
  out.decoder_busy_seconds = gpu_sum(gpus, "decoder_busy_seconds");
  out.encoder_busy_seconds = gpu_sum(gpus, "encoder_busy_seconds");
  out.energy_joules = gpu_sum(gpus, "energy_joules");
  out.memory_peak_bytes = bytes(gpu_sum(gpus, "memory_peak_bytes"));
  out.cpu_user_seconds = number_or_absent(host, "cpu_user_seconds");
  out.cpu_system_seconds = number_or_absent(host, "cpu_system_seconds");
  out.peak_rss_bytes = bytes(number_or_absent(host, "peak_rss_bytes"));
}

gpumeter_task_result empty_result() {
  gpumeter_task_result out{};
  out.duration_seconds = out.sm_busy_seconds = out.sm_percent = kAbsent;
  out.decoder_busy_seconds = out.encoder_busy_seconds = out.energy_joules = kAbsent;
  out.cpu_user_seconds = out.cpu_system_seconds = kAbsent;
  out.memory_peak_bytes = out.peak_rss_bytes = GPUMETER_UNAVAILABLE_U64;
  return out;
}

gpumeter_task_result to_result(const json& reply) {
  gpumeter_task_result out = empty_result();
  out.task_id = reply.value("task", std::uint64_t{0});
  out.begin_time_us = reply.value("begin_time_us", std::int64_t{0});
  const auto end = reply.find("end_time_us");
  out.end_time_us = end != reply.end() && end->is_number_integer() ? end->get<std::int64_t>() : 0;
  out.duration_seconds = number_or_absent(reply, "duration_seconds");
  const auto usage = reply.find("usage");
  if (usage != reply.end() && usage->is_object()) fill_usage(*usage, out);
  return out;
}

// Copies the fields that fit the caller's struct_size; struct_size itself stays as given.
void copy_fitting(const gpumeter_task_result& full, gpumeter_task_result* out) {
  const std::size_t size = std::min(out->struct_size, sizeof(full));
  const std::size_t skip = sizeof(full.struct_size);
  if (size <= skip) return;
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast,cppcoreguidelines-pro-bounds-pointer-arithmetic)
  std::memcpy(reinterpret_cast<char*>(out) + skip, reinterpret_cast<const char*>(&full) + skip,
              size - skip);
}

}  // namespace

int error_code(const std::string& word) {
  static constexpr std::array<std::pair<std::string_view, int>, 9> kCodes{{
      {"not_permitted", GPUMETER_E_NOT_PERMITTED},
      {"unknown_task", GPUMETER_E_UNKNOWN_TASK},
      {"unknown_process", GPUMETER_E_UNKNOWN_PROCESS},
      {"limit_reached", GPUMETER_E_LIMIT},
      {"internal", GPUMETER_E_DAEMON},
      {"bad_request", GPUMETER_E_INVALID},
      {"too_large", GPUMETER_E_INVALID},
      {"unknown_op", GPUMETER_E_PROTOCOL},
      {"unsupported_version", GPUMETER_E_PROTOCOL},
  }};
  const auto* found = std::ranges::find(kCodes, word, &std::pair<std::string_view, int>::first);
  return found != kCodes.end() ? found->second : GPUMETER_E_PROTOCOL;
}

namespace {

json rusage_json(CpuTimes cpu) {
  return json{{"user_us", cpu.user_us}, {"system_us", cpu.system_us}};
}

}  // namespace

CpuTimes own_cpu_times() noexcept {
  rusage usage{};
  if (::getrusage(RUSAGE_SELF, &usage) != 0) return {};
  const auto us = [](const timeval& t) {
    return static_cast<std::int64_t>(t.tv_sec) * 1'000'000 + t.tv_usec;
  };
  return {us(usage.ru_utime), us(usage.ru_stime)};
}

std::string begin_request(const char* name, const char* labels_json, CpuTimes cpu) {
  json request = {{"v", 1}, {"op", "begin"}, {"name", name}, {"rusage", rusage_json(cpu)}};
  if (labels_json != nullptr) {
    json labels = parse_object(labels_json);
    if (labels.is_null()) return {};
    request["labels"] = std::move(labels);
  }
  // Replace, not throw, on ill-formed UTF-8: the daemon then answers bad_request.
  return request.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string end_request(std::uint64_t task, bool wait, CpuTimes cpu) {
  const json request{
      {"v", 1}, {"op", "end"}, {"task", task}, {"wait", wait}, {"rusage", rusage_json(cpu)}};
  return request.dump() + "\n";
}

std::int64_t parse_begin_reply(const std::string& reply) {
  const json value = parse_object(reply);
  const int status = reply_status(value);
  if (status != GPUMETER_OK) return status;
  const auto task = value.find("task");
  if (task == value.end() || !task->is_number_unsigned()) return GPUMETER_E_PROTOCOL;
  return task->get<std::int64_t>();
}

int parse_end_reply(const std::string& reply, gpumeter_task_result* result) {
  const json value = parse_object(reply);
  const int status = reply_status(value);
  if (status == GPUMETER_OK && result != nullptr) copy_fitting(to_result(value), result);
  return status;
}

}  // namespace gpumeter::client
