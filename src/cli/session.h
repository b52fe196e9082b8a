// SPDX-License-Identifier: MIT
// The sources one run of the CLI reads, opened once from the global options and kept open
// across the refreshes of `--watch` and `--wait`.
#pragma once

#include <expected>
#include <memory>
#include <string>

#include "cli/sources.h"
#include "core/collect.h"
#include "core/error.h"
#include "core/model.h"
#include "core/source.h"

namespace gpumeter::cli {

struct GlobalOptions {
  std::string simulate;  // scenario file; empty for the real driver
  // `--simulate-jetson`: a Jetson scenario file, or the name of a bundled one; empty for none
  std::string simulate_jetson;
  std::string source;       // `--source nvml|jetson`; empty: the first that opens
  std::string jetson_root;  // `--jetson-root DIR`; empty: "/"
  bool no_color = false;
};

// This machine's name, as snapshots carry it.
std::string hostname();

class Session {
 public:
  // `machine`: a simulated board whose files the GPU source reads, kept while the session runs.
  Session(std::unique_ptr<GpuSource> gpus, std::unique_ptr<ProcessSource> host,
          CollectOptions options, std::shared_ptr<const void> machine = nullptr);

  // One collection, stamped with the current time.
  std::expected<Snapshot, Error> snapshot();
  // The GPUs' identity and memory only (core/collect.h's collect_inventory).
  std::expected<Snapshot, Error> inventory();

  // The sources and snapshot labels, for a sampler that keeps running (`gpumeter daemon`).
  GpuSource& gpus() noexcept { return *gpus_; }
  ProcessSource& host() noexcept { return *host_; }
  const CollectOptions& collect_options() const noexcept { return options_; }
  // Whether snapshots carry each process's recent engine use (one more driver call per GPU).
  void collect_recent_use(bool on) noexcept { options_.recent_use = on; }

 private:
  std::shared_ptr<const void> machine_;  // first: it outlives the sources that read it
  std::unique_ptr<GpuSource> gpus_;
  std::unique_ptr<ProcessSource> host_;
  CollectOptions options_;
};

// Opens the GPU source (the first default-enabled row of the source table) and the process
// source: procfs, or with --simulate the scenario's processes over procfs.
// Errors: a bad scenario (invalid_input), a missing driver (library_not_found,
// driver_failed), each with a one-line message.
std::expected<Session, Error> open_session(const GlobalOptions& options);

// open_session() in two steps, for a command that carries on without a GPU (`run` still
// measures CPU and memory where no driver is installed): the process source first (with
// --simulate, after the scenario was checked and the simulated library chosen), then, with
// the GPU source the caller opened, the session.
struct HostSide {
  std::unique_ptr<ProcessSource> host;
  std::string simulated;  // " (simulated: <scenario file name>)", or empty
  GpuSourceOptions gpus;  // with --simulate, the simulated library
  // With --simulate-jetson, the simulated board (sim/jetson_board.h) whose files gpus reads.
  std::shared_ptr<const void> machine;
};
// Errors: a bad scenario (invalid_input).
std::expected<HostSide, Error> open_host_side(const GlobalOptions& options);
Session make_session(HostSide host, OpenedSource gpus);

}  // namespace gpumeter::cli
