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

CliOutput RunOccamMerged(const std::string& args, bool stdout_only) {
  const std::string cmd =
      std::string(OCCAM_BINARY) + " " + args + (stdout_only ? " 2>/dev/null" : " 2>&1");
  CliOutput r;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  size_t n = 0;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int rc = pclose(p);
  r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  return r;
}

void ExpectGolden(const std::string& name, const std::string& actual) {
  const std::string path = std::string(OCCAM_SOURCE_DIR) + "/testdata/golden/" + name;
  const char* update = std::getenv("OCCAM_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(path) << actual;
    return;
  }
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << path << " missing; run with OCCAM_UPDATE_GOLDEN=1";
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), actual) << "golden " << name << " differs";
}

}  // namespace occam::testing_cli
