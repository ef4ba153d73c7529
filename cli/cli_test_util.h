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

// Runs `occam <args>` with stderr merged into `out` (or discarded when
// `stdout_only`), as a user sees it in a terminal.
CliOutput RunOccamMerged(const std::string& args, bool stdout_only = false);

// Compares `actual` with testdata/golden/<name>; OCCAM_UPDATE_GOLDEN=1
// rewrites the file instead.
void ExpectGolden(const std::string& name, const std::string& actual);

// A path in the test temp directory unique to this process and call, ending
// in `suffix` (e.g. ".csv").
std::string UniqueTempPath(const std::string& suffix);

// The whole file, or "" when it cannot be read.
std::string ReadWholeFile(const std::string& path);

}  // namespace occam::testing_cli
