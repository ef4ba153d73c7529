// Fuzzes the command line (RunCommandLine, what main() runs): the bytes are
// the arguments, one per line, after a subcommand chosen by the first byte.
// Invariants: no crash, no exception, exit status 0 or 2 (1 means a bug),
// and bounded time (libFuzzer's -timeout). `plan`, `sweep` and `validate`
// run searches that take seconds by design and are left out; flags that
// write files (--trace, --csv) are dropped so that the fuzzer writes nothing.
// `balance` routes steps x sample tokens x experts scores by design (its
// defaults: 2.6e8, about 90 s under the sanitizers; its limit 2e10), so the
// harness fixes its work at the smallest sizes and fuzzes every other flag.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "cli/commands.h"
#include "fuzz/fuzz_util.h"

namespace {

constexpr const char* kCommands[] = {"estimate", "collective", "simulate", "balance", "list"};
constexpr size_t kMaxArgs = 64;

bool WritesAFile(std::string_view arg) {
  return arg.starts_with("--trace") || arg.starts_with("--csv");
}

// The flags that size balance's work, and the smallest values they take.
constexpr const char* kBalanceWork[] = {"--steps", "1", "--sample-tokens", "64"};

bool SizesBalanceWork(std::string_view arg) {
  return arg.starts_with("--steps") || arg.starts_with("--sample-tokens");
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // The commands print their reports; keep the fuzzer's output readable.
  if (std::freopen("/dev/null", "w", stdout) == nullptr) return 1;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view command = kCommands[data[0] % std::size(kCommands)];
  const bool balance = command == "balance";
  std::vector<std::string> args = {"occam", std::string(command)};
  if (balance) args.insert(args.end(), std::begin(kBalanceWork), std::end(kBalanceWork));
  std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  while (!rest.empty() && args.size() < kMaxArgs) {
    const size_t end = rest.find('\n');
    const std::string_view arg = rest.substr(0, end);
    if (WritesAFile(arg) || (balance && SizesBalanceWork(arg))) return 0;
    args.emplace_back(arg);
    if (end == std::string_view::npos) break;
    rest.remove_prefix(end + 1);
  }
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  const int status = occam::cli::RunCommandLine(static_cast<int>(argv.size()), argv.data());
  occam::fuzz::Check(status == 0 || status == 2, "exit status is 0 or 2 (1 is an internal error)");
  return 0;
}
