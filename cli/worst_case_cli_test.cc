// Worst-case inputs, generated at test time (never committed): each must end
// with exit status 2 and one short message, within a time and memory bound
// (issue 19: no crash, hang or unbounded memory from any input). The inputs
// are the repros of each class: quadratic parsing, allocation or work sized
// by an untrusted count, special files, out-of-range integers and huge
// echoed values.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli/cli_test_util.h"

namespace occam {
namespace {

using testing_cli::CliOutput;
using testing_cli::RunOccam;
using testing_cli::UniqueTempPath;

// Generous for a sanitizer build on a shared 2-core machine; a release build
// answers each case in well under a second.
constexpr double kMaxSeconds = 20;
constexpr long kMaxRssKiB = 2L << 20;  // 2 GiB

constexpr const char* kEstimateTail =
    " --cluster h100 --chips 8 --plan tp=1,pp=1,dp=8 --global-batch-seqs 8";

std::string WriteTemp(const std::string& suffix, const std::string& text) {
  const std::string path = UniqueTempPath(suffix);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// Runs occam, checks exit 2, a short message naming `expect`, and the bounds.
void ExpectCleanReject(const std::string& args, const std::string& expect) {
  const auto start = std::chrono::steady_clock::now();
  const CliOutput r = RunOccam(args);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  rusage usage{};
  getrusage(RUSAGE_CHILDREN, &usage);  // the largest child so far
  EXPECT_EQ(r.status, 2) << args << "\n" << r.err.substr(0, 400);
  EXPECT_NE(r.err.find(expect), std::string::npos) << r.err.substr(0, 400);
  EXPECT_LT(r.err.size(), 4096u) << "the message echoes too much";
  EXPECT_LT(seconds, kMaxSeconds) << args;
  EXPECT_LT(usage.ru_maxrss, kMaxRssKiB) << args;
}

TEST(WorstCase, JsonObjectWithManyKeysParsesInLinearTime) {
  // 200,000 distinct keys, then a duplicate of the first: the duplicate-key
  // check was quadratic (80,000 keys took 10 s).
  std::string text = "{";
  for (int i = 0; i < 200000; ++i) text += "\"k" + std::to_string(i) + "\": 1, ";
  text += "\"k0\": 2}";
  const std::string path = WriteTemp(".json", text);
  ExpectCleanReject("estimate --model " + path + kEstimateTail, "'k0' appears twice");
}

TEST(WorstCase, LargeYamlIsRejectedBeforeParsing) {
  std::string text;
  while (text.size() < (size_t{16} << 20)) text += "- 1\n";
  const std::string path = WriteTemp(".yaml", text);
  ExpectCleanReject("estimate --model " + path + kEstimateTail, "YAML");
}

TEST(WorstCase, HugeEchoedValueIsShortened) {
  const std::string key(size_t{1} << 20, 'x');
  const std::string path = WriteTemp(".json", "{\"job\": {\"" + key + "\": 1}}");
  ExpectCleanReject("estimate --model llama-3.1-8b --job " + path + kEstimateTail, "bytes)");
}

TEST(WorstCase, IntegerAbove2To63IsNotEchoedNegative) {
  const std::string path =
      WriteTemp(".json", "{\"job\": {\"seq_len\": 9223372036854775808, \"global_batch_seqs\": 8}}");
  const CliOutput r = RunOccam("estimate --model llama-3.1-8b --job " + path + kEstimateTail);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err.find("-922"), std::string::npos) << r.err;
}

TEST(WorstCase, RunListsWithHostileNumbers) {
  ExpectCleanReject("validate --runs " + WriteTemp(".json", "[1e999]"), "not valid JSON");
  std::string many = "[";
  for (int i = 0; i < 20000; ++i) many += "0,";
  many += "0]";
  ExpectCleanReject("validate --runs " + WriteTemp(".json", many), "at most");
  std::string big(size_t{17} << 20, ' ');
  big[0] = '[';
  big.back() = ']';
  ExpectCleanReject("validate --runs " + WriteTemp(".json", big), "occam reads input files up to");
}

TEST(WorstCase, SpecialFilesAreNamed) {
  const std::string fifo = UniqueTempPath(".json");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  ExpectCleanReject("estimate --model " + fifo + kEstimateTail, "not a regular file");
  std::filesystem::remove(fifo);
  const std::string dir = UniqueTempPath(".json");
  std::filesystem::create_directory(dir);
  ExpectCleanReject("estimate --model " + dir + kEstimateTail, "is a directory");
  std::filesystem::remove(dir);
}

TEST(WorstCase, TraceOfAMillionMicroBatchesIsRefusedBeforeWork) {
  const std::string trace = UniqueTempPath(".json");
  ExpectCleanReject(
      "simulate --schedule 1f1b --stages 4 --microbatches 1000000 --fwd-ms 1 "
      "--bwd-ms 2 --trace " +
          trace,
      "--trace");
  EXPECT_FALSE(std::filesystem::exists(trace));
}

}  // namespace
}  // namespace occam
