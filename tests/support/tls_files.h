// SPDX-License-Identifier: MIT
// A self-signed certificate for 127.0.0.1 and localhost, made with the openssl command in a
// fresh temporary directory, for tests of the https paths.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpumeter::net::testing {

struct TlsFiles {
  std::filesystem::path directory;
  std::filesystem::path certificate;
  std::filesystem::path key;
};

inline void run_quietly(std::vector<std::string> argv) {
  std::vector<char*> args;
  for (std::string& arg : argv) args.push_back(arg.data());
  args.push_back(nullptr);
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(STDOUT_FILENO);
    ::close(STDERR_FILENO);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  int status = 0;
  if (child < 0 || ::waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0) {
    throw std::runtime_error("failed: " + argv.front());
  }
}

inline TlsFiles make_self_signed_certificate() {
  std::string pattern = (std::filesystem::temp_directory_path() / "gpumeter-tls-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  TlsFiles files{pattern, std::filesystem::path(pattern) / "cert.pem",
                 std::filesystem::path(pattern) / "key.pem"};
  run_quietly({"openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
               "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout",
               files.key.string(), "-out", files.certificate.string()});
  return files;
}

}  // namespace gpumeter::net::testing
