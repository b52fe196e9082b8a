// SPDX-License-Identifier: MIT
#include "cli/report_database.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

namespace gpumeter::cli {
namespace {

namespace fs = std::filesystem;

bool exists(const fs::path& path) {
  struct stat info{};
  return lstat(path.c_str(), &info) == 0;
}

Error nothing_recorded(const std::vector<fs::path>& tried) {
  std::vector<std::string> names;
  names.reserve(tried.size());
  for (const fs::path& path : tried) names.push_back(path.string());
  return Error{ErrorCode::invalid_input,
               fmt::format("no gpumeter history found (looked for {}). History is recorded by "
                           "`gpumeter daemon` (run as root, it writes {}/{}) or once by `gpumeter "
                           "record --once`; --database PATH reads another file",
                           fmt::join(names, " and "), store::kSystemDatabaseDirectory,
                           store::kDatabaseFileName)};
}

}  // namespace

std::vector<fs::path> report_database_candidates(const std::optional<fs::path>& database,
                                                 const store::LocationEnvironment& env) {
  if (database) return {*database};
  const fs::path system = fs::path(store::kSystemDatabaseDirectory) / store::kDatabaseFileName;
  const auto own = store::default_database_path(env);
  if (!own) return {system};
  const bool named = env.gpumeter_database != nullptr && *env.gpumeter_database != '\0';
  if (*own == system || named) return {*own};
  return {*own, system};
}

std::expected<store::Store, Error> open_report_database(const std::vector<fs::path>& candidates) {
  const auto found = std::ranges::find_if(candidates, exists);
  if (found == candidates.end()) return std::unexpected(nothing_recorded(candidates));
  if (access(found->c_str(), R_OK) != 0) {
    return std::unexpected(
        Error{ErrorCode::invalid_input,
              fmt::format("cannot read {}: {}; the system history is readable by root and by the "
                          "group an administrator gives it (docs/report.md)",
                          found->string(), std::strerror(errno))});
  }
  auto opened = store::Store::open(*found, {.read_only = true});
  if (!opened) return std::unexpected(Error{ErrorCode::invalid_input, opened.error().message});
  return opened;
}

}  // namespace gpumeter::cli
