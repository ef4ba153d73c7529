// JSON/YAML documents with path-qualified typed access (see doc.h).
#include "spec/doc.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <string>
#include <unordered_set>
#include <vector>

#include "occam/message.h"

namespace occam::spec {
namespace {

using nlohmann::json;

std::string Prefix(std::string_view origin) { return std::string(origin) + ": "; }

// Flow-bracket depth scanner state shared by JSON and YAML text.
struct FlowScan {
  int depth = 0;
  int max_depth = 0;
  char quote = 0;  // inside a "..." or '...' string
  bool escape = false;
};

bool StartsToken(char prev) {
  return prev == 0 || prev == ' ' || prev == '\t' || prev == ':' || prev == ',' || prev == '[' ||
         prev == '{' || prev == '-';
}

// Scans one line for flow brackets and strings; returns false when the rest
// of the line is a comment.
void ScanLine(std::string_view line, FlowScan& s, int block_depth) {
  char prev = 0;
  for (char c : line) {
    if (s.quote != 0) {
      if (s.escape) {
        s.escape = false;
      } else if (c == '\\' && s.quote == '"') {
        s.escape = true;
      } else if (c == s.quote) {
        s.quote = 0;
      }
    } else if (c == '"' || (c == '\'' && StartsToken(prev))) {
      s.quote = c;
    } else if (c == '#' && (prev == 0 || prev == ' ' || prev == '\t')) {
      return;
    } else if (c == '[' || c == '{') {
      ++s.depth;
      if (s.depth + block_depth > s.max_depth) s.max_depth = s.depth + block_depth;
    } else if (c == ']' || c == '}') {
      if (s.depth > 0) --s.depth;
    }
    prev = c;
  }
}

// YAML block nesting: a stack of indentation columns ("- " items nest too).
int BlockDepth(std::string_view line, std::vector<size_t>& indents) {
  size_t col = 0;
  while (col < line.size() && line[col] == ' ') ++col;
  if (col == line.size() || line[col] == '#') return static_cast<int>(indents.size());
  while (!indents.empty() && indents.back() > col) indents.pop_back();
  if (indents.empty() || indents.back() < col) indents.push_back(col);
  while (col + 1 < line.size() && line[col] == '-' && line[col + 1] == ' ') {
    col += 2;
    while (col < line.size() && line[col] == ' ') ++col;
    indents.push_back(col);
  }
  return static_cast<int>(indents.size());
}

}  // namespace

bool IsJsonText(std::string_view text) {
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
    return c == '{' || c == '[';
  }
  return false;
}

namespace {

// YAML 1.2 core schema for plain scalars.
json PlainScalar(const std::string& s) {
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  if (s == ".inf" || s == ".Inf" || s == ".INF" || s == "+.inf") return HUGE_VAL;
  if (s == "-.inf" || s == "-.Inf" || s == "-.INF") return -HUGE_VAL;
  if (s == ".nan" || s == ".NaN" || s == ".NAN") return std::nan("");
  size_t pos = 0;
  try {
    const long long i = std::stoll(s, &pos, 10);
    if (pos == s.size()) return static_cast<int64_t>(i);
  } catch (...) {
  }
  const bool numeric_chars = s.find_first_not_of("0123456789+-.eE_") == std::string::npos;
  if (numeric_chars) {
    try {
      const double d = std::stod(s, &pos);
      if (pos == s.size()) return d;
    } catch (...) {
    }
  }
  return s;
}

// `budget` counts the values still allowed: aliases may repeat a subtree, and
// a few lines of nested aliases would otherwise expand to billions of values.
Result<json> YamlToJson(const YAML::Node& node, std::string_view origin, int64_t& budget) {
  if (--budget < 0) {
    return InvalidInput(Prefix(origin) + "YAML aliases expand to more values than the file " +
                        "holds; write the values out instead of repeating anchors");
  }
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return json(nullptr);
    case YAML::NodeType::Scalar:
      if (node.Tag() == "!") return json(node.Scalar());  // quoted: always a string
      return PlainScalar(node.Scalar());
    case YAML::NodeType::Sequence: {
      json out = json::array();
      for (const auto& item : node) {
        OCCAM_ASSIGN_OR_RETURN(json v, YamlToJson(item, origin, budget));
        out.push_back(std::move(v));
      }
      return out;
    }
    case YAML::NodeType::Map: {
      json out = json::object();
      for (const auto& kv : node) {
        if (!kv.first.IsScalar()) {
          return InvalidInput(Prefix(origin) + "line " + std::to_string(kv.first.Mark().line + 1) +
                              ": mapping keys must be plain strings");
        }
        const std::string key = kv.first.Scalar();
        if (out.contains(key)) {
          return InvalidInput(Prefix(origin) + "line " + std::to_string(kv.first.Mark().line + 1) +
                              ": key '" + Echo(key) + "' appears twice");
        }
        OCCAM_ASSIGN_OR_RETURN(json v, YamlToJson(kv.second, origin, budget));
        out[key] = std::move(v);
      }
      return out;
    }
  }
  return json(nullptr);
}

}  // namespace

