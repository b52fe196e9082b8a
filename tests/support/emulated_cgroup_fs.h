// SPDX-License-Identifier: MIT
// A CgroupFs over a temporary directory that keeps the kernel's rules that matter for making
// a group (cgroups(7), the kernel's cgroup-v2.rst):
//   - mkdir fills the new group with the interface files of its controllers: in v2 those
//     its parent enables in cgroup.subtree_control, in v1 those of the hierarchy;
//   - writing a pid to cgroup.procs moves the process out of every other group of the
//     hierarchy;
//   - v2 enables a controller below a group only when the group is offered it
//     (cgroup.controllers) and, except at the root, only while no process lives in it; and a
//     process cannot join a group that has enabled controllers below it;
//   - a v1 cpuset group takes no process before it has memory nodes;
//   - rmdir removes only a group without processes and without child groups;
//   - writes never create files; a denied subtree answers EACCES (permission) or EROFS.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "host/cgroup_fs.h"

namespace gpumeter::host::testing {

class EmulatedCgroupFs final : public CgroupFs {
 public:
  using Words = std::vector<std::string>;

  // A v2 hierarchy whose root offers `offered` and enables `enabled` below it.
  void add_v2_root(const std::filesystem::path& root, const Words& offered, const Words& enabled) {
    hierarchies_[root] = Hierarchy{true, {}};
    std::filesystem::create_directories(root);
    put(root / "cgroup.procs", "");
    put(root / "cgroup.controllers", join(offered));
    put(root / "cgroup.subtree_control", join(enabled));
  }

  // A v1 hierarchy with `controllers` (co-mounted when more than one).
  void add_v1_root(const std::filesystem::path& root, const Words& controllers) {
    hierarchies_[root] = Hierarchy{false, controllers};
    std::filesystem::create_directories(root);
    put(root / "cgroup.procs", "");
    populate_v1(root, controllers);
    if (std::ranges::find(controllers, "cpuset") != controllers.end()) {
      put(root / "cpuset.cpus", "0-7\n");
      put(root / "cpuset.mems", "0\n");
    }
  }

  // Every change under `prefix` fails with `error`.
  void deny(const std::filesystem::path& prefix, std::errc error) { denied_[prefix] = error; }

  std::expected<void, std::error_code> make_directory(const std::filesystem::path& dir) override {
    if (auto refused = refusal(dir)) return std::unexpected(*refused);
    if (std::filesystem::exists(dir)) return fail(std::errc::file_exists);
    if (!std::filesystem::is_directory(dir.parent_path()))
      return fail(std::errc::no_such_file_or_directory);
    std::filesystem::create_directory(dir);
    put(dir / "cgroup.procs", "");
    const Hierarchy& hierarchy = hierarchy_of(dir);
    if (hierarchy.unified) {
      const std::string enabled = get(dir.parent_path() / "cgroup.subtree_control");
      put(dir / "cgroup.controllers", enabled);
      put(dir / "cgroup.subtree_control", "");
      populate_v2(dir, words(enabled));
    } else {
      populate_v1(dir, hierarchy.controllers);
    }
    return {};
  }

  std::expected<void, std::error_code> remove_directory(const std::filesystem::path& dir) override {
    if (auto refused = refusal(dir)) return std::unexpected(*refused);
    if (!std::filesystem::is_directory(dir)) return fail(std::errc::no_such_file_or_directory);
    if (!get(dir / "cgroup.procs").empty() || !groups_in(dir).empty()) {
      return fail(std::errc::device_or_resource_busy);
    }
    std::filesystem::remove_all(dir);
    return {};
  }

  std::expected<void, std::error_code> write(const std::filesystem::path& file,
                                             std::string_view text) override {
    if (auto refused = refusal(file)) return std::unexpected(*refused);
    if (!std::filesystem::is_regular_file(file)) return fail(std::errc::no_such_file_or_directory);
    const std::filesystem::path dir = file.parent_path();
    if (file.filename() == "cgroup.subtree_control") return write_subtree(dir, std::string(text));
    if (file.filename() == "cgroup.procs") return join_group(dir, std::string(text));
    put(file, std::string(text) + "\n");
    return {};
  }

  std::expected<std::string, std::error_code> read(const std::filesystem::path& file) override {
    if (!std::filesystem::is_regular_file(file)) return fail(std::errc::no_such_file_or_directory);
    return get(file);
  }

  // Test helpers.
  static std::string get(const std::filesystem::path& file) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  static void put(const std::filesystem::path& file, const std::string& text) {
    std::ofstream(file) << text;
  }
  static Words words(const std::string& text) {
    std::istringstream in(text);
    Words out;
    for (std::string word; in >> word;) out.push_back(word);
    return out;
  }
  // A process in `dir` without going through the writer (it was there before).
  void place(const std::filesystem::path& dir, const std::string& pid) {
    put(dir / "cgroup.procs", get(dir / "cgroup.procs") + pid + "\n");
  }

