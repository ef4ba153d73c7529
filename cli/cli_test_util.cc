#include "cli/cli_test_util.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace occam::testing_cli {

std::string UniqueTempPath(const std::string& suffix) {
  static std::atomic<int> counter{0};
  return ::testing::TempDir() + "occam-cli-" + std::to_string(::getpid()) + "-" +
         std::to_string(counter++) + suffix;
}

std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

CliOutput RunOccam(const std::string& args) {
  const std::string out = UniqueTempPath(".out");
  const std::string err = UniqueTempPath(".err");
  const std::string cmd = std::string(OCCAM_BINARY) + " " + args + " > " + out + " 2> " + err;
  const int rc = std::system(cmd.c_str());
  CliOutput o{WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, ReadWholeFile(out), ReadWholeFile(err)};
  std::remove(out.c_str());
  std::remove(err.c_str());
  return o;
}

}  // namespace occam::testing_cli
