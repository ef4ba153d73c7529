// Messages echo user input; a 64 MB scalar must not become a 64 MB line.
// Every message that quotes a value the user wrote (a key, a string, a file
// name, a flag value) passes it through Echo(); the CLI shortens a whole
// message with Shorten() before printing it, as a safety net.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace occam {

inline constexpr size_t kMaxEchoChars = 64;
inline constexpr size_t kMaxMessageChars = 2048;

// `text` when it has at most `max` characters; else its head and tail around
// "...(N bytes)...", about `max` characters in all.
inline std::string Shorten(std::string_view text, size_t max) {
  if (text.size() <= max) return std::string(text);
  const std::string mid = "...(" + std::to_string(text.size()) + " bytes)...";
  const size_t tail = max / 5;
  const size_t head = max > mid.size() + tail ? max - mid.size() - tail : 0;
  return std::string(text.substr(0, head)) + mid + std::string(text.substr(text.size() - tail));
}

// A user-supplied value for a message, shortened to kMaxEchoChars.
inline std::string Echo(std::string_view value) { return Shorten(value, kMaxEchoChars); }

}  // namespace occam
