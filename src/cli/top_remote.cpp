// SPDX-License-Identifier: MIT
#include "cli/top_remote.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "cli/tasks_table.h"
#include "cli/top_panels.h"
#include "net/token_file.h"
#include "top/status_frame.h"

namespace gpumeter::cli {
namespace {

// Each request's bound: a daemon answers from memory, well within it; a stalled one never
// holds the feed's thread longer (and never the screen, which does not wait on it).
constexpr std::chrono::milliseconds kRemoteTimeout{5000};

// The answer's JSON object, or one line saying why there is none. Json: the type its reader
// takes (top's frames read view::Json, the tasks table nlohmann::json).
template <class Json>
std::expected<Json, std::string> answer_json(master::HttpResult result) {
  if (!result) return std::unexpected(result.error().message);
  Json body = Json::parse(result->body, nullptr, false);
  if (result->status == 401)
    return std::unexpected("401: the daemon wants its token (--token-file), or another one");
  if (result->status != 200) {
    const std::string said = body.is_object() && body.contains("error") && body["error"].is_string()
                                 ? body["error"].template get<std::string>()
                                 : std::string("no reason given");
    return std::unexpected(fmt::format("HTTP {}: {}", result->status, said));
  }
  if (!body.is_object()) return std::unexpected(std::string("an answer that is not a JSON object"));
  return body;
}

// A number or a string of a document's object; NaN or "?" for anything else (never throws: a
// document of another version must not end the feed's thread).
double number_in(const view::Json& object, const char* key) {
  const auto found = object.find(key);
  return found != object.end() && found->is_number() ? found->get<double>() : std::nan("");
}

std::string text_in(const view::Json& object, const char* key) {
  const auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : "?";
}

std::string percent_text(double percent) {
  return std::isnan(percent) ? std::string("N/A") : fmt::format("{:.0f}%", percent);
}

// "12.50 of 20 per week (62%)", " OVER" past it; "-" for a user no quota limits.
std::string quota_text(const view::Json& row) {
  const auto quota = row.find("quota");
  if (quota == row.end() || !quota->is_object()) return "-";
  const auto over = quota->find("over");
  return fmt::format("{:.2f} of {:g} per {} ({}){}", number_in(*quota, "used_gpu_hours"),
                     number_in(*quota, "gpu_hours"), text_in(*quota, "period"),
                     percent_text(number_in(*quota, "percent")),
                     over != quota->end() && *over == true ? " OVER" : "");
}

// The user pane's lines from a /api/v1/usage answer grouped by user: what `report --by user`
// shows of each user, with the quota standing when the daemon has a quota file.
std::vector<std::string> usage_lines(const view::Json& usage) {
  std::vector<std::string> lines;
  const auto rows = usage.find("rows");
  if (rows == usage.end() || !rows->is_array() || rows->empty()) return lines;
  lines.push_back(
      fmt::format("{:<16} {:>9} {:>5} {:>5}  {}", "USER", "GPU-HOURS", "SM%", "PROCS", "QUOTA"));
  for (const view::Json& row : *rows) {
    if (!row.is_object()) continue;
    const double processes = number_in(row, "processes");
    lines.push_back(fmt::format(
        "{:<16} {:>9.2f} {:>5} {:>5}  {}", text_in(row, "user"), number_in(row, "gpu_hours"),
        percent_text(number_in(row, "sm_percent_while_held")),
        std::isnan(processes) ? std::string("?") : fmt::format("{:.0f}", processes),
        quota_text(row)));
  }
  return lines;
}

}  // namespace

std::expected<RemoteDaemon, Error> remote_daemon(
    std::string_view address, const std::optional<std::filesystem::path>& token,
    const std::optional<std::filesystem::path>& ca_file) {
  if (address.starts_with('/') || address.starts_with('.')) {
    // The task socket answers the task protocol only; the GPUs' figures and history are on
    // the daemon's HTTP API, which listens on loopback unless told otherwise.
    return std::unexpected(invalid_input(fmt::format(
        "--connect {}: a file, not an address; top reads the daemon's HTTP API (its --listen "
        "address: http://HOST:PORT, or --connect alone for 127.0.0.1:{}), and the task socket "
        "serves tasks only (--socket gives it to the local Tasks pane)",
        address, master::kDefaultAgentPort)));
  }
  // Alone, --connect means this machine's daemon where it listens by default.
  const std::string written =
      address.empty() ? fmt::format("http://127.0.0.1:{}", master::kDefaultAgentPort)
      : address.find("://") != std::string_view::npos ? std::string(address)
                                                      : "http://" + std::string(address);
  auto url = master::parse_agent_url(written);
  if (!url) {
    return std::unexpected(
        invalid_input(fmt::format("--connect {}: {}", address, url.error().message)));
  }
  RemoteDaemon daemon{.url = std::move(*url), .options = {}};
  daemon.options.timeout = kRemoteTimeout;
  daemon.options.ca_file = ca_file;
  if (token) {
    auto text = net::read_token_file(*token);
    if (!text) return std::unexpected(std::move(text.error()));
    daemon.options.token = std::move(*text);
  }
  return daemon;
}

RemoteReader::RemoteReader(RemoteDaemon daemon, std::chrono::milliseconds interval)
    : daemon_(std::move(daemon)),
      step_(std::max<std::chrono::seconds::rep>(
          1, std::chrono::round<std::chrono::seconds>(interval).count())),
      client_(8) {}

std::string RemoteReader::name() const {
  return fmt::format("the daemon at {}", daemon_.url.origin() + daemon_.url.base_path);
}

template <class Json>
std::expected<Json, std::string> RemoteReader::get(const std::string& target,
                                                   const std::stop_token& stop) {
  const master::HttpRequest request{
      .url = daemon_.url, .target = daemon_.url.path(target), .options = daemon_.options};
  return answer_json<Json>(client_.get(request, stop));
}

// Each GPU's four sparklines over the kHistoryPoints steps before the status's round, one
// request each, all at once; a history that cannot be read leaves its sparkline to fill as
// top runs.
void RemoteReader::seed_history(const view::Json& status, const std::stop_token& stop) {
  static constexpr std::array<const char*, 4> kMetrics{
      "utilization_gpu_percent", "memory_used_bytes", "power_draw_watts", "temperature_celsius"};
  const TimeUs step_us = std::chrono::microseconds(step_).count();
  const auto time_us = status.find("time_us");
  if (time_us == status.end() || !time_us->is_number_integer()) return;
  const TimeUs until_s = time_us->get<TimeUs>() / step_us * step_us / 1'000'000;
  const auto since_s = until_s - static_cast<TimeUs>(top::kHistoryPoints - 1) * step_.count();
  std::vector<master::HttpRequest> requests;
  std::vector<std::pair<std::uint32_t, double>> asked;  // GPU, memory total (scale)
  const auto gpus = status.find("gpus");
  if (gpus == status.end() || !gpus->is_array()) return;
  for (const view::Json& gpu : *gpus) {
    if (!gpu.is_object() || !gpu.contains("index") || !gpu["index"].is_number_unsigned() ||
        gpu["index"].get<std::uint64_t>() > UINT32_MAX)
      continue;
    const auto index = gpu["index"].get<std::uint32_t>();
    const view::Json& total =
        gpu.contains("memory_total_bytes") ? gpu["memory_total_bytes"] : view::Json();
    asked.emplace_back(index, total.is_number() ? total.get<double>() : 0.0);
    for (const char* metric : kMetrics) {
      requests.push_back(master::HttpRequest{
          .url = daemon_.url,
          .target = daemon_.url.path(fmt::format("/api/v1/history?gpu={}&metric={}&since=@{}"
                                                 "&until=@{}&step={}s",
                                                 index, metric, since_s, until_s, step_.count())),
          .options = daemon_.options});
    }
  }
  std::vector<master::HttpResult> results = client_.get_all(requests, stop);
  for (std::size_t g = 0; g < asked.size(); ++g) {
    const auto points = [&](std::size_t metric, double scale) {
      auto answer = answer_json<view::Json>(std::move(results[g * kMetrics.size() + metric]));
      return answer ? top::history_points(*answer, scale) : top::History();
    };
    const double total = asked[g].second;
    history_.seed(asked[g].first, {.sm = points(0, 1.0),
                                   .memory = total > 0 ? points(1, 100.0 / total) : top::History(),
                                   .power = points(2, 1.0),
                                   .temperature = points(3, 1.0)});
  }
}

std::expected<top::Frame, std::string> RemoteReader::poll(const std::stop_token& stop) {
  auto status = get<view::Json>("/api/v1/status", stop);
  if (!status) return std::unexpected(fmt::format("{}: {}", name(), status.error()));
  if (!seeded_) {
    seed_history(*status, stop);
    seeded_ = true;
  }
  top::add_status_round(history_, *status);
  return top::frame_from_status(*status, history_);
}

top::Panes RemoteReader::panels(TimeUs now_us, const std::stop_token& stop) {
  top::Panes panes;
  if (auto tasks = get<nlohmann::json>("/api/v1/tasks?since=10m&limit=1000&open=1", stop); tasks) {
    panes.tasks = pane_lines(render_tasks_table(*tasks, now_us, false));
  } else {
    panes.tasks_note = fmt::format("no tasks from {}: {}", name(), tasks.error());
  }
  if (auto usage = get<view::Json>("/api/v1/usage?by=user&since=today", stop); usage) {
    panes.users = usage_lines(*usage);
    if (panes.users.empty()) panes.users_note = "no GPU use recorded today";
  } else {
    panes.users_note = fmt::format("no history from {}: {}", name(), usage.error());
  }
  return panes;
}

}  // namespace gpumeter::cli
