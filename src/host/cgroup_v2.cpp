// SPDX-License-Identifier: MIT
// cgroup v2: one group below ours in the unified hierarchy, with the controllers enabled in
// our group's cgroup.subtree_control.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "host/cgroup_parts.h"

namespace gpumeter::host::cgroup_parts {
namespace {

class CgroupV2 final : public RunCgroup {
 public:
  CgroupV2(CgroupFs& fs, std::filesystem::path parent, const CgroupRequest& request)
      : fs_(fs),
        parent_(std::move(parent)),
        dir_(parent_ / request.name),
        supervisor_(parent_ / (request.name + "-supervisor")),
        self_(request.self) {}
  ~CgroupV2() override { [[maybe_unused]] const auto removed = remove(); }
  CgroupV2(const CgroupV2&) = delete;
  CgroupV2& operator=(const CgroupV2&) = delete;

  // Enables `controllers` for groups below our parent. When the kernel refuses because
  // processes live in it, moves this process into a leaf group first.
  std::expected<void, std::string> enable(const Controllers& controllers);
  std::expected<void, std::string> make();
  std::expected<void, std::string> apply(const Limits& limits);

  CgroupVersion version() const noexcept override { return CgroupVersion::v2; }
  const std::filesystem::path& path() const noexcept override { return dir_; }
  std::vector<std::filesystem::path> directories() const override { return {dir_}; }
  void keep() noexcept override {
    made_ = false;
    in_leaf_ = false;
  }
  std::expected<void, std::string> add(Pid pid) override {
    return write(fs_, dir_ / "cgroup.procs", std::to_string(pid));
  }
  Maybe<std::uint64_t> memory_peak_bytes() override {
    return read_number(fs_, dir_ / "memory.peak");
  }
  std::expected<void, std::string> remove() override;

 private:
  std::expected<void, std::error_code> write_subtree(const Controllers& controllers, char sign);
  std::expected<void, std::string> move_self_to(const std::filesystem::path& group);
  std::expected<void, std::string> enable_from_leaf(const Controllers& controllers);
  std::expected<void, std::string> leave_leaf();
  bool only_the_leaf_left() const;

