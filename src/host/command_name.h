// A short, readable name for a command line, as `gpumeter list` shows it.
#pragma once

#include <string>
#include <vector>

namespace gpumeter::host {

// "train.py" for `python3 -u /home/a/train.py --lr 3`, "jupyter" for notebook kernels
// (`python -m ipykernel_launcher -f ...`), else the command line trimmed to `max_width`
// characters with an ellipsis.
std::string short_command(const std::vector<std::string>& argv, std::size_t max_width = 40);

}  // namespace gpumeter::host
