// Helpers for tests that run the built occam binary (OCCAM_BINARY).
#pragma once

#include <string>

namespace occam::testing_cli {

struct CliOutput {
  int status = -1;  // exit status
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs `occam <args>` through the shell. stdout and stderr go to temporary
// files unique to this process and call, so tests may run in parallel.
CliOutput RunOccam(const std::string& args);

// A path in the test temp directory unique to this process and call, ending
// in `suffix` (e.g. ".csv").
std::string UniqueTempPath(const std::string& suffix);

// The whole file, or "" when it cannot be read.
std::string ReadWholeFile(const std::string& path);

}  // namespace occam::testing_cli
