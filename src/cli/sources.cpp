#include "cli/sources.h"

#include <array>
#include <optional>

#include "nvml/backend.h"

namespace gpumeter::cli {
namespace {

std::expected<std::unique_ptr<GpuSource>, Error> open_nvml() {
  return nvml::open_nvml_source({});
}

constexpr std::array kGpuSources{
    GpuSourceRow{.name = "nvml", .enabled_by_default = true, .open = open_nvml},
};

}  // namespace

std::span<const GpuSourceRow> gpu_sources() noexcept {
  return kGpuSources;
}

std::expected<OpenedSource, Error> open_default_gpu_source() {
  std::optional<Error> first_error;
  for (const GpuSourceRow& row : gpu_sources()) {
    if (!row.enabled_by_default) continue;
    auto source = row.open();
    if (source) return OpenedSource{&row, std::move(*source)};
    if (!first_error) first_error = std::move(source.error());
  }
  if (!first_error) return std::unexpected(Error{ErrorCode::internal, "no GPU source is enabled"});
  return std::unexpected(std::move(*first_error));
}

}  // namespace gpumeter::cli
