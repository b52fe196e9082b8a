// SPDX-License-Identifier: MIT
#include "exposition/process_labels.h"

#include <gtest/gtest.h>

namespace gpumeter::exposition::process_labels_test {

HostProcess described() {
  HostProcess host;
  host.pid = 42;
  host.uid = 1001U;
  host.user = std::string("alice");
  host.cmdline = std::vector<std::string>{"python3", "-u", "/home/alice/train.py", "--lr", "3"};
  host.comm = std::string("python3");
  return host;
}

TEST(OwnerLabel, NameElseUidElseQuestionMark) {
  HostProcess host = described();
  EXPECT_EQ(owner_label(host), "alice");
  host.user = std::unexpected(Unavailable::error);
  EXPECT_EQ(owner_label(host), "1001");
  host.uid = std::unexpected(Unavailable::no_permission);
  EXPECT_EQ(owner_label(host), "?");
  EXPECT_EQ(owner_label(std::unexpected(Unavailable::process_gone)), "?");
}

TEST(CommandLabel, ShortCommandElseCommElseEmpty) {
  HostProcess host = described();
  EXPECT_EQ(command_label(host), "train.py");
  host.cmdline = std::vector<std::string>{};
  EXPECT_EQ(command_label(host), "python3");
  host.comm = std::unexpected(Unavailable::no_permission);
  EXPECT_EQ(command_label(host), "");
  EXPECT_EQ(command_label(std::unexpected(Unavailable::no_permission)), "");
}

}  // namespace gpumeter::exposition::process_labels_test
