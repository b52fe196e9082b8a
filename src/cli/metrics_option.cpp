// SPDX-License-Identifier: MIT
#include "cli/metrics_option.h"

#include "exposition/metrics.h"

namespace gpumeter::cli {

CLI::Option* add_metrics_processes_option(CLI::App& command, std::string& value) {
  const CLI::Validator valid(
      [](const std::string& text) {
        const auto limit = exposition::parse_process_limit(text);
        return limit ? std::string() : limit.error().message;
      },
      "top:N|users|none");
  return command
      .add_option("--metrics-processes", value,
                  "Prometheus metrics: per-process series for the N processes holding the most "
                  "GPU memory (top:N, default top:20), per-user series only (users), or "
                  "neither (none)")
      ->option_text("top:N|users|none")
      ->check(valid);
}

}  // namespace gpumeter::cli
