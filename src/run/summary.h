// SPDX-License-Identifier: MIT
// The summary `gpumeter run` prints on stderr when the command has ended, in the spirit of
// `/usr/bin/time -v`: one labelled line per figure, then one block per GPU the tree used.
#pragma once

#include <string>

#include "run/result.h"

namespace gpumeter::run {

std::string run_summary(const RunResult& result);

}  // namespace gpumeter::run
