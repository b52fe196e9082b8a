// SPDX-License-Identifier: MIT
#include "cli/top_remote.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>
#include <vector>

#include "cli/tasks_table.h"
#include "net/token_file.h"
#include "top/status_frame.h"

namespace gpumeter::cli {
namespace {

// Each request's bound: a daemon answers from memory, well within it; a stalled one never
// holds the feed's thread longer (and never the screen, which does not wait on it).
constexpr std::chrono::milliseconds kRemoteTimeout{5000};

// The answer's JSON object, or one line saying why there is none.
std::expected<view::Json, std::string> answer_json(master::HttpResult result) {
  if (!result) return std::unexpected(result.error().message);
  view::Json body = view::Json::parse(result->body, nullptr, false);
  if (result->status == 401)
    return std::unexpected("401: the daemon wants its token (--token-file), or another one");
  if (result->status != 200) {
    const std::string said = body.is_object() && body.contains("error") && body["error"].is_string()
                                 ? body["error"].get<std::string>()
                                 : std::string("no reason given");
    return std::unexpected(fmt::format("HTTP {}: {}", result->status, said));
  }
  if (!body.is_object()) return std::unexpected(std::string("an answer that is not a JSON object"));
  return body;
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
    const auto number = [&](const char* key) {
      return row.contains(key) && row[key].is_number() ? row[key].get<double>() : std::nan("");
    };
    std::string quota = "-";
    if (row.contains("quota") && row["quota"].is_object()) {
      const view::Json& q = row["quota"];
      quota = fmt::format("{:.2f} of {:g} per {} ({:.0f}%){}", q.value("used_gpu_hours", 0.0),
                          q.value("gpu_hours", 0.0), q.value("period", std::string("?")),
                          q.value("percent", 0.0), q.value("over", false) ? " OVER" : "");
    }
    const double sm = number("sm_percent_while_held");
    lines.push_back(fmt::format("{:<16} {:>9.2f} {:>5} {:>5}  {}",
                                row.value("user", std::string("?")), number("gpu_hours"),
                                std::isnan(sm) ? std::string("N/A") : fmt::format("{:.0f}%", sm),
                                static_cast<std::int64_t>(number("processes")), quota));
  }
  return lines;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

std::expected<RemoteDaemon, Error> remote_daemon(
    std::string_view address, const std::optional<std::filesystem::path>& token,
    const std::optional<std::filesystem::path>& ca_file) {
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

std::expected<view::Json, std::string> RemoteReader::get(const std::string& target,
                                                         const std::stop_token& stop) {
  const master::HttpRequest request{
      .url = daemon_.url, .target = daemon_.url.path(target), .options = daemon_.options};
  return answer_json(client_.get(request, stop));
}

// Each GPU's four sparklines over the kHistoryPoints steps before the status's round, one
// request each, all at once; a history that cannot be read leaves its sparkline to fill as
// top runs.
void RemoteReader::seed_history(const view::Json& status, const std::stop_token& stop) {
  static constexpr std::array<const char*, 4> kMetrics{
      "utilization_gpu_percent", "memory_used_bytes", "power_draw_watts", "temperature_celsius"};
  const TimeUs step_us = std::chrono::microseconds(step_).count();
  const TimeUs until_s = status.value("time_us", TimeUs{0}) / step_us * step_us / 1'000'000;
  const auto since_s = until_s - static_cast<TimeUs>(top::kHistoryPoints - 1) * step_.count();
  std::vector<master::HttpRequest> requests;
  std::vector<std::pair<std::uint32_t, double>> asked;  // GPU, memory total (scale)
  for (const view::Json& gpu : status.value("gpus", view::Json::array())) {
    if (!gpu.contains("index") || !gpu["index"].is_number_unsigned()) continue;
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
      auto answer = answer_json(std::move(results[g * kMetrics.size() + metric]));
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
  auto status = get("/api/v1/status", stop);
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
  if (auto tasks = get("/api/v1/tasks?since=10m&limit=1000", stop); tasks) {
    panes.tasks = lines_of(render_tasks_table(nlohmann::json::parse(tasks->dump()), now_us, false));
  } else {
    panes.tasks_note = fmt::format("no tasks from {}: {}", name(), tasks.error());
  }
  if (auto usage = get("/api/v1/usage?by=user&since=today", stop); usage) {
    panes.users = usage_lines(*usage);
    if (panes.users.empty()) panes.users_note = "no GPU use recorded today";
  } else {
    panes.users_note = fmt::format("no history from {}: {}", name(), usage.error());
  }
  return panes;
}

}  // namespace gpumeter::cli
