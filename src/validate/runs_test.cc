// The run-file parser accepts exactly the schema of data/runs/published.json
// and names the key path of every error.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "occam/validate.h"

namespace occam {
namespace {

std::string ReadBundledFile() {
  std::ifstream in(std::string(OCCAM_SOURCE_DIR) + "/data/runs/published.json");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A copy of the first bundled run, edited by `edit`, as a one-run file.
template <class F>
std::string EditedFirstRun(F edit) {
  nlohmann::json all = nlohmann::json::parse(ReadBundledFile());
  nlohmann::json run = all.at(0);
  edit(run);
  return nlohmann::json::array({run}).dump();
}

TEST(Runs, ParsesEveryBundledRun) {
  const std::string text = ReadBundledFile();
  auto runs = ParseRuns(text, "published.json");
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  const size_t expected = nlohmann::json::parse(text).size();
  EXPECT_EQ(runs->size(), expected);
  for (const PublishedRun& r : *runs) EXPECT_TRUE(r.unreadable.empty()) << r.unreadable;
}

TEST(Runs, BundledRunsAreCompiledIn) {
  auto runs = BundledRuns();
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  auto from_file = ParseRuns(ReadBundledFile(), "published.json");
  ASSERT_TRUE(from_file.ok());
  EXPECT_EQ(runs->size(), from_file->size());
}

TEST(Runs, ReadsFieldsOfTheFirstRun) {
  nlohmann::json first = nlohmann::json::parse(ReadBundledFile()).at(0);
  auto runs = ParseRuns(nlohmann::json::array({first}).dump(), "x.json");
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  const PublishedRun& r = runs->at(0);
  EXPECT_EQ(r.id, first["id"].get<std::string>());
  EXPECT_EQ(r.arch.layers, first["arch"]["layers"].get<int64_t>());
  EXPECT_EQ(r.n_chips, first["n_chips"].get<int64_t>());
  EXPECT_EQ(MetricKindName(r.measured.kind), first["measured"]["kind"].get<std::string>());
  EXPECT_DOUBLE_EQ(r.measured.value, first["measured"]["value"].get<double>());
  EXPECT_EQ(r.parallel.tp.has_value(), !first["parallel"]["tp"].is_null());
}

// The one run of a one-run file whose field `edit` broke: kept, unreadable,
// with the message that names the key path.
template <class F>
std::string UnreadableMessage(F edit) {
  auto runs = ParseRuns(EditedFirstRun(edit), "runs.json");
  EXPECT_TRUE(runs.ok()) << runs.status().message();
  if (!runs.ok() || runs->size() != 1) return "";
  EXPECT_FALSE(runs->at(0).unreadable.empty());
  return runs->at(0).unreadable;
}

TEST(Runs, WrongTypeNamesKeyPath) {
  const std::string msg = UnreadableMessage([](nlohmann::json& r) { r["parallel"]["tp"] = "8"; });
  EXPECT_NE(msg.find("runs.json: key '[0].parallel.tp' must be an integer or null"),
            std::string::npos)
      << msg;
}

TEST(Runs, UnknownKeyIsAnError) {
  const std::string msg = UnreadableMessage([](nlohmann::json& r) { r["arch"]["layerz"] = 3; });
  EXPECT_NE(msg.find("[0].arch.layerz"), std::string::npos) << msg;
}

TEST(Runs, MissingKeyIsAnError) {
  const std::string msg = UnreadableMessage([](nlohmann::json& r) { r["measured"].erase("kind"); });
  EXPECT_NE(msg.find("'[0].measured.kind' is required but missing"), std::string::npos) << msg;
}

TEST(Runs, FrameworkAndDateMayBeOmittedButNotMisspelt) {
  // Omitted: read as not stated.
  auto omitted = ParseRuns(EditedFirstRun([](nlohmann::json& r) {
                             r.erase("framework");
                             r.erase("date");
                           }),
                           "runs.json");
  ASSERT_TRUE(omitted.ok()) << omitted.status().message();
  EXPECT_TRUE((*omitted)[0].unreadable.empty()) << (*omitted)[0].unreadable;
  EXPECT_FALSE((*omitted)[0].framework.has_value());
  EXPECT_FALSE((*omitted)[0].date.has_value());
  // Stated: one of the known frameworks, a YYYY or YYYY-MM date.
  auto stated = ParseRuns(EditedFirstRun([](nlohmann::json& r) {
                            r["framework"] = "torchtitan";
                            r["date"] = "2024-12";
                          }),
                          "runs.json");
  ASSERT_TRUE(stated.ok());
  EXPECT_EQ((*stated)[0].framework, "torchtitan");
  EXPECT_EQ((*stated)[0].date, "2024-12");
  const std::string fw = UnreadableMessage([](nlohmann::json& r) { r["framework"] = "Megatron"; });
  EXPECT_NE(fw.find("'[0].framework' must be one of"), std::string::npos) << fw;
  EXPECT_NE(fw.find("(got 'Megatron')"), std::string::npos) << fw;
  for (const char* bad : {"2024-13", "24-01", "Dec 2024", "2024-1"}) {
    const std::string msg = UnreadableMessage([&](nlohmann::json& r) { r["date"] = bad; });
    EXPECT_NE(msg.find("[0].date"), std::string::npos) << bad << ": " << msg;
  }
  const std::string type = UnreadableMessage([](nlohmann::json& r) { r["date"] = 2024; });
  EXPECT_NE(type.find("'[0].date' must be a string or null"), std::string::npos) << type;
}

TEST(Runs, UnknownMetricKindListsTheKinds) {
  const std::string msg =
      UnreadableMessage([](nlohmann::json& r) { r["measured"]["kind"] = "furlongs"; });
  EXPECT_NE(msg.find("tflops_per_chip"), std::string::npos) << msg;
}

TEST(Runs, NonPositiveValuesAreErrors) {
  for (auto edit : {+[](nlohmann::json& r) { r["n_chips"] = 0; },
                    +[](nlohmann::json& r) { r["measured"]["value"] = -1; },
                    +[](nlohmann::json& r) { r["parallel"]["pp"] = 0; },
                    +[](nlohmann::json& r) { r["arch"]["hidden"] = 0; }}) {
    EXPECT_FALSE(UnreadableMessage(edit).empty());
  }
}

TEST(Runs, OneBadFieldKeepsTheOtherRuns) {
  // A string in the free-form measured.extra and a null n_chips make their
  // own runs unreadable; the file and the run between them still read.
  nlohmann::json all = nlohmann::json::parse(ReadBundledFile());
  nlohmann::json bad_extra = all.at(0), good = all.at(1), no_chips = all.at(2);
  bad_extra["measured"]["extra"] = {{"tokens_per_batch", "16M"}};
  no_chips["n_chips"] = nullptr;
  auto runs = ParseRuns(nlohmann::json::array({bad_extra, good, no_chips}).dump(), "runs.json");
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  ASSERT_EQ(runs->size(), 3u);
  EXPECT_EQ(runs->at(0).id, bad_extra["id"].get<std::string>());
  EXPECT_NE(runs->at(0).unreadable.find("'[0].measured.extra.tokens_per_batch' must be a number"),
            std::string::npos)
      << runs->at(0).unreadable;
  EXPECT_TRUE(runs->at(1).unreadable.empty()) << runs->at(1).unreadable;
  EXPECT_EQ(runs->at(1).n_chips, good["n_chips"].get<int64_t>());
  EXPECT_NE(runs->at(2).unreadable.find("'[2].n_chips' is required (got null)"), std::string::npos)
      << runs->at(2).unreadable;
}

TEST(Runs, UnreadableRunsAreSkippedWithTheirReason) {
  nlohmann::json all = nlohmann::json::parse(ReadBundledFile());
  nlohmann::json bad = all.at(0), good = all.at(1);
  bad["measured"]["extra"] = {{"tokens_per_batch", "16M"}};
  auto runs = ParseRuns(nlohmann::json::array({bad, good}).dump(), "runs.json");
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  ValidateOptions options;
  options.search_unstated = false;
  const ValidationReport report = ValidateRuns(*runs, options);
  ASSERT_EQ(report.runs.size(), 2u);
  EXPECT_EQ(report.runs[0].skipped_reason, runs->at(0).unreadable);
  EXPECT_FALSE(report.runs[0].predicted.has_value());
  EXPECT_TRUE(report.runs[1].predicted.has_value()) << report.runs[1].skipped_reason;
  EXPECT_EQ(report.skipped, 1);
}

TEST(Runs, UnreadableRunsWithoutAnIdAreNamedByIndex) {
  auto runs = ParseRuns(EditedFirstRun([](nlohmann::json& r) { r.erase("id"); }), "runs.json");
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  EXPECT_EQ(runs->at(0).id, "[0]");
  EXPECT_NE(runs->at(0).unreadable.find("'[0].id' is required but missing"), std::string::npos);
}

TEST(Runs, DuplicateIdsAreUnreadable) {
  nlohmann::json first = nlohmann::json::parse(ReadBundledFile()).at(0);
  auto runs = ParseRuns(nlohmann::json::array({first, first}).dump(), "runs.json");
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  ASSERT_EQ(runs->size(), 2u);
  EXPECT_TRUE(runs->at(0).unreadable.empty());
  EXPECT_NE(runs->at(1).unreadable.find("[1].id"), std::string::npos) << runs->at(1).unreadable;
}

TEST(Runs, NotJsonOrNotArrayOrTooDeep) {
  EXPECT_FALSE(ParseRuns("{", "a.json").ok());
  EXPECT_FALSE(ParseRuns("{}", "a.json").ok());
  EXPECT_FALSE(ParseRuns("[1]", "a.json").ok());  // not a list of run objects
  EXPECT_FALSE(ParseRuns("[{}, null]", "a.json").ok());
  EXPECT_FALSE(ParseRuns(std::string(100000, '[') + std::string(100000, ']'), "a.json").ok());
  auto empty = ParseRuns("[]", "a.json");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

TEST(Runs, MetricKindNamesRoundTrip) {
  for (MetricKind k : {MetricKind::kStepTimeS, MetricKind::kTflopsPerChip, MetricKind::kMfuPct,
                       MetricKind::kTokensPerSPerChip, MetricKind::kChipHoursPerTrillionTokens}) {
    EXPECT_EQ(ParseMetricKind(MetricKindName(k)), k);
  }
  EXPECT_FALSE(ParseMetricKind("mfu").has_value());
}

}  // namespace
}  // namespace occam

// Issue 19: hostile run files end in a message, bounded in time and memory.
namespace occam {
namespace {

std::string ErrorOfRuns(const std::string& text) {
  auto runs = ParseRuns(text, "r.json");
  EXPECT_FALSE(runs.ok());
  return runs.ok() ? "" : runs.status().message();
}

TEST(RunsHostile, NumberBeyondADoubleIsAMessage) {
  EXPECT_NE(ErrorOfRuns("[1e999]").find("r.json: not valid JSON"), std::string::npos);
  std::string text = EditedFirstRun([](nlohmann::json&) {});
  text.insert(text.size() - 1, ", 1e999");  // a valid run, then the overflow
  EXPECT_NE(ErrorOfRuns(text).find("not valid JSON"), std::string::npos);
}

TEST(RunsHostile, RunCountIsBoundedBeforeAnyRunIsRead) {
  std::string text = "[";
  for (int i = 0; i < 10001; ++i) text += "0,";
  text.back() = ']';
  EXPECT_NE(ErrorOfRuns(text).find("holds at most 10000"), std::string::npos);
  EXPECT_NE(ErrorOfRuns(std::string((16u << 20) + 1, ' ')).find("16 MiB"), std::string::npos);
}

// A bad field skips its run: the message is the run's `unreadable` reason.
std::string SkipOfRun(const std::string& text) {
  auto runs = ParseRuns(text, "r.json");
  EXPECT_TRUE(runs.ok()) << runs.status().message();
  if (!runs.ok() || runs->empty()) return "";
  EXPECT_FALSE(runs->front().unreadable.empty());
  return runs->front().unreadable;
}

TEST(RunsHostile, ChipCountIsBounded) {
  const std::string text =
      EditedFirstRun([](nlohmann::json& r) { r["n_chips"] = (int64_t{1} << 24) + 8; });
  EXPECT_NE(SkipOfRun(text).find("'[0].n_chips' must be in [1, 2^24]"), std::string::npos);
}

TEST(RunsHostile, IntegerAbove2To63IsEchoedAsWritten) {
  const std::string text =
      EditedFirstRun([](nlohmann::json& r) { r["n_chips"] = uint64_t{1} << 63; });
  const std::string msg = SkipOfRun(text);
  EXPECT_NE(msg.find("9223372036854775808"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("-9223372036854775808"), std::string::npos) << msg;
}

TEST(RunsHostile, IntegersStayBelow2To53) {
  const std::string text =
      EditedFirstRun([](nlohmann::json& r) { r["arch"]["layers"] = (int64_t{1} << 53) + 2; });
  const std::string msg = SkipOfRun(text);
  EXPECT_NE(msg.find("'[0].arch.layers' must be an integer below 2^53"), std::string::npos) << msg;
}

TEST(RunsHostile, OnlyJsonWithoutRepeatedKeys) {
  EXPECT_NE(ErrorOfRuns("- id: x\n").find("r.json: not valid JSON"), std::string::npos);
  EXPECT_NE(ErrorOfRuns(R"([{"id": "a", "id": "b"}])").find("'id' appears twice"),
            std::string::npos);
}

TEST(RunsHostile, HugeKeyIsEchoedShort) {
  const std::string key(1u << 20, 'k');
  const std::string text = EditedFirstRun([&](nlohmann::json& r) { r[key] = 1; });
  const std::string msg = SkipOfRun(text);
  EXPECT_LT(msg.size(), 1024u);
  EXPECT_NE(msg.find("(1048576 bytes)"), std::string::npos) << msg.substr(0, 200);
}

}  // namespace
}  // namespace occam