int NestingDepth(std::string_view text) {
  FlowScan flow;
  std::vector<size_t> indents;
  const bool json = IsJsonText(text);
  int max_depth = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const auto line = text.substr(start, end - start);
    int block = static_cast<int>(indents.size());
    if (!json && flow.depth == 0 && flow.quote == 0) block = BlockDepth(line, indents);
    if (block > max_depth) max_depth = block;
    ScanLine(line, flow, block);
    if (flow.max_depth > max_depth) max_depth = flow.max_depth;
    start = end + 1;
  }
  return max_depth;
}

Result<json> ParseDocument(std::string_view text, std::string_view origin) {
  if (text.size() > kMaxDocumentBytes) {
    return InvalidInput(Prefix(origin) + "document is larger than 16 MiB; is this the right file?");
  }
  if (text.size() > kMaxYamlBytes && !IsJsonText(text)) {
    return InvalidInput(Prefix(origin) + "YAML document is " + std::to_string(text.size()) +
                        " bytes; occam reads YAML up to 1 MiB (JSON up to 16 MiB); is this the "
                        "right file?");
  }
  const int depth = NestingDepth(text);
  if (depth > kMaxNestingDepth) {
    return InvalidInput(Prefix(origin) + "nesting is deeper than " +
                        std::to_string(kMaxNestingDepth) + " levels (found " +
                        std::to_string(depth) + "); model, cluster and job files are shallow");
  }
  if (IsJsonText(text)) {
    // Duplicate keys would silently keep the last value: reject them. One
    // hash set per open object keeps the check linear in the keys.
    std::vector<std::unordered_set<std::string>> keys;
    std::string duplicate;
    auto check_keys = [&](int, json::parse_event_t event, json& parsed) {
      if (event == json::parse_event_t::object_start) keys.emplace_back();
      if (event == json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
      if (event == json::parse_event_t::key && !keys.empty() && duplicate.empty()) {
        std::string k = parsed.get<std::string>();
        if (!keys.back().insert(k).second) duplicate = std::move(k);
      }
      return true;
    };
    try {
      json doc = json::parse(text.begin(), text.end(), check_keys);
      if (!duplicate.empty()) {
        return InvalidInput(Prefix(origin) + "key '" + Echo(duplicate) +
                            "' appears twice in one object; keep one");
      }
      return doc;
    } catch (const json::parse_error& e) {
      // e.byte is the 1-based offset of the error; turn it into line:column.
      size_t line = 1, col = 1;
      for (size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
        if (text[i] == '\n') {
          ++line;
          col = 1;
        } else {
          ++col;
        }
      }
      return InvalidInput(Prefix(origin) + "not valid JSON at line " + std::to_string(line) +
                          ", column " + std::to_string(col) + ": " + e.what());
    } catch (const json::exception& e) {  // out_of_range: a number beyond double (1e999)
      return InvalidInput(Prefix(origin) + "not valid JSON: " + e.what());
    }
  }
  try {
    const YAML::Node root = YAML::Load(std::string(text));
    int64_t budget = static_cast<int64_t>(text.size()) + 1;  // a value takes >= 1 byte of text
    return YamlToJson(root, origin, budget);
  } catch (const YAML::Exception& e) {
    return InvalidInput(Prefix(origin) + "not valid YAML at line " +
                        std::to_string(e.mark.line + 1) + ", column " +
                        std::to_string(e.mark.column + 1) + ": " + e.msg);
  }
}

std::string DescribeValue(const json& v) {
  switch (v.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      return std::string("boolean ") + (v.get<bool>() ? "true" : "false");
    case json::value_t::string:
      return "string \"" + Echo(v.get<std::string>()) + "\"";
    case json::value_t::array:
      return "array";
    case json::value_t::object:
      return "object";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float:
      // dump() writes NaN and infinities (YAML .nan, .inf) as "null".
      if (std::isnan(v.get<double>())) return "number .nan";
      if (std::isinf(v.get<double>())) return v.get<double>() > 0 ? "number .inf" : "number -.inf";
      return "number " + v.dump();
    default:
      return "unsupported value";
  }
}

Result<int64_t> AsInt(const json& v, const std::string& origin, const std::string& path) {
  auto fail = [&] {
    return InvalidInput(Prefix(origin) + "key '" + path + "' must be an integer (got " +
                        DescribeValue(v) + ")");
  };
  // is_number_integer() is true for unsigned values too: test unsigned first,
  // or 2^63 would wrap to a negative number.
  if (v.is_number_unsigned()) {
    if (v.get<uint64_t>() > (uint64_t{1} << 62)) return fail();
    return static_cast<int64_t>(v.get<uint64_t>());
  }
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 4.6e18) {
      return static_cast<int64_t>(d);
    }
  }
  return fail();
}

