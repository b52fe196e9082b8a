// SPDX-License-Identifier: MIT
#include "net/token_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "support/temp_dir.h"

namespace gpumeter::net::token_file_test {

class TokenFile : public ::testing::Test {
 protected:
  std::filesystem::path file(std::string_view content, mode_t mode = 0600) const {
    const auto path = dir_.write("token", content);
    ::chmod(path.c_str(), mode);
    return path;
  }
  gpumeter::testing::TempDir dir_;
};

TEST_F(TokenFile, StripsOneTrailingNewline) {
  EXPECT_EQ(read_token_file(file("abc.DEF-123\n")).value(), "abc.DEF-123");
  EXPECT_EQ(read_token_file(file("abc\r\n")).value(), "abc");
  EXPECT_EQ(read_token_file(file("abc", 0640)).value(), "abc");
}

TEST_F(TokenFile, RefusesAFileEveryUserMayRead) {
  const auto read = read_token_file(file("abc\n", 0644));
  ASSERT_FALSE(read.has_value());
  EXPECT_EQ(read.error().code, ErrorCode::invalid_input);
  EXPECT_NE(read.error().message.find("mode 0644"), std::string::npos) << read.error().message;
  EXPECT_NE(read.error().message.find(dir_.path().string()), std::string::npos);
}

TEST_F(TokenFile, RefusesEmptyLargeAndInvisibleTokens) {
  for (const std::string& content :
       {std::string(""), std::string("\n"), std::string(5000, 'a'), std::string("two words\n"),
        std::string("a\n\n"), std::string("t\x01k")}) {
    const auto read = read_token_file(file(content));
    ASSERT_FALSE(read.has_value()) << content.size();
    EXPECT_EQ(read.error().code, ErrorCode::invalid_input);
    EXPECT_TRUE(read.error().message.starts_with("--token-file ")) << read.error().message;
  }
}

TEST_F(TokenFile, AMissingFileIsAnIoError) {
  const auto read = read_token_file(dir_.path() / "absent");
  ASSERT_FALSE(read.has_value());
  EXPECT_EQ(read.error().code, ErrorCode::io);
  EXPECT_NE(read.error().message.find("absent"), std::string::npos);
}

TEST_F(TokenFile, ADirectoryIsNotAToken) {
  const auto read = read_token_file(dir_.path());
  ASSERT_FALSE(read.has_value());
  EXPECT_NE(read.error().message.find("not a regular file"), std::string::npos)
      << read.error().message;
}

}  // namespace gpumeter::net::token_file_test
