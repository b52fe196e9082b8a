// SPDX-License-Identifier: MIT
// `gpumeter daemon` as a real process for the HTTP tests: the built binary on the simulated
// driver, its stderr read for the startup line that says where it serves HTTP.
#pragma once

#include <fcntl.h>
#include <httplib.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace gpumeter::net::testing {

// The gpumeter binary of this build tree: next to the test's own executable (both go to the
// build tree's bin/).
inline std::filesystem::path gpumeter_binary() {
  return std::filesystem::read_symlink("/proc/self/exe").parent_path() / "gpumeter";
}

class Process {
 public:
  // Starts gpumeter with `args`, stdout written to `out` (discarded when empty), stderr
  // captured.
  explicit Process(const std::vector<std::string>& args, const std::filesystem::path& out = {}) {
    int pipe_fds[2];
    if (::pipe2(pipe_fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
    std::vector<std::string> words{gpumeter_binary().string()};
    words.insert(words.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& word : words) argv.push_back(word.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    const std::string out_path = out.empty() ? "/dev/null" : out.string();
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_path.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
    const int spawned = ::posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(pipe_fds[1]);
    err_fd_ = pipe_fds[0];
    if (spawned != 0) throw std::runtime_error("cannot start " + words[0]);
  }
  ~Process() {
    if (pid_ > 0 && status_ < 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    if (err_fd_ >= 0) ::close(err_fd_);
  }
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  // Reads stderr until it holds `text` (true), or the process closes it or `timeout` passes.
  bool wait_for(const std::string& text, std::chrono::seconds timeout = std::chrono::seconds(30)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (err_.find(text) == std::string::npos) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0 || !read_some(static_cast<int>(left.count()))) return false;
    }
    return true;
  }

  // Sends SIGTERM and waits for the exit; the exit status (128 + signal if killed).
  int terminate() {
    ::kill(pid_, SIGTERM);
    return wait();
  }

  // Waits for the exit, reading the rest of stderr; the exit status.
  int wait() {
    while (read_some(60'000)) {
    }
    if (status_ < 0) {
      int raw = 0;
      ::waitpid(pid_, &raw, 0);
      status_ = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
    }
    return status_;
  }

  const std::string& err() const noexcept { return err_; }

 private:
  // One read of stderr within `timeout_ms`; false at its end or when nothing came.
  bool read_some(int timeout_ms) {
    pollfd ready{.fd = err_fd_, .events = POLLIN, .revents = 0};
    if (::poll(&ready, 1, timeout_ms) <= 0) return false;
    char buffer[4096];
    const ssize_t got = ::read(err_fd_, buffer, sizeof(buffer));
    if (got <= 0) return false;
    err_.append(buffer, static_cast<std::size_t>(got));
    return true;
  }

  pid_t pid_ = -1;
  int err_fd_ = -1;
  int status_ = -1;
  std::string err_;
};

// A daemon on `scenario` with its socket and database in `dir`, sampling every 200 ms and
// recording every second, HTTP on a free loopback port unless `args` say otherwise. Started
// once its log says where it serves HTTP.
class Daemon {
 public:
  Daemon(const std::filesystem::path& scenario, const std::filesystem::path& dir,
         std::vector<std::string> args = {})
      : process_(arguments(scenario, dir, std::move(args))) {
    if (!process_.wait_for("serving HTTP on ")) {
      throw std::runtime_error("the daemon did not start:\n" + process_.err());
    }
    const auto at = process_.err().find("serving HTTP on ") + 16;
    url_ = process_.err().substr(at, process_.err().find('\n', at) - at);
    port_ = std::stoi(url_.substr(url_.rfind(':') + 1));
    wait_for_first_round();
  }

  static std::vector<std::string> arguments(const std::filesystem::path& scenario,
                                            const std::filesystem::path& dir,
                                            std::vector<std::string> extra) {
    std::vector<std::string> args{
        "--simulate",  scenario.string(), "daemon",     "--socket", (dir / "daemon.sock").string(),
        "--state-dir", dir.string(),      "--interval", "200ms",    "--record-interval",
        "1s"};
    const bool listens = std::ranges::find(extra, "--listen") != extra.end();
    if (!listens) extra.insert(extra.begin(), {"--listen", "127.0.0.1:0"});
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }

  // Routes answer 503 until the sampler's first round: wait for /healthz to say it ran.
  void wait_for_first_round() {
    httplib::Client client(url_);
    client.enable_server_certificate_verification(false);  // only to see it answer
    for (int attempt = 0; attempt < 300; ++attempt) {
      const auto result = client.Get("/healthz");
      if (result && result->status == 200) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    throw std::runtime_error("the daemon's sampler did not run:\n" + process_.err());
  }

  const std::string& url() const noexcept { return url_; }  // "http://127.0.0.1:PORT"
  int port() const noexcept { return port_; }
  Process& process() noexcept { return process_; }

 private:
  Process process_;
  std::string url_;
  int port_ = 0;
};

}  // namespace gpumeter::net::testing
