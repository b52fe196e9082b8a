// SPDX-License-Identifier: MIT
// The limit options that `gpumeter run` and `gpumeter limit` share (--cpus, --cpu-percent,
// --cpuset, --memory), the options of `gpumeter limit` itself (docs/limit.md), and what they
// resolve to.
#pragma once

#include <CLI/CLI.hpp>
#include <expected>
#include <filesystem>
#include <string>

#include "core/error.h"
#include "core/model.h"
#include "host/cgroup_limits.h"

namespace gpumeter::cli {

// The limits as typed; an empty one was not asked for.
struct LimitTexts {
  std::string cpus;
  std::string cpu_percent;
  std::string cpuset;
  std::string memory;

  bool any() const noexcept {
    return !cpus.empty() || !cpu_percent.empty() || !cpuset.empty() || !memory.empty();
  }
};

// The registered options, for a command that excludes them from one of its own.
struct LimitOptionList {
  CLI::Option* cpus = nullptr;
  CLI::Option* cpu_percent = nullptr;
  CLI::Option* cpuset = nullptr;
  CLI::Option* memory = nullptr;
};

// Registers the four limits on `command` (--cpus excludes --cpu-percent).
LimitOptionList add_limit_options(CLI::App& command, LimitTexts& texts);

// Checks the limits against the machine: the CPUs online are read under `root`
// (sys/devices/system/cpu/online; "/" on a live system) when a CPU limit needs them.
// --cpu-percent counts the CPUs of --cpuset when it is given, else the online ones.
// Errors: invalid_input "--cpus: ..." naming the option and what was expected; io when the
// online CPUs cannot be read.
std::expected<host::Limits, Error> resolve_limits(const LimitTexts& texts,
                                                  const std::filesystem::path& root);

// `gpumeter limit` as typed.
struct LimitOptions {
  Pid pid = 0;
  LimitTexts limits;
  bool clear = false;
  bool json = false;
  std::string state_dir;  // empty: the default (limit_state.h)
};

// Registers the options of `gpumeter limit` (--pid required; --clear excludes the limits).
void add_limit_command_options(CLI::App& limit, LimitOptions& options);

}  // namespace gpumeter::cli
