// SPDX-License-Identifier: MIT
#include "view/command_name.h"

#include <algorithm>
#include <array>
#include <optional>
#include <string_view>

#include "core/text.h"

namespace gpumeter::view {
namespace {

struct Interpreter {
  std::string_view name;           // program name, optionally followed by a version ("3.11")
  std::string_view value_options;  // options whose value is the next argument
  std::string_view code_options;   // options that run inline code: there is no script to name
  bool modules;                    // `-m module` runs a module (Python)
};

constexpr std::array kInterpreters = {
    Interpreter{"python", "-W -X -Q", "-c", true},
    Interpreter{"pypy", "-W -X -Q", "-c", true},
    Interpreter{"ruby", "-I -r -C -E -F", "-e", false},
    Interpreter{"node", "-r --require --import --loader", "-e --eval -p --print", false},
    Interpreter{"nodejs", "-r --require --import --loader", "-e --eval -p --print", false},
    Interpreter{"perl", "", "-e -E", false},
    Interpreter{"bash", "-o -O --rcfile --init-file", "-c", false},
    Interpreter{"sh", "-o", "-c", false},
    Interpreter{"dash", "-o", "-c", false},
    Interpreter{"zsh", "-o", "-c", false},
};

constexpr std::array<std::string_view, 6> kJupyterNames = {"ipykernel_launcher", "ipykernel",
                                                           "jupyter-notebook",   "jupyter-lab",
                                                           "jupyter-server",     "jupyter"};

bool listed(std::string_view list, std::string_view word) {
  const auto words = split_fields(list);
  return std::ranges::find(words, word) != words.end();
}

std::string_view basename(std::string_view path) {
  std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// "python3.11" matches "python": the name, then only digits and dots.
bool names_interpreter(std::string_view program, std::string_view name) {
  auto version = after_prefix(program, name);
  return version &&
         std::ranges::all_of(*version, [](char c) { return (c >= '0' && c <= '9') || c == '.'; });
}

const Interpreter* find_interpreter(std::string_view program) {
  auto match = std::ranges::find_if(
      kInterpreters, [&](const Interpreter& i) { return names_interpreter(program, i.name); });
  return match == kInterpreters.end() ? nullptr : &*match;
}

bool is_jupyter(std::string_view name) {
  if (name.ends_with(".py")) name.remove_suffix(3);
  return std::ranges::find(kJupyterNames, name) != kJupyterNames.end();
}

// The script or module an interpreter runs, if it names one.
std::optional<std::string_view> interpreted_target(const Interpreter& interpreter,
                                                   const std::vector<std::string>& args) {
  for (std::size_t i = 1; i < args.size(); ++i) {
    std::string_view arg = args[i];
    bool has_next = i + 1 < args.size();
    if (arg == "--")
      return has_next ? std::optional<std::string_view>(basename(args[i + 1])) : std::nullopt;
    if (listed(interpreter.code_options, arg)) return std::nullopt;
    if (interpreter.modules && arg.starts_with("-m")) {
      if (arg.size() > 2) return arg.substr(2);  // "-mmodule"
      return has_next ? std::optional<std::string_view>(args[i + 1]) : std::nullopt;
    }
    if (listed(interpreter.value_options, arg)) {
      ++i;
    } else if (!arg.starts_with('-')) {
      return basename(arg);
    }
  }
  return std::nullopt;
}

std::string joined(std::string_view program, const std::vector<std::string>& args) {
  std::string text(program);
  for (std::size_t i = 1; i < args.size(); ++i) {
    text += ' ';
    text += args[i];
  }
  return text;
}

std::string full_name(const std::vector<std::string>& args) {
  std::string_view program = basename(args[0]);
  if (program.starts_with('-')) program.remove_prefix(1);  // a login shell's "-bash"
  if (is_jupyter(program)) return "jupyter";
  if (const Interpreter* interpreter = find_interpreter(program)) {
    if (auto target = interpreted_target(*interpreter, args)) {
      return is_jupyter(*target) ? "jupyter" : std::string(*target);
    }
  }
  return joined(program, args);
}

// setproctitle and friends overwrite the arguments with one string and no NULs.
std::vector<std::string> normalized(const std::vector<std::string>& argv) {
  if (argv.size() != 1 || argv[0].find(' ') == std::string::npos) return argv;
  std::vector<std::string> split;
  for (std::string_view field : split_fields(argv[0])) split.emplace_back(field);
  return split;
}

bool is_continuation_byte(char c) {
  return (static_cast<unsigned char>(c) & 0xC0U) == 0x80U;
}

// The byte offset after the first `count` code points of `text` (its size if shorter).
std::size_t code_point_offset(std::string_view text, std::size_t count) {
  std::size_t offset = 0;
  for (std::size_t seen = 0; offset < text.size(); ++offset) {
    if (!is_continuation_byte(text[offset]) && seen++ == count) break;
  }
  return offset;
}

std::string fit(std::string text, std::size_t max_width) {
  if (max_width == 0) return {};
  if (code_point_offset(text, max_width) == text.size()) return text;
  text.resize(code_point_offset(text, max_width - 1));
  return text + "…";
}

}  // namespace

std::string short_command(const std::vector<std::string>& argv, std::size_t max_width) {
  const std::vector<std::string> args = normalized(argv);
  if (args.empty()) return {};
  return fit(full_name(args), max_width);
}

}  // namespace gpumeter::view
