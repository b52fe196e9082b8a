// SPDX-License-Identifier: MIT
// The GPU sources the CLI knows, in one explicit table: a new source (Jetson, ...) is one
// row in sources.cpp plus its factory.
#pragma once

#include <expected>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/driver_wait.h"
#include "core/error.h"
#include "core/source.h"

namespace gpumeter::cli {

// What the command line says about where GPUs are read from.
struct GpuSourceOptions {
  std::string nvml_library;       // empty: $GPUMETER_NVML_LIBRARY, else the driver's soname
  std::string jetson_root = "/";  // where a Jetson board's kernel files are read (tests: a tree)
  std::string only;               // `--source`: the one row to open; empty: the default rows
};

using GpuSourceFactory =
    std::expected<std::unique_ptr<GpuSource>, Error> (*)(const GpuSourceOptions&);

struct GpuSourceRow {
  std::string_view name;    // also the snapshot's source label
  bool enabled_by_default;  // tried without being asked for
  GpuSourceFactory open;
};

std::span<const GpuSourceRow> gpu_sources() noexcept;

// The rows open_default_gpu_source tries, in order: `--source`'s alone, else the default rows,
// the board's files first on a Tegra board (whose NVML, where it loads, reads nearly nothing).
std::vector<const GpuSourceRow*> rows_to_try(const GpuSourceOptions& options);

// Tries the default-enabled sources in table order (or only the row `only` names) and
// returns the first that opens, with its row; when none opens, the first one's error (so a
// machine without a driver gets the NVML loader's one-line explanation).
struct OpenedSource {
  const GpuSourceRow* row = nullptr;
  std::unique_ptr<GpuSource> source;
};
std::expected<OpenedSource, Error> open_default_gpu_source(const GpuSourceOptions& options);

// The default sources behind a DriverWait (core/driver_wait.h), for the daemon: it never
// fails; until a source opens it reads no GPU and tries again, saying so through `log`. The
// row is the first default-enabled one.
OpenedSource open_default_gpu_source_waiting(const GpuSourceOptions& options,
                                             std::function<void(const std::string&)> log,
                                             const DriverWait*& wait);

}  // namespace gpumeter::cli