  CgroupFs& fs_;
  std::filesystem::path parent_;
  std::filesystem::path dir_;
  std::filesystem::path supervisor_;
  Pid self_;
  bool made_ = false;
  bool in_leaf_ = false;
  Controllers enabled_;  // by us, in the parent's cgroup.subtree_control
};

std::expected<void, std::error_code> CgroupV2::write_subtree(const Controllers& controllers,
                                                             char sign) {
  std::string text;
  for (const std::string& controller : controllers) {
    text += fmt::format("{}{}{}", text.empty() ? "" : " ", sign, controller);
  }
  return fs_.write(parent_ / "cgroup.subtree_control", text);
}

std::expected<void, std::string> CgroupV2::move_self_to(const std::filesystem::path& group) {
  return write(fs_, group / "cgroup.procs", std::to_string(self_));
}

std::expected<void, std::string> CgroupV2::enable(const Controllers& controllers) {
  Controllers needed;
  const auto on = fs_.read(parent_ / "cgroup.subtree_control");
  const Controllers already = on ? words(*on) : Controllers{};
  for (const std::string& controller : controllers) {
    if (std::ranges::find(already, controller) == already.end()) needed.push_back(controller);
  }
  if (needed.empty()) return {};
  const auto enabled = write_subtree(needed, '+');
  if (enabled) {
    // Enabled in a group without processes of its own (the root): nothing to undo there.
    return {};
  }
  if (enabled.error() == std::errc::device_or_resource_busy) {
    return enable_from_leaf(needed);
  }
  return std::unexpected(failure(fmt::format("enable {} in", fmt::join(needed, " ")),
                                 parent_ / "cgroup.subtree_control", enabled.error()));
}

// The kernel enables controllers for the groups below a group only while no process lives
// in it: move into a leaf of our own, then enable. Only helps when we are alone in it.
std::expected<void, std::string> CgroupV2::enable_from_leaf(const Controllers& controllers) {
  if (auto made = fs_.make_directory(supervisor_); !made) {
    return std::unexpected(failure("create", supervisor_, made.error()));
  }
  if (auto moved = move_self_to(supervisor_); !moved) {
    [[maybe_unused]] const auto removed = remove_group(fs_, supervisor_);
    return std::unexpected(std::move(moved.error()));
  }
  in_leaf_ = true;
  const auto enabled = write_subtree(controllers, '+');
  if (!enabled) {
    [[maybe_unused]] const auto left = leave_leaf();
    return std::unexpected(
        failure(fmt::format("enable {} in", fmt::join(controllers, " ")),
                parent_ / "cgroup.subtree_control", enabled.error()) +
        (enabled.error() == std::errc::device_or_resource_busy
             ? " (other processes live in that group; only a group of our own can be divided)"
             : ""));
  }
  enabled_ = controllers;
  return {};
}

std::expected<void, std::string> CgroupV2::make() {
  if (auto made = fs_.make_directory(dir_); !made) {
    return std::unexpected(failure("create", dir_, made.error()));
  }
  made_ = true;
  return {};
}

std::expected<void, std::string> CgroupV2::apply(const Limits& limits) {
  if (limits.cpu) {
    auto done = write(fs_, dir_ / "cpu.max",
                      fmt::format("{} {}", limits.cpu->quota_us, limits.cpu->period_us));
    if (!done) return done;
  }
  if (limits.cpuset) {
    if (auto done = write(fs_, dir_ / "cpuset.cpus", *limits.cpuset); !done) return done;
  }
  if (limits.memory_bytes) {
    if (auto done = write(fs_, dir_ / "memory.max", std::to_string(*limits.memory_bytes)); !done) {
      return done;
    }
  }
  return {};
}

bool CgroupV2::only_the_leaf_left() const {
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(parent_, error)) {
    std::error_code kind;
    if (entry.is_directory(kind) && entry.path() != supervisor_) return false;
  }
  return !error;
}

// Back where we were: the controllers off again (unless another group below the parent
// has come to use them meanwhile), this process back in the parent, the leaf removed.
std::expected<void, std::string> CgroupV2::leave_leaf() {
  if (!enabled_.empty()) {
    if (!only_the_leaf_left()) {
      return std::unexpected(
          fmt::format("left {} in place: another group below {} may use "
                      "the controllers enabled for it",
                      supervisor_.string(), parent_.string()));
    }
    if (auto disabled = write_subtree(enabled_, '-'); !disabled) {
      return std::unexpected(failure("disable the controllers enabled in",
                                     parent_ / "cgroup.subtree_control", disabled.error()));
    }
    enabled_.clear();
  }
  if (auto moved = move_self_to(parent_); !moved) return moved;
  in_leaf_ = false;
  return remove_group(fs_, supervisor_);
}

std::expected<void, std::string> CgroupV2::remove() {
  if (made_) {
    if (auto removed = remove_group(fs_, dir_); !removed) return removed;
    made_ = false;
  }
  if (in_leaf_) return leave_leaf();
  return {};
}

}  // namespace

Created create_v2(CgroupFs& fs, const std::filesystem::path& parent, const CgroupRequest& request,
                  const Controllers& controllers) {
  auto group = std::make_unique<CgroupV2>(fs, parent, request);
  if (auto enabled = group->enable(controllers); !enabled) {
    return std::unexpected(std::move(enabled.error()));
  }
  if (auto made = group->make(); !made) return std::unexpected(std::move(made.error()));
  if (auto applied = group->apply(request.limits); !applied) {
    return std::unexpected(std::move(applied.error()));
  }
  return group;
}

}  // namespace gpumeter::host::cgroup_parts