Result<double> AsNumber(const json& v, const std::string& origin, const std::string& path) {
  if (!v.is_number()) {
    return InvalidInput(Prefix(origin) + "key '" + path + "' must be a number (got " +
                        DescribeValue(v) + ")");
  }
  const double d = v.get<double>();
  if (!std::isfinite(d)) {
    return InvalidInput(Prefix(origin) + "key '" + path + "' must be a finite number (got " +
                        DescribeValue(v) + ")");
  }
  return d;
}

std::string Node::KeyPath(std::string_view key) const {
  if (path_.empty()) return std::string(key);
  return path_ + "." + std::string(key);
}

bool Node::Has(std::string_view key) const {
  if (!value_->is_object()) return false;
  auto it = value_->find(key);
  return it != value_->end() && !it->is_null();
}

Status Node::Error(std::string_view key, const std::string& what) const {
  return InvalidInput(Prefix(origin_) + "key '" + KeyPath(key) + "' " + what);
}

Status Node::ObjectError(const std::string& what) const {
  return InvalidInput(Prefix(origin_) + (path_.empty() ? "the document" : "key '" + path_ + "'") +
                      " " + what);
}

Result<const json*> Node::Get(std::string_view key) const {
  if (!value_->is_object()) {
    return ObjectError("must be an object (got " + DescribeValue(*value_) + ")");
  }
  auto it = value_->find(key);
  if (it == value_->end()) return Error(key, "is required but missing");
  if (it->is_null()) return Error(key, "is required (got null)");
  return &*it;
}

Result<const json*> Node::Present(std::string_view key) const {
  if (!value_->is_object()) return Get(key);  // its message: not an object
  auto it = value_->find(key);
  if (it == value_->end()) {
    return Error(key, "is missing; write null when the source does not say");
  }
  return &*it;
}

Result<std::optional<int64_t>> Node::NullableInt(std::string_view key) const {
  OCCAM_ASSIGN_OR_RETURN(const json* v, Present(key));
  if (v->is_null()) return std::optional<int64_t>();
  const Result<int64_t> i = AsInt(*v, origin_, KeyPath(key));
  if (!i.ok()) return Error(key, "must be an integer or null (got " + DescribeValue(*v) + ")");
  return std::optional<int64_t>(*i);
}

Result<std::optional<double>> Node::NullableNumber(std::string_view key) const {
  OCCAM_ASSIGN_OR_RETURN(const json* v, Present(key));
  if (v->is_null()) return std::optional<double>();
  if (!v->is_number()) {
    return Error(key, "must be a number or null (got " + DescribeValue(*v) + ")");
  }
  OCCAM_ASSIGN_OR_RETURN(double d, AsNumber(*v, origin_, KeyPath(key)));
  return std::optional<double>(d);
}

Result<std::optional<bool>> Node::NullableBool(std::string_view key) const {
  OCCAM_ASSIGN_OR_RETURN(const json* v, Present(key));
  if (v->is_null()) return std::optional<bool>();
  if (!v->is_boolean()) {
    return Error(key, "must be true, false or null (got " + DescribeValue(*v) + ")");
  }
  return std::optional<bool>(v->get<bool>());
}

