// SPDX-License-Identifier: MIT
// The C++ RAII wrapper against the fake daemon: a task ends on scope exit, end() is idempotent,
// moves transfer ownership, and without a daemon everything is inert. Usage: cpp_consumer SOCKET
#include <cstdio>
#include <gpumeter/gpumeter.hpp>
#include <string>
#include <utility>

namespace {

int failures = 0;

void check(bool condition, const char* what) {
  if (!condition) {
    std::fprintf(stderr, "failed: %s\n", what);
    ++failures;
  }
}

void scope_exit_ends_the_task(gpumeter::Client& client) {
  std::uint64_t id = 0;
  {
    auto task = client.task("decode", R"({"stream":"cam3"})");
    check(task.begin_status() == GPUMETER_OK, "begin accepted");
    id = task.id();
  }
  // The fake numbers tasks in order, so the next one proves the first was ended, not leaked.
  auto next = client.task("decode");
  check(next.id() == id + 1, "ids are consecutive");
  const gpumeter::Result& result = next.end();
  check(result.ok(), "end succeeded");
  check(result.figures.sm_percent == 42.5, "figures filled");
  check(next.end().ok() && next.id() == 0, "a second end returns the same result");
}

void moves_transfer_the_task(gpumeter::Client& client) {
  auto first = client.task("decode");
  gpumeter::Task second = std::move(first);
  // The wrapper defines its moved-from state (empty), so reading it is the point here.
  // NOLINTNEXTLINE(bugprone-use-after-move)
  check(first.id() == 0 && second.id() != 0, "the moved-from task is empty");
  check(second.end().ok(), "the moved-to task ends");
  gpumeter::Client moved = std::move(client);
  // NOLINTNEXTLINE(bugprone-use-after-move)
  check(moved.connected() && !client.connected(), "the client moves");
  client = std::move(moved);
}

void without_a_daemon_tasks_are_inert(const std::string& socket) {
  gpumeter::Client client((socket + ".absent").c_str());
  check(!client.connected() && client.status() == GPUMETER_E_NO_DAEMON, "no daemon");
  auto task = client.task("decode");
  check(task.end().status == GPUMETER_E_NO_DAEMON, "the task reports why");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  gpumeter::Client client(argv[1]);
  check(client.connected(), "connected");
  scope_exit_ends_the_task(client);
  moves_transfer_the_task(client);
  without_a_daemon_tasks_are_inert(argv[1]);
  std::printf("%d failed checks\n", failures);
  return failures == 0 ? 0 : 1;
}
