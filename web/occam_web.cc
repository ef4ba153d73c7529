// occam in the browser: one command line in, what the CLI would print out.
// The page (web/app.js) calls occam_run with the arguments as a JSON array
// of strings and reads back {"exit_code", "out", "err"}: the same
// RunCommand as the `occam` executable and the Python module.
#include <emscripten/emscripten.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/commands.h"

namespace {

occam::cli::CommandOutput RunJsonArgs(const char* args_json) {
  const nlohmann::json args = nlohmann::json::parse(args_json, nullptr, false);
  if (!args.is_array() || !std::all_of(args.begin(), args.end(),
                                       [](const nlohmann::json& a) { return a.is_string(); })) {
    occam::cli::CommandOutput bad;
    bad.exit_code = 2;
    bad.err = "occam: error: occam_run takes a JSON array of strings\n";
    return bad;
  }
  return occam::cli::RunCommand(args.get<std::vector<std::string>>());
}

}  // namespace

// Returns a NUL-terminated JSON object the caller frees with free().
extern "C" EMSCRIPTEN_KEEPALIVE char* occam_run(const char* args_json) {
  const occam::cli::CommandOutput o = RunJsonArgs(args_json);
  const nlohmann::json reply = {{"exit_code", o.exit_code}, {"out", o.out}, {"err", o.err}};
  const std::string text = reply.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  char* out = static_cast<char*>(std::malloc(text.size() + 1));
  if (out != nullptr) std::memcpy(out, text.c_str(), text.size() + 1);
  return out;
}
