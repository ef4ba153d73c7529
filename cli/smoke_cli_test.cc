// Placeholder so the CLI test target exists before the first CLI test lands.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace {

TEST(Cli, VersionFlagExitsZero) {
  const std::string cmd = std::string(OCCAM_BINARY) + " --version > /dev/null 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0);
}

TEST(Cli, UnknownCommandIsBadInput) {
  const std::string cmd = std::string(OCCAM_BINARY) + " frobnicate > /dev/null 2>&1";
  const int rc = std::system(cmd.c_str());
  EXPECT_EQ(WEXITSTATUS(rc), 2);
}

}  // namespace
