// SPDX-License-Identifier: MIT
// Runs the command line in-process through cli::run(), capturing what it prints.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "cli/serve_commands.h"

namespace gpumeter::cli {

struct Result {
  int status = 0;
  std::string out;
  std::string err;
};

// `args` after the program name; `terminal` and `no_color` stand for the environment.
inline Result run_cli(const std::vector<std::string>& args, bool terminal = false,
                      const char* no_color = nullptr) {
  std::vector<std::string> argv{"gpumeter"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::ostringstream out;
  std::ostringstream err;
  const int status = run(argv, Io{out, err, terminal, no_color}, serve_commands());
  return {status, out.str(), err.str()};
}

}  // namespace gpumeter::cli
