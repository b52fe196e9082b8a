// SPDX-License-Identifier: MIT
// A short, readable name for a command line, as `gpumeter list`, /metrics and the dashboard
// show it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace gpumeter::view {

// What a person would call the command, at most `max_width` characters (UTF-8 code points;
// a trimmed name ends in "…"):
//   - "train.py" for `python3 -u /home/a/train.py --lr 3`: for an interpreter (python,
//     python3.x, pypy, ruby, node, perl, bash, sh, dash, zsh) the basename of the first
//     argument that is not an option or an option's value;
//   - the module for `python -m torch.distributed.run ...`;
//   - "jupyter" for notebook kernels and servers (`-m ipykernel_launcher`, `-m ipykernel`,
//     `jupyter-notebook`, `jupyter-lab`);
//   - else the executable's basename followed by its arguments, e.g. "ffmpeg -i in.mp4 o.mkv".
// An interpreter running inline code (`python -c ...`) or nothing (a REPL) falls to the last
// rule. A command line rewritten into one string with spaces (setproctitle) is split at the
// spaces first. Empty `argv` gives "".
std::string short_command(const std::vector<std::string>& argv, std::size_t max_width = 40);

}  // namespace gpumeter::view
