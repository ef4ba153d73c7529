// Files from data/ compiled into the binary (cmake/Embed.cmake).
#pragma once

#include <string_view>
#include <vector>

namespace occam {

struct EmbeddedFile {
  std::string_view path;  // relative to the repository root: "data/models/deepseek-v3.json"
  std::string_view content;
};

const std::vector<EmbeddedFile>& EmbeddedFiles();

}  // namespace occam
