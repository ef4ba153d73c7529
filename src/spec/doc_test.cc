// Node's reads for schemas that list every key (null where a source does
// not say) and the messages they give.
#include "spec/doc.h"

#include <gtest/gtest.h>

#include <string>

namespace occam::spec {
namespace {

nlohmann::json Doc(std::string_view text) {
  auto doc = ParseDocument(text, "t.json");
  EXPECT_TRUE(doc.ok()) << doc.status().message();
  return doc.ok() ? *doc : nlohmann::json();
}

std::string MessageOf(const Status& s) { return s.ok() ? "" : s.message(); }

TEST(Node, NullableKeysMustBePresentAndMayBeNull) {
  const nlohmann::json j = Doc(R"({"n": null, "i": 4, "x": 1.5, "b": true, "s": "a", "o": {}})");
  const Node n(j, "t.json", "[3]");
  EXPECT_FALSE(n.NullableInt("n")->has_value());
  EXPECT_EQ(n.NullableInt("i")->value(), 4);
  EXPECT_DOUBLE_EQ(n.NullableNumber("x")->value(), 1.5);
  EXPECT_EQ(n.NullableBool("b")->value(), true);
  EXPECT_EQ(n.NullableString("s")->value(), "a");
  EXPECT_EQ(n.NullableObject("o")->value().path(), "[3].o");
  EXPECT_FALSE(n.NullableObject("n")->has_value());
  EXPECT_EQ(MessageOf(n.NullableInt("gone").status()),
            "t.json: key '[3].gone' is missing; write null when the source does not say");
  EXPECT_EQ(MessageOf(n.NullableInt("s").status()),
            "t.json: key '[3].s' must be an integer or null (got string \"a\")");
  EXPECT_EQ(MessageOf(n.NullableInt("x").status()),
            "t.json: key '[3].x' must be an integer or null (got number 1.5)");
  EXPECT_NE(MessageOf(n.NullableNumber("s").status()).find("must be a number or null"),
            std::string::npos);
  EXPECT_NE(MessageOf(n.NullableBool("i").status()).find("must be true, false or null"),
            std::string::npos);
  EXPECT_NE(MessageOf(n.NullableString("i").status()).find("must be a string or null"),
            std::string::npos);
  EXPECT_NE(MessageOf(n.NullableObject("s").status()).find("must be an object or null"),
            std::string::npos);
}

TEST(Node, OmittableKeysMayBeAbsent) {
  const nlohmann::json j = Doc(R"({"s": "a", "n": null, "i": 1})");
  const Node n(j, "t.json", "");
  EXPECT_FALSE(n.OmittableString("gone")->has_value());
  EXPECT_FALSE(n.OmittableString("n")->has_value());
  EXPECT_EQ(n.OmittableString("s")->value(), "a");
  EXPECT_FALSE(n.OmittableString("i").ok());
}

TEST(Node, RequiredKeysNameNullApartFromAbsent) {
  const nlohmann::json j = Doc(R"({"n": null})");
  const Node n(j, "t.json", "run");
  EXPECT_EQ(MessageOf(n.Int("n").status()), "t.json: key 'run.n' is required (got null)");
  EXPECT_EQ(MessageOf(n.Int("gone").status()), "t.json: key 'run.gone' is required but missing");
  EXPECT_EQ(MessageOf(n.ObjectError("needs a > 0")), "t.json: key 'run' needs a > 0");
}

TEST(Node, StringListNamesTheElement) {
  const nlohmann::json j = Doc(R"({"ok": ["a", "b"], "bad": ["a", 2]})");
  const Node n(j, "t.json", "");
  EXPECT_EQ(*n.StringList("ok"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(MessageOf(n.StringList("bad").status()),
            "t.json: key 'bad[1]' must be a string (got number 2)");
}

TEST(Document, IsJsonText) {
  EXPECT_TRUE(IsJsonText(" \n[1]"));
  EXPECT_TRUE(IsJsonText("{}"));
  EXPECT_FALSE(IsJsonText("- a: 1"));
  EXPECT_FALSE(IsJsonText(""));
}

}  // namespace
}  // namespace occam::spec