Result<std::optional<std::string>> Node::NullableString(std::string_view key) const {
  OCCAM_ASSIGN_OR_RETURN(const json* v, Present(key));
  if (v->is_null()) return std::optional<std::string>();
  if (!v->is_string()) {
    return Error(key, "must be a string or null (got " + DescribeValue(*v) + ")");
  }
  return std::optional<std::string>(v->get<std::string>());
}

Result<std::optional<Node>> Node::NullableObject(std::string_view key) const {
  OCCAM_ASSIGN_OR_RETURN(const json* v, Present(key));
  if (v->is_null()) return std::optional<Node>();
  if (!v->is_object()) {
    return Error(key, "must be an object or null (got " + DescribeValue(*v) + ")");
  }
  return std::optional<Node>(Node(*v, origin_, KeyPath(key)));
}

Result<std::optional<std::string>> Node::OmittableString(std::string_view key) const {
  if (value_->is_object() && !value_->contains(key)) return std::optional<std::string>();
  return NullableString(key);
}

Result<int64_t> Node::Int(std::string_view key) const {
  OCCAM_ASSIGN_OR_RETURN(const json* v, Get(key));
  return AsInt(*v, origin_, KeyPath(key));
}

Result<double> Node::Number(std::string_view key) const {
  OCCAM_ASSIGN_OR_RETURN(const json* v, Get(key));
  return AsNumber(*v, origin_, KeyPath(key));
}

Result<bool> Node::Bool(std::string_view key) const {
  OCCAM_ASSIGN_OR_RETURN(const json* v, Get(key));
  if (!v->is_boolean()) return Error(key, "must be true or false (got " + DescribeValue(*v) + ")");
  return v->get<bool>();
}

Result<std::string> Node::String(std::string_view key) const {
  OCCAM_ASSIGN_OR_RETURN(const json* v, Get(key));
  if (!v->is_string()) return Error(key, "must be a string (got " + DescribeValue(*v) + ")");
  return v->get<std::string>();
}

Result<int64_t> Node::Int(std::string_view key, int64_t fallback) const {
  if (!Has(key)) return fallback;
  return Int(key);
}

Result<double> Node::Number(std::string_view key, double fallback) const {
  if (!Has(key)) return fallback;
  return Number(key);
}

Result<bool> Node::Bool(std::string_view key, bool fallback) const {
  if (!Has(key)) return fallback;
  return Bool(key);
}

Result<std::string> Node::String(std::string_view key, std::string fallback) const {
  if (!Has(key)) return fallback;
  return String(key);
}

Result<Node> Node::Object(std::string_view key) const {
  OCCAM_ASSIGN_OR_RETURN(const json* v, Get(key));
  if (!v->is_object()) return Error(key, "must be an object (got " + DescribeValue(*v) + ")");
  return Node(*v, origin_, KeyPath(key));
}

Result<const json*> Node::Array(std::string_view key) const {
  OCCAM_ASSIGN_OR_RETURN(const json* v, Get(key));
  if (!v->is_array()) return Error(key, "must be a list (got " + DescribeValue(*v) + ")");
  return v;
}

Result<std::vector<std::string>> Node::StringList(std::string_view key) const {
  OCCAM_ASSIGN_OR_RETURN(const json* list, Array(key));
  std::vector<std::string> out;
  out.reserve(list->size());
  for (size_t i = 0; i < list->size(); ++i) {
    const json& e = (*list)[i];
    if (!e.is_string()) {
      return Error(std::string(key) + "[" + std::to_string(i) + "]",
                   "must be a string (got " + DescribeValue(e) + ")");
    }
    out.push_back(e.get<std::string>());
  }
  return out;
}

Node Node::Element(const json& element, std::string_view key, size_t index) const {
  return Node(element, origin_, KeyPath(key) + "[" + std::to_string(index) + "]");
}

Status Node::CheckKeys(std::initializer_list<std::string_view> known) const {
  if (!value_->is_object()) {
    return ObjectError("must be an object (got " + DescribeValue(*value_) + ")");
  }
  for (auto it = value_->begin(); it != value_->end(); ++it) {
    bool found = false;
    for (std::string_view k : known) found = found || k == it.key();
    if (!found) {
      std::string list;
      for (std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
      return Error(Echo(it.key()), "is not a known key (known keys here: " + list + ")");
    }
  }
  return Status::Ok();
}

}  // namespace occam::spec
