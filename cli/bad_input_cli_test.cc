// The bad-input corpus (testdata/bad/cases.json): every case runs the built
// binary and must exit with status 2 (an input error), print a message that
// contains each expected substring (the file name and the key path or plan
// field), finish within a time limit, and leave no sanitizer report.
//
// Placeholders in a case's args: {bad} is testdata/bad; {big} is a file of
// just over 100 MB generated at run time in a temporary directory (never
// committed).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

// Seconds one case may take; a hang is a failure.
constexpr int kTimeoutSeconds = 60;

struct BadCase {
  std::string name;
  std::vector<std::string> args;
  std::vector<std::string> expect;
};

std::string ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<BadCase> LoadCases() {
  const fs::path manifest = fs::path(OCCAM_SOURCE_DIR) / "testdata/bad/cases.json";
  const nlohmann::json doc = nlohmann::json::parse(ReadText(manifest));
  std::vector<BadCase> cases;
  for (const auto& c : doc) {
    cases.push_back({c.at("name").get<std::string>(), c.at("args").get<std::vector<std::string>>(),
                     c.at("expect").get<std::vector<std::string>>()});
  }
  return cases;
}

// Single-quotes `s` for /bin/sh.
std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string Substitute(std::string arg, const std::string& key, const std::string& value) {
  for (size_t pos = arg.find(key); pos != std::string::npos; pos = arg.find(key)) {
    arg.replace(pos, key.size(), value);
  }
  return arg;
}

class BadInput : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    tmp_ =
        new fs::path(fs::temp_directory_path() / ("occam-bad-input-" + std::to_string(::getpid())));
    fs::create_directories(*tmp_);
    // A syntactically fine JSON object padded past 100 MB with whitespace:
    // the size limit, not the parser, must reject it.
    std::ofstream big(*tmp_ / "big-model.json", std::ios::binary);
    big << "{\"model_type\": \"llama\"";
    const std::string pad(1 << 20, ' ');
    for (int i = 0; i < 101; ++i) big << pad;
    big << "}\n";
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(*tmp_, ec);
    delete tmp_;
    tmp_ = nullptr;
  }

  // Runs one case; returns the exit status (124 on timeout) and the output.
  static int Run(const BadCase& c, std::string* output) {
    const std::string bad = (fs::path(OCCAM_SOURCE_DIR) / "testdata/bad").string();
    std::string cmd = "timeout " + std::to_string(kTimeoutSeconds) + " " + OCCAM_BINARY;
    for (std::string arg : c.args) {
      arg = Substitute(arg, "{bad}", bad);
      arg = Substitute(arg, "{big}", (*tmp_ / "big-model.json").string());
      cmd += " " + ShellQuote(arg);
    }
    const fs::path out = *tmp_ / "out.txt";
    cmd += " > " + ShellQuote(out.string()) + " 2>&1";
    const int rc = std::system(cmd.c_str());
    *output = ReadText(out);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc);
  }

  static fs::path* tmp_;
};

fs::path* BadInput::tmp_ = nullptr;

TEST_F(BadInput, CorpusHasAtLeastFortyCases) { EXPECT_GE(LoadCases().size(), 40u); }

TEST_F(BadInput, EveryCaseExitsTwoWithAMessageNamingWhere) {
  for (const BadCase& c : LoadCases()) {
    SCOPED_TRACE(c.name);
    std::string output;
    const int status = Run(c, &output);
    EXPECT_NE(status, 124) << "timed out after " << kTimeoutSeconds << " s";
    EXPECT_EQ(status, 2) << output;
    EXPECT_NE(output.find("occam: error: "), std::string::npos) << output;
    for (const std::string& want : c.expect) {
      EXPECT_NE(output.find(want), std::string::npos) << "missing '" << want << "' in: " << output;
    }
    for (const char* report : {"runtime error:", "AddressSanitizer", "LeakSanitizer"}) {
      EXPECT_EQ(output.find(report), std::string::npos) << output;
    }
  }
}

}  // namespace
