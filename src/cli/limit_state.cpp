// SPDX-License-Identifier: MIT
#include "cli/limit_state.h"

#include <fmt/format.h>

#include "host/files.h"
#include "host/private_directory.h"
#include "store/location.h"

namespace gpumeter::cli {
namespace {

std::unexpected<Error> bad_record(const std::filesystem::path& file, std::string_view why) {
  return std::unexpected(
      Error{ErrorCode::invalid_input,
            fmt::format("{}: {}; remove it to start afresh", file.string(), why)});
}

std::filesystem::path record_file(const std::filesystem::path& dir, Pid pid) {
  return dir / fmt::format("{}.json", pid);
}

std::expected<void, Error> make_state_directory(const std::filesystem::path& dir) {
  std::error_code ignored;
  std::filesystem::create_directories(dir.parent_path(), ignored);
  return host::ensure_private_directory(dir);
}

std::vector<std::filesystem::path> paths_of(const Json& json) {
  std::vector<std::filesystem::path> paths;
  for (const Json& path : json) paths.emplace_back(path.get<std::string>());
  return paths;
}

}  // namespace

std::string limit_group_name(Pid pid) {
  return fmt::format("gpumeter-limit-{}", pid);
}

std::expected<std::filesystem::path, Error> limit_records_directory(const std::string& state_dir) {
  if (!state_dir.empty()) return std::filesystem::path(state_dir) / "limits";
  store::LocationEnvironment env = store::location_environment();
  env.gpumeter_database = nullptr;  // names a database file, not the state directory
  auto database = store::default_database_path(env);
  if (!database) return std::unexpected(std::move(database.error()));
  return database->parent_path() / "limits";
}

Json limit_record_json(Pid pid, const host::LimitedGroup& group) {
  Json origins = Json::object();
  for (const auto& [moved, dirs] : group.origins) {
    Json list = Json::array();
    for (const auto& dir : dirs) list.push_back(dir.string());
    origins[std::to_string(moved)] = std::move(list);
  }
  Json groups = Json::array();
  for (const auto& dir : group.groups) groups.push_back(dir.string());
  return Json{{"pid", pid},
              {"version", group.version == host::CgroupVersion::v2 ? "v2" : "v1"},
              {"groups", std::move(groups)},
              {"origins", std::move(origins)}};
}

std::expected<host::LimitedGroup, Error> limit_record_from_json(const Json& json, Pid pid) {
  const std::filesystem::path file = fmt::format("the record of pid {}", pid);
  host::LimitedGroup group;
  try {
    group.version = json.at("version") == "v1" ? host::CgroupVersion::v1 : host::CgroupVersion::v2;
    group.groups = paths_of(json.at("groups"));
    for (const auto& [moved, dirs] : json.at("origins").items()) {
      group.origins.emplace(static_cast<Pid>(std::stoul(moved)), paths_of(dirs));
    }
  } catch (const std::exception& error) {
    return bad_record(file, error.what());
  }
  for (const auto& dir : group.groups) {
    if (dir.filename() != limit_group_name(pid)) {
      return bad_record(file, fmt::format("{} is not a group of gpumeter limit", dir.string()));
    }
  }
  for (const auto& [moved, dirs] : group.origins) {
    if (dirs.size() != group.groups.size()) {
      return bad_record(file, fmt::format("pid {} has no origin in every hierarchy", moved));
    }
  }
  if (group.groups.empty() || group.origins.empty()) return bad_record(file, "it is empty");
  return group;
}

std::expected<void, Error> save_limit_record(const std::filesystem::path& dir, Pid pid,
                                             const host::LimitedGroup& group) {
  if (auto made = make_state_directory(dir); !made) return made;
  const std::string text = dump_json(limit_record_json(pid, group), true) + "\n";
  if (auto written = host::write_file_atomically(dir, fmt::format("{}.json", pid), text);
      !written) {
    return std::unexpected(
        Error{ErrorCode::io, fmt::format("cannot write {}: {}", record_file(dir, pid).string(),
                                         written.error().message())});
  }
  return {};
}

std::expected<std::optional<host::LimitedGroup>, Error> load_limit_record(
    const std::filesystem::path& dir, Pid pid) {
  const auto file = record_file(dir, pid);
  std::error_code error;
  if (!std::filesystem::exists(file, error)) return std::nullopt;
  if (auto checked = host::ensure_private_directory(dir); !checked) {
    return std::unexpected(std::move(checked.error()));
  }
  const auto text = host::read_file(file);
  if (!text) {
    return std::unexpected(Error{
        ErrorCode::io, fmt::format("cannot read {}: {}", file.string(), text.error().message())});
  }
  const Json json = Json::parse(*text, nullptr, false);
  if (json.is_discarded()) return bad_record(file, "not JSON");
  auto group = limit_record_from_json(json, pid);
  if (!group) return std::unexpected(std::move(group.error()));
  return std::move(*group);
}

void remove_limit_record(const std::filesystem::path& dir, Pid pid) {
  std::error_code ignored;
  std::filesystem::remove(record_file(dir, pid), ignored);
}

}  // namespace gpumeter::cli
