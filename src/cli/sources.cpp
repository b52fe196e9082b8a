// SPDX-License-Identifier: MIT
#include "cli/sources.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <optional>
#include <vector>

#include "jetson/source.h"
#include "nvml/backend.h"

namespace gpumeter::cli {
namespace {

std::expected<std::unique_ptr<GpuSource>, Error> open_nvml(const GpuSourceOptions& options) {
  return nvml::open_nvml_source({.library_path = options.nvml_library});
}

std::expected<std::unique_ptr<GpuSource>, Error> open_jetson(const GpuSourceOptions& options) {
  return jetson::open_jetson_source({.root = options.jetson_root, .now = {}});
}

// NVML first: on a server the Jetson probe costs a few failed stats, and where neither opens
// the NVML loader's message is the one that helps. On a Tegra board the board's files come
// first (open_default_gpu_source): an Orin's NVML library loads but reads nearly nothing.
constexpr std::array kGpuSources{
    GpuSourceRow{.name = "nvml", .enabled_by_default = true, .open = open_nvml},
    GpuSourceRow{.name = "jetson", .enabled_by_default = true, .open = open_jetson},
};

bool wanted(const GpuSourceRow& row, const GpuSourceOptions& options) {
  return options.only.empty() ? row.enabled_by_default : row.name == options.only;
}

}  // namespace

std::span<const GpuSourceRow> gpu_sources() noexcept {
  return kGpuSources;
}

std::vector<const GpuSourceRow*> rows_to_try(const GpuSourceOptions& options) {
  std::vector<const GpuSourceRow*> rows;
  for (const GpuSourceRow& row : gpu_sources()) {
    if (wanted(row, options)) rows.push_back(&row);
  }
  if (options.only.empty() && jetson::is_tegra_board(options.jetson_root)) {
    std::ranges::stable_partition(rows,
                                  [](const GpuSourceRow* row) { return row->name == "jetson"; });
  }
  return rows;
}

std::expected<OpenedSource, Error> open_default_gpu_source(const GpuSourceOptions& options) {
  if (!options.only.empty() &&
      std::ranges::find(gpu_sources(), options.only, &GpuSourceRow::name) == gpu_sources().end()) {
    return std::unexpected(
        Error{ErrorCode::invalid_input,
              fmt::format("unknown source \"{}\" (expected nvml or jetson)", options.only)});
  }
  std::optional<Error> first_error;
  for (const GpuSourceRow* row : rows_to_try(options)) {
    auto source = row->open(options);
    if (source) return OpenedSource{row, std::move(*source)};
    if (!first_error) first_error = std::move(source.error());
  }
  if (!first_error) return std::unexpected(Error{ErrorCode::internal, "no GPU source is enabled"});
  return std::unexpected(std::move(*first_error));
}

OpenedSource open_default_gpu_source_waiting(const GpuSourceOptions& options,
                                             std::function<void(const std::string&)> log,
                                             const DriverWait*& wait) {
  // The row the daemon names while it waits: the one it tries first.
  const std::vector<const GpuSourceRow*> rows = rows_to_try(options);
  const GpuSourceRow* first = rows.empty() ? &gpu_sources().front() : rows.front();
  auto open = [options]() -> std::expected<std::unique_ptr<GpuSource>, Error> {
    auto opened = open_default_gpu_source(options);
    if (!opened) return std::unexpected(std::move(opened.error()));
    return std::move(opened->source);
  };
  auto source =
      std::make_unique<DriverWait>(first->name, std::move(open), RetryDelays{}, std::move(log),
                                   [] { return std::chrono::steady_clock::now(); });
  wait = source.get();
  return OpenedSource{first, std::move(source)};
}

}  // namespace gpumeter::cli
