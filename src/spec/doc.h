// Reading occam's input documents: JSON or YAML text becomes one
// nlohmann::json tree (YAML scalars typed by the YAML core schema), and
// `Node` gives typed, path-qualified access with strict key checking.
//
// Every error names the origin (file or catalog entry) and the key path:
//   "deepseek-v3.json: key 'num_hidden_layers' must be an integer (got string)".
#pragma once

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "occam/status.h"

namespace occam::spec {

// Documents above these limits are rejected before parsing, so that parsing
// time and memory stay bounded (doc/hardening.md § Limits). The largest
// bundled document is 16 KB. yaml-cpp holds ~140 bytes per byte of a YAML
// list (a 16 MB list took 14 s and 2.2 GB), hence the lower YAML bound.
inline constexpr size_t kMaxDocumentBytes = size_t{16} << 20;
inline constexpr size_t kMaxYamlBytes = size_t{1} << 20;
inline constexpr int kMaxNestingDepth = 64;

// Parses JSON (text starting with '{' or '[') or YAML. Errors carry the
// origin and, where the parser reports it, the line and column.
Result<nlohmann::json> ParseDocument(std::string_view text, std::string_view origin);

// True when ParseDocument reads `text` as JSON (its first non-blank
// character is '{' or '[').
bool IsJsonText(std::string_view text);

// Deepest nesting of the text: flow brackets outside strings, plus YAML
// block indentation levels. Exposed for tests.
int NestingDepth(std::string_view text);

// "got string", "got number 1.5", ... for messages.
std::string DescribeValue(const nlohmann::json& value);

// A view of one object in a document. `path` is the dotted key path of
// this object ("" for the root, "cluster.tiers[1]", ...).
class Node {
 public:
  Node(const nlohmann::json& value, std::string origin, std::string path)
      : value_(&value), origin_(std::move(origin)), path_(std::move(path)) {}

  const nlohmann::json& value() const { return *value_; }
  const std::string& path() const { return path_; }
  const std::string& origin() const { return origin_; }
  std::string KeyPath(std::string_view key) const;

  // True when the key exists and is not null.
  bool Has(std::string_view key) const;

  // Required values: missing, null or mistyped keys are errors.
  Result<int64_t> Int(std::string_view key) const;
  Result<double> Number(std::string_view key) const;
  Result<bool> Bool(std::string_view key) const;
  Result<std::string> String(std::string_view key) const;
  // Optional values: absent or null gives `fallback`; mistyped is an error.
  Result<int64_t> Int(std::string_view key, int64_t fallback) const;
  Result<double> Number(std::string_view key, double fallback) const;
  Result<bool> Bool(std::string_view key, bool fallback) const;
  Result<std::string> String(std::string_view key, std::string fallback) const;

  // Schemas that list every key ("null when the source does not say"): the
  // key must be present; null gives nullopt; a mistyped value is an error.
  Result<std::optional<int64_t>> NullableInt(std::string_view key) const;
  Result<std::optional<double>> NullableNumber(std::string_view key) const;
  Result<std::optional<bool>> NullableBool(std::string_view key) const;
  Result<std::optional<std::string>> NullableString(std::string_view key) const;
  Result<std::optional<Node>> NullableObject(std::string_view key) const;
  // A key such a schema lets a file omit: absent or null gives nullopt.
  Result<std::optional<std::string>> OmittableString(std::string_view key) const;

  // A nested object (required). The returned node refers into this document.
  Result<Node> Object(std::string_view key) const;
  // A nested array (required); elements are reached with Element().
  Result<const nlohmann::json*> Array(std::string_view key) const;
  // A list of strings (required).
  Result<std::vector<std::string>> StringList(std::string_view key) const;
  Node Element(const nlohmann::json& element, std::string_view key, size_t index) const;

  // Strict formats: every key of this object must be in `known`.
  Status CheckKeys(std::initializer_list<std::string_view> known) const;

  // "<origin>: key '<path.key>' <what>".
  Status Error(std::string_view key, const std::string& what) const;
  // The same for this object as a whole: "<origin>: key '<path>' <what>".
  Status ObjectError(const std::string& what) const;

 private:
  Result<const nlohmann::json*> Get(std::string_view key) const;
  // The key's value, null included; an error only when the key is absent.
  Result<const nlohmann::json*> Present(std::string_view key) const;

  const nlohmann::json* value_;
  std::string origin_;
  std::string path_;
};

// Scalar conversions used by Node, also for array elements.
Result<int64_t> AsInt(const nlohmann::json& v, const std::string& origin, const std::string& path);
Result<double> AsNumber(const nlohmann::json& v, const std::string& origin,
                        const std::string& path);

}  // namespace occam::spec
