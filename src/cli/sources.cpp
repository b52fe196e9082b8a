#include "cli/sources.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <optional>

#include "nvml/backend.h"

namespace gpumeter::cli {
namespace {

std::expected<std::unique_ptr<GpuSource>, Error> open_nvml(const GpuSourceOptions& options) {
  return nvml::open_nvml_source({.library_path = options.nvml_library});
}

constexpr std::array kGpuSources{
    GpuSourceRow{.name = "nvml", .enabled_by_default = true, .open = open_nvml},
};

}  // namespace

std::span<const GpuSourceRow> gpu_sources() noexcept {
  return kGpuSources;
}

std::expected<OpenedSource, Error> open_default_gpu_source(const GpuSourceOptions& options) {
  std::optional<Error> first_error;
  for (const GpuSourceRow& row : gpu_sources()) {
    if (!row.enabled_by_default) continue;
    auto source = row.open(options);
    if (source) return OpenedSource{&row, std::move(*source)};
    if (!first_error) first_error = std::move(source.error());
  }
  if (!first_error) return std::unexpected(Error{ErrorCode::internal, "no GPU source is enabled"});
  return std::unexpected(std::move(*first_error));
}

OpenedSource open_default_gpu_source_waiting(const GpuSourceOptions& options,
                                             std::function<void(const std::string&)> log,
                                             const DriverWait*& wait) {
  const auto first = std::ranges::find_if(gpu_sources(), &GpuSourceRow::enabled_by_default);
  auto open = [options]() -> std::expected<std::unique_ptr<GpuSource>, Error> {
    auto opened = open_default_gpu_source(options);
    if (!opened) return std::unexpected(std::move(opened.error()));
    return std::move(opened->source);
  };
  auto source =
      std::make_unique<DriverWait>(first->name, std::move(open), RetryDelays{}, std::move(log),
                                   [] { return std::chrono::steady_clock::now(); });
  wait = source.get();
  return OpenedSource{&*first, std::move(source)};
}

}  // namespace gpumeter::cli
