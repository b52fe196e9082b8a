// SPDX-License-Identifier: MIT
// The daemon's config file (TOML, read by toml++; docs/daemon.md), as `gpumeter daemon
// --config FILE` reads it: every key is handed to its option, then the options are resolved.
// Promise: any file gives settings or an invalid_input error that names the file; nothing
// throws past apply_config_file (an exception would end the daemon with no message).
// The text is read from a memfd through /proc/self/fd, the real file-reading path.
#include <sys/mman.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstddef>
#include <cstdint>
#include <string>

#include "cli/config_file.h"
#include "cli/daemon_options.h"
#include "cli/history_options.h"
#include "fuzz_check.h"
#include "store/location.h"
#include "task/socket_path.h"

namespace {

using namespace gpumeter;

// The file's path, or "" when no memfd could be made (then the input is skipped).
std::string write_file(int fd, std::string_view text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const auto wrote = ::write(fd, text.data() + done, text.size() - done);
    if (wrote <= 0) return {};
    done += static_cast<std::size_t>(wrote);
  }
  return "/proc/self/fd/" + std::to_string(fd);
}

void check_error(const Error& error, const std::string& path, const char* what) {
  fuzz::check(error.code == ErrorCode::invalid_input, what);
  fuzz::check(error.message.starts_with(path) || error.message.starts_with("--"), what);
}

void resolve(const cli::DaemonOptions& options) {
  const auto settings =
      cli::resolve_daemon_options(options, {.gpumeter_socket = "/nonexistent/task.sock"});
  if (!settings) return;
  const store::LocationEnvironment env{.gpumeter_database = "/nonexistent/gpumeter.db"};
  const auto history =
      cli::resolve_history_options(options.history, env, settings->interval, settings->horizon);
  if (history) {
    fuzz::check(settings->interval.count() > 0, "daemon config: interval not positive");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const int fd = ::memfd_create("fuzz.toml", MFD_CLOEXEC);
  if (fd < 0) return 0;
  const auto path = write_file(fd, fuzz::text_of(data, size));
  if (!path.empty()) {
    CLI::App app;
    CLI::App* daemon = app.add_subcommand("daemon");
    cli::DaemonOptions options;
    cli::add_daemon_options(*daemon, options);
    const auto applied = cli::apply_config_file(*daemon, path);
    if (applied) {
      resolve(options);
    } else {
      check_error(applied.error(), path, "daemon config: error without file");
    }
  }
  ::close(fd);
  return 0;
}
