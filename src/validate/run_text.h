// Small text helpers for reading the free-text fields of published runs
// (keyword rules documented in doc/validation.md).
#pragma once

#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>

namespace occam::validate {

inline std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

inline bool Has(const std::string& lower_text, std::string_view needle) {
  return lower_text.find(needle) != std::string::npos;
}

// Letters and digits only, lower case: "GPT-OSS 120B" -> "gptoss120b".
inline std::string Squash(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  return out;
}

// The first integer after `marker` in `text` (0 if none).
inline int64_t IntegerAfter(const std::string& text, std::string_view marker) {
  const size_t at = text.find(marker);
  if (at == std::string::npos) return 0;
  size_t i = at + marker.size();
  while (i < text.size() && !std::isdigit(static_cast<unsigned char>(text[i]))) {
    if (text[i] != ' ' && text[i] != '(' && text[i] != '=') return 0;
    ++i;
  }
  int64_t v = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    v = v * 10 + (text[i] - '0');
    ++i;
  }
  return v;
}

// The first decimal number ("1", "1.25") after `marker` in `text`, separated
// from it only by spaces, '(' or '=' (0 if none).
inline double NumberAfter(const std::string& text, std::string_view marker) {
  const size_t at = text.find(marker);
  if (at == std::string::npos) return 0;
  size_t i = at + marker.size();
  while (i < text.size() && (text[i] == ' ' || text[i] == '(' || text[i] == '=')) ++i;
  size_t end = i;
  while (end < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[end])) || (text[end] == '.' && end > i))) {
    ++end;
  }
  if (end == i) return 0;
  return std::stod(text.substr(i, end - i));
}

// The integer in "(16-way)" / "16-way" (0 if none).
inline int64_t WayCount(const std::string& text) {
  const size_t at = text.find("-way");
  if (at == std::string::npos || at == 0) return 0;
  size_t i = at;
  while (i > 0 && std::isdigit(static_cast<unsigned char>(text[i - 1]))) --i;
  if (i == at) return 0;
  return std::stoll(text.substr(i, at - i));
}

}  // namespace occam::validate