 private:
  struct Hierarchy {
    bool unified = false;
    Words controllers;  // v1
  };

  static std::unexpected<std::error_code> fail(std::errc error) {
    return std::unexpected(std::make_error_code(error));
  }

  static std::string join(const Words& words) {
    std::string out;
    for (const std::string& word : words) out += (out.empty() ? "" : " ") + word;
    return out + "\n";
  }

  std::optional<std::error_code> refusal(const std::filesystem::path& path) const {
    for (const auto& [prefix, error] : denied_) {
      const auto rest = path.lexically_relative(prefix);
      if (!rest.empty() && *rest.begin() != "..") return std::make_error_code(error);
    }
    return std::nullopt;
  }

  const Hierarchy& hierarchy_of(const std::filesystem::path& path) const {
    for (const auto& [root, hierarchy] : hierarchies_) {
      const auto rest = path.lexically_relative(root);
      if (!rest.empty() && *rest.begin() != "..") return hierarchy;
    }
    throw std::logic_error("not in an emulated hierarchy: " + path.string());
  }

  bool is_root(const std::filesystem::path& dir) const { return hierarchies_.contains(dir); }

  static std::vector<std::filesystem::path> groups_in(const std::filesystem::path& dir) {
    std::vector<std::filesystem::path> groups;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.is_directory()) groups.push_back(entry.path());
    }
    return groups;
  }

  static void populate_v2(const std::filesystem::path& dir, const Words& controllers) {
    for (const std::string& controller : controllers) {
      if (controller == "cpu") put(dir / "cpu.max", "max 100000\n");
      if (controller == "cpuset") {
        put(dir / "cpuset.cpus", "\n");
        put(dir / "cpuset.mems", "\n");
      }
      if (controller == "memory") {
        put(dir / "memory.max", "max\n");
        put(dir / "memory.peak", "0\n");
      }
    }
  }

  static void populate_v1(const std::filesystem::path& dir, const Words& controllers) {
    for (const std::string& controller : controllers) {
      if (controller == "cpu") {
        put(dir / "cpu.cfs_period_us", "100000\n");
        put(dir / "cpu.cfs_quota_us", "-1\n");
      }
      if (controller == "cpuset") {
        put(dir / "cpuset.cpus", "\n");
        put(dir / "cpuset.mems", "\n");
      }
      if (controller == "memory") {
        put(dir / "memory.limit_in_bytes", "9223372036854771712\n");
        put(dir / "memory.max_usage_in_bytes", "0\n");
      }
    }
  }

  std::expected<void, std::error_code> write_subtree(const std::filesystem::path& dir,
                                                     const std::string& text) {
    Words enabled = words(get(dir / "cgroup.subtree_control"));
    const Words offered = words(get(dir / "cgroup.controllers"));
    for (const std::string& change : words(text)) {
      const std::string controller = change.substr(1);
      if (change[0] == '+') {
        if (std::ranges::find(offered, controller) == offered.end()) {
          return fail(std::errc::no_such_file_or_directory);
        }
        if (!is_root(dir) && !get(dir / "cgroup.procs").empty()) {
          return fail(std::errc::device_or_resource_busy);
        }
        if (std::ranges::find(enabled, controller) == enabled.end()) enabled.push_back(controller);
      } else {
        std::erase(enabled, controller);
      }
    }
    put(dir / "cgroup.subtree_control", join(enabled));
    return {};
  }

  std::expected<void, std::error_code> join_group(const std::filesystem::path& dir,
                                                  const std::string& pid) {
    const Hierarchy& hierarchy = hierarchy_of(dir);
    if (hierarchy.unified && !is_root(dir) && !words(get(dir / "cgroup.subtree_control")).empty()) {
      return fail(std::errc::device_or_resource_busy);
    }
    if (!hierarchy.unified && std::filesystem::exists(dir / "cpuset.mems") &&
        words(get(dir / "cpuset.mems")).empty()) {
      return fail(std::errc::no_space_on_device);
    }
    for (const auto& [root, other] : hierarchies_) {
      if (&other != &hierarchy) continue;
      for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
        if (entry.path().filename() != "cgroup.procs") continue;
        Words pids = words(get(entry.path()));
        std::erase(pids, pid);
        put(entry.path(), pids.empty() ? "" : join(pids));
      }
    }
    place(dir, pid);
    return {};
  }

  std::map<std::filesystem::path, Hierarchy> hierarchies_;
  std::map<std::filesystem::path, std::errc> denied_;
};

}  // namespace gpumeter::host::testing
