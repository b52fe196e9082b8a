// The command-line interface: `gpumeter [GLOBAL OPTIONS] SUBCOMMAND [OPTIONS]`.
#pragma once

#include <ostream>
#include <span>
#include <string>

namespace gpumeter::cli {

// Where a run writes, and what it knows about its surroundings. Passed in, so that tests can
// run the CLI in-process with string streams and a chosen environment.
struct Io {
  std::ostream& out;
  std::ostream& err;
  bool out_is_terminal = false;
  const char* no_color_env = nullptr;  // NO_COLOR's value, or null when unset
};

// Runs one command line (args[0] is the program name) and returns the exit status:
// 0 success, 1 nothing suitable found (e.g. no free GPU), 2 bad usage, bad input or no
// driver. Never throws.
int run(std::span<const std::string> args, const Io& io);

// run() on the process's own arguments, streams and environment.
int run(int argc, char** argv);

}  // namespace gpumeter::cli
