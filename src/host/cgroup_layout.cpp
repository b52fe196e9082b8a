// SPDX-License-Identifier: MIT
#include "host/cgroup_layout.h"

#include <fmt/format.h>

#include <vector>

#include "core/text.h"
#include "host/files.h"

namespace gpumeter::host {
namespace {

// One cgroup file system mount: its type, controllers (v1) and where it is.
struct CgroupMount {
  bool unified = false;
  std::vector<std::string_view> controllers;  // v1: from the super options
  std::string root;                           // the part of the hierarchy mounted
  std::string mount_point;
};

// Mount points escape space, tab, newline and backslash as \040, \011, \012 and \134.
std::string unescape(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 3 < text.size()) {
      const auto code = text.substr(i + 1, 3);
      if (code.find_first_not_of("01234567") == std::string_view::npos) {
        out += static_cast<char>(((code[0] - '0') << 6) | ((code[1] - '0') << 3) | (code[2] - '0'));
        i += 3;
        continue;
      }
    }
    out += text[i];
  }
  return out;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  for (std::size_t pos = 0; pos <= text.size();) {
    const std::size_t end = std::min(text.find(separator, pos), text.size());
    if (end > pos) parts.push_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  return parts;
}

// "36 35 98:0 /root /mount/point rw,relatime shared:1 - cgroup cgroup rw,cpu,cpuacct":
// fields up to the optional ones, then "-", the type, the source and the super options.
std::optional<CgroupMount> cgroup_mount(std::string_view line) {
  const std::vector<std::string_view> fields = split_fields(line);
  std::size_t dash = 6;
  while (dash < fields.size() && fields[dash] != "-") ++dash;
  if (dash + 1 >= fields.size()) return std::nullopt;
  const std::string_view type = fields[dash + 1];
  if (type != "cgroup" && type != "cgroup2") return std::nullopt;
  CgroupMount mount{.unified = type == "cgroup2",
                    .root = unescape(fields[3]),
                    .mount_point = unescape(fields[4])};
  if (!mount.unified && dash + 3 < fields.size()) mount.controllers = split(fields[dash + 3], ',');
  return mount;
}

// `path` (ours in the hierarchy) below the mount's root, relative; absent when outside it.
std::optional<std::filesystem::path> below(std::string_view path, std::string_view mount_root) {
  if (mount_root == "/") return std::filesystem::path(path).relative_path();
  if (path == mount_root) return std::filesystem::path();
  if (!path.starts_with(mount_root) || path[mount_root.size()] != '/') return std::nullopt;
  return std::filesystem::path(path.substr(mount_root.size() + 1));
}

// /proc/self/cgroup: "0::/path" for v2, "4:memory:/path" or "2:cpu,cpuacct:/path" for v1.
struct SelfPaths {
  std::optional<std::string> unified;
  std::map<std::string, std::string, std::less<>> v1;  // by controller
};

SelfPaths self_paths(std::string_view text) {
  SelfPaths paths;
  for (std::string_view line : split_lines(text)) {
    const std::size_t first = line.find(':');
    const std::size_t second = line.find(':', first == std::string_view::npos ? 0 : first + 1);
    if (first == std::string_view::npos || second == std::string_view::npos) continue;
    const std::string_view controllers = line.substr(first + 1, second - first - 1);
    const std::string path(line.substr(second + 1));
    if (line.substr(0, first) == "0" && controllers.empty()) paths.unified = path;
    for (std::string_view controller : split(controllers, ',')) paths.v1.emplace(controller, path);
  }
  return paths;
}

void add_mount(CgroupLayout& layout, const std::filesystem::path& root, const CgroupMount& mount,
               const SelfPaths& paths) {
  const auto directory = [&](std::string_view path) -> std::optional<std::filesystem::path> {
    const auto relative = below(path, mount.root);
    if (!relative) return std::nullopt;
    std::filesystem::path dir = root / std::filesystem::path(mount.mount_point).relative_path();
    if (!relative->empty()) dir /= *relative;  // an empty one would leave a trailing '/'
    return dir.lexically_normal();
  };
  if (mount.unified) {
    if (paths.unified && !layout.unified) layout.unified = directory(*paths.unified);
    return;
  }
  for (std::string_view controller : mount.controllers) {
    const auto path = paths.v1.find(controller);
    if (path == paths.v1.end() || layout.v1.contains(controller)) continue;
    if (auto dir = directory(path->second)) layout.v1.emplace(controller, std::move(*dir));
  }
}

}  // namespace

CgroupLayout parse_cgroup_layout(const std::filesystem::path& root, std::string_view mountinfo,
                                 std::string_view self_cgroup) {
  const SelfPaths paths = self_paths(self_cgroup);
  CgroupLayout layout;
  for (std::string_view line : split_lines(mountinfo)) {
    if (const auto mount = cgroup_mount(line)) add_mount(layout, root, *mount, paths);
  }
  return layout;
}

std::expected<CgroupLayout, std::string> read_cgroup_layout(const std::filesystem::path& root,
                                                            std::string_view process) {
  const auto mountinfo_path = root / "proc/self/mountinfo";
  const auto cgroup_path = root / "proc" / process / "cgroup";
  const auto mountinfo = read_file(mountinfo_path);
  if (!mountinfo) {
    return std::unexpected(
        fmt::format("{}: {}", mountinfo_path.string(), mountinfo.error().message()));
  }
  const auto self = read_file(cgroup_path);
  if (!self) {
    return std::unexpected(fmt::format("{}: {}", cgroup_path.string(), self.error().message()));
  }
  return parse_cgroup_layout(root, *mountinfo, *self);
}

}  // namespace gpumeter::host
