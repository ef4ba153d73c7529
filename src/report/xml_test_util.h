// A strict little XML reader for the report tests: it accepts only
// well-formed XML (balanced tags, quoted attributes, XML's own entities and
// character references, one root element, an optional <!DOCTYPE ...>) and
// returns the element tree, so tests can both check well-formedness and read
// the numbers a chart carries in its attributes.
#pragma once

#include <cctype>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace occam::xml_test {

struct Node {
  std::string name;
  std::map<std::string, std::string> attrs;
  std::vector<std::unique_ptr<Node>> children;
  std::string text;  // character data directly inside, entities decoded
};

class Reader {
 public:
  explicit Reader(const std::string& s) : s_(s) {}

  // The root element, or nullptr with error() set.
  std::unique_ptr<Node> Parse() {
    Skip();
    if (s_.compare(i_, 9, "<!DOCTYPE") == 0) {
      i_ = s_.find('>', i_);
      if (i_ == std::string::npos) return Fail("unterminated DOCTYPE");
      ++i_;
      Skip();
    }
    auto root = Element();
    if (!root) return nullptr;
    Skip();
    if (i_ != s_.size()) return Fail("content after the root element");
    return root;
  }
  const std::string& error() const { return error_; }

 private:
  std::unique_ptr<Node> Fail(const std::string& why) {
    if (error_.empty()) error_ = why + " at offset " + std::to_string(i_);
    return nullptr;
  }
  void Skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  std::string Name() {
    const size_t start = i_;
    while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '-' ||
                              s_[i_] == '_' || s_[i_] == ':' || s_[i_] == '.')) {
      ++i_;
    }
    return s_.substr(start, i_ - start);
  }
  bool Decode(const std::string& raw, std::string& out) {
    for (size_t k = 0; k < raw.size(); ++k) {
      if (raw[k] == '<') return false;
      if (raw[k] != '&') {
        out += raw[k];
        continue;
      }
      const size_t semi = raw.find(';', k);
      if (semi == std::string::npos) return false;
      const std::string ent = raw.substr(k + 1, semi - k - 1);
      static const std::map<std::string, char> kNamed = {
          {"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''}};
      if (kNamed.count(ent)) {
        out += kNamed.at(ent);
      } else if (ent.size() > 1 && ent[0] == '#' &&
                 ent.find_first_not_of("0123456789", 1) == std::string::npos) {
        out += '?';  // a character reference; its code point does not matter here
      } else {
        return false;
      }
      k = semi;
    }
    return true;
  }
  std::unique_ptr<Node> Element() {
    if (i_ >= s_.size() || s_[i_] != '<') return Fail("expected '<'");
    ++i_;
    auto node = std::make_unique<Node>();
    node->name = Name();
    if (node->name.empty()) return Fail("empty element name");
    while (true) {
      Skip();
      if (i_ >= s_.size()) return Fail("unterminated tag <" + node->name);
      if (s_.compare(i_, 2, "/>") == 0) {
        i_ += 2;
        return node;
      }
      if (s_[i_] == '>') break;
      const std::string key = Name();
      if (key.empty() || i_ + 1 >= s_.size() || s_[i_] != '=' || s_[i_ + 1] != '"') {
        return Fail("malformed attribute in <" + node->name);
      }
      i_ += 2;
      const size_t end = s_.find('"', i_);
      if (end == std::string::npos) return Fail("unterminated attribute");
      std::string value;
      if (!Decode(s_.substr(i_, end - i_), value)) return Fail("bad attribute text");
      if (!node->attrs.emplace(key, value).second) return Fail("duplicate attribute " + key);
      i_ = end + 1;
    }
    ++i_;  // '>'
    while (true) {
      const size_t lt = s_.find('<', i_);
      if (lt == std::string::npos) return Fail("unclosed <" + node->name + ">");
      if (!Decode(s_.substr(i_, lt - i_), node->text)) return Fail("bad character data");
      i_ = lt;
      if (s_.compare(i_, 2, "</") == 0) {
        i_ += 2;
        if (Name() != node->name) return Fail("mismatched </...> for <" + node->name + ">");
        Skip();
        if (i_ >= s_.size() || s_[i_] != '>') return Fail("malformed end tag");
        ++i_;
        return node;
      }
      auto child = Element();
      if (!child) return nullptr;
      node->children.push_back(std::move(child));
    }
  }

  const std::string& s_;
  size_t i_ = 0;
  std::string error_;
};

// Every element named `name` under `root` (depth first, document order).
inline void FindAll(const Node& root, const std::string& name, std::vector<const Node*>& out) {
  if (root.name == name) out.push_back(&root);
  for (const auto& c : root.children) FindAll(*c, name, out);
}
inline std::vector<const Node*> FindAll(const Node& root, const std::string& name) {
  std::vector<const Node*> out;
  FindAll(root, name, out);
  return out;
}
// The element with attribute id == `id`, or nullptr.
inline const Node* FindId(const Node& root, const std::string& id) {
  const auto it = root.attrs.find("id");
  if (it != root.attrs.end() && it->second == id) return &root;
  for (const auto& c : root.children) {
    if (const Node* n = FindId(*c, id)) return n;
  }
  return nullptr;
}
// All character data under `root`, concatenated.
inline std::string AllText(const Node& root) {
  std::string s = root.text;
  for (const auto& c : root.children) s += " " + AllText(*c);
  return s;
}

}  // namespace occam::xml_test
