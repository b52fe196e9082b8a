// The sources one run of the CLI reads, opened once from the global options and kept open
// across the refreshes of `--watch` and `--wait`.
#pragma once

#include <expected>
#include <memory>
#include <string>

#include "core/collect.h"
#include "core/error.h"
#include "core/model.h"
#include "core/source.h"

namespace gpumeter::cli {

struct GlobalOptions {
  std::string simulate;  // scenario file; empty for the real driver
  bool no_color = false;
};

class Session {
 public:
  Session(std::unique_ptr<GpuSource> gpus, std::unique_ptr<ProcessSource> host,
          CollectOptions options);

  // One collection, stamped with the current time.
  std::expected<Snapshot, Error> snapshot();

  // The sources and snapshot labels, for a sampler that keeps running (`gpumeter daemon`).
  GpuSource& gpus() noexcept { return *gpus_; }
  ProcessSource& host() noexcept { return *host_; }
  const CollectOptions& collect_options() const noexcept { return options_; }

 private:
  std::unique_ptr<GpuSource> gpus_;
  std::unique_ptr<ProcessSource> host_;
  CollectOptions options_;
};

// Opens the GPU source (the first default-enabled row of the source table) and the process
// source: procfs, or with --simulate the scenario's processes over procfs.
// Errors: a bad scenario (invalid_input), a missing driver (library_not_found,
// driver_failed), each with a one-line message.
std::expected<Session, Error> open_session(const GlobalOptions& options);

}  // namespace gpumeter::cli
