#include <gtest/gtest.h>

#include "occam/spec.h"

namespace occam {
namespace {

TEST(Plan, ParsesTheDeepSeekV3Layout) {
  auto plan = ParsePlan("tp=1,pp=16,ep=64,dp=128,zero=1,mbs=1,recompute=none,schedule=1f1b");
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->tp, 1);
  EXPECT_EQ(plan->pp, 16);
  EXPECT_EQ(plan->ep, 64);
  EXPECT_EQ(plan->dp, 128);
  EXPECT_EQ(plan->zero, 1);
  EXPECT_EQ(plan->schedule, Schedule::k1F1B);
  EXPECT_EQ(plan->chips(), 1 * 16 * 128);
}

TEST(Plan, FormatRoundTrips) {
  const char* text =
      "tp=8,cp=2,pp=4,vpp=2,dp=16,ep=8,zero=3,mbs=2,recompute=selective,schedule=interleaved,"
      "order=tp/cp/ep/dp/pp,stages=3/4/4/4/4/4/4/3";
  auto plan = ParsePlan(text);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(FormatPlan(*plan), text);
}

// Megatron-LM --recompute-modules and --offload-modules as plan fields.
TEST(Plan, RecomputeModulesAndOffloadRoundTrip) {
  const char* text =
      "tp=1,pp=16,dp=128,ep=64,zero=1,mbs=1,recompute=mla_up_proj+layernorm+moe_act,"
      "offload=expert_fc1,schedule=dualpipe";
  auto plan = ParsePlan(text);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->recompute, Recompute::kModules);
  EXPECT_EQ(plan->recompute_modules, recompute_module::kMlaUpProj | recompute_module::kLayernorm |
                                         recompute_module::kMoeAct);
  EXPECT_EQ(plan->offload_modules, offload_module::kExpertFc1);
  // Printed in the module table's order.
  EXPECT_EQ(FormatPlan(*plan),
            "tp=1,pp=16,dp=128,ep=64,zero=1,mbs=1,recompute=mla_up_proj+layernorm+moe_act,"
            "offload=expert_fc1,schedule=dualpipe");
  EXPECT_EQ(FormatPlan(*ParsePlan(FormatPlan(*plan))), FormatPlan(*plan));
  auto bad = ParsePlan("dp=8,recompute=layernorm+attn");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("core_attn, mla_up_proj"), std::string::npos);
  EXPECT_FALSE(ParsePlan("dp=8,recompute=layernorm+").ok());
  EXPECT_FALSE(ParsePlan("dp=8,recompute=modules").ok());
  EXPECT_FALSE(ParsePlan("dp=8,offload=core_attn").ok());
  EXPECT_EQ(ParsePlan("dp=8,offload=none")->offload_modules, 0u);
}

TEST(Plan, UnevenEndsRoundTripAndAreOmittedWhenUnset) {
  const char* text =
      "tp=1,pp=16,dp=128,ep=64,zero=1,mbs=1,recompute=none,schedule=1f1b,"
      "first_layers=3,last_layers=2";
  auto plan = ParsePlan(text);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->first_layers, 3);
  EXPECT_EQ(plan->last_layers, 2);
  EXPECT_EQ(FormatPlan(*plan), text);
  EXPECT_EQ(FormatPlan(*ParsePlan("tp=1,pp=2,dp=4")).find("first_layers"), std::string::npos);
  EXPECT_FALSE(ParsePlan("tp=1,pp=2,dp=4,first_layers=0").ok());
}

TEST(Plan, MeshIsLinearByDefaultAndPrintedOnlyWhenCompact) {
  auto linear = ParsePlan("tp=4,dp=16,mesh=linear");
  ASSERT_TRUE(linear.ok());
  EXPECT_EQ(linear->mesh, TorusMapping::kLinear);
  EXPECT_EQ(FormatPlan(*linear).find("mesh"), std::string::npos);
  auto compact = ParsePlan("tp=4,dp=16,mesh=compact");
  ASSERT_TRUE(compact.ok());
  EXPECT_EQ(compact->mesh, TorusMapping::kCompact);
  const std::string text = FormatPlan(*compact);
  EXPECT_NE(text.find(",mesh=compact"), std::string::npos) << text;
  EXPECT_EQ(FormatPlan(*ParsePlan(text)), text);
  auto bad = ParsePlan("tp=4,dp=16,mesh=cube");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("plan field 'mesh'"), std::string::npos);
}

TEST(Plan, A2aOverlapIsOffByDefaultAndPrintedOnlyWhenOn) {
  auto off = ParsePlan("tp=8,dp=4,ep=4");
  ASSERT_TRUE(off.ok());
  EXPECT_EQ(off->a2a_overlap, EpOverlap::kNone);
  EXPECT_EQ(FormatPlan(*off).find("a2a_overlap"), std::string::npos);
  // Combined 1F1B keeps its boolean spelling; the other methods print their name.
  const std::pair<const char*, const char*> kOn[] = {{"a2a_overlap=1", ",a2a_overlap=1"},
                                                     {"a2a_overlap=true", ",a2a_overlap=1"},
                                                     {"a2a_overlap=1f1b", ",a2a_overlap=1"},
                                                     {"a2a_overlap=tbo", ",a2a_overlap=tbo"},
                                                     {"a2a_overlap=shared", ",a2a_overlap=shared"}};
  for (const auto& [on, printed] : kOn) {
    auto plan = ParsePlan(std::string("tp=8,dp=4,ep=4,") + on);
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    EXPECT_NE(plan->a2a_overlap, EpOverlap::kNone) << on;
    const std::string text = FormatPlan(*plan);
    EXPECT_NE(text.find(printed), std::string::npos) << text;
    EXPECT_EQ(FormatPlan(*ParsePlan(text)), text);
  }
  EXPECT_EQ(ParsePlan("tp=8,dp=4,a2a_overlap=tbo")->a2a_overlap, EpOverlap::kTwoBatch);
  EXPECT_EQ(ParsePlan("tp=8,dp=4,a2a_overlap=shared")->a2a_overlap, EpOverlap::kSharedExpert);
  EXPECT_EQ(ParsePlan("tp=8,dp=4,a2a_overlap=0")->a2a_overlap, EpOverlap::kNone);
  EXPECT_EQ(ParsePlan("tp=8,dp=4,a2a_overlap=none")->a2a_overlap, EpOverlap::kNone);
  auto bad = ParsePlan("tp=8,dp=4,a2a_overlap=yes");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("plan field 'a2a_overlap'"), std::string::npos);
  EXPECT_NE(bad.status().message().find("tbo"), std::string::npos);
}

TEST(Plan, DefaultScheduleFollowsPp) {
  EXPECT_EQ(ParsePlan("tp=8,dp=4")->schedule, Schedule::kNone);
  EXPECT_EQ(ParsePlan("pp=4,dp=4")->schedule, Schedule::k1F1B);
}

TEST(Plan, ErrorsNameTheField) {
  struct Case {
    const char* text;
    const char* needle;
  } cases[] = {
      {"tp=0", "plan field 'tp'"},
      {"tp=abc", "plan field 'tp'"},
      {"zero=4", "plan field 'zero'"},
      {"schedule=2f2b", "plan field 'schedule'"},
      {"foo=1", "plan field 'foo'"},
      {"tp=2,tp=4", "given twice"},
      {"tp", "not key=value"},
      {"tp=99999999999999999999", "too large"},
      {"order=tp/xx", "plan field 'order'"},
      {"", "empty"},
  };
  for (const auto& c : cases) {
    auto plan = ParsePlan(c.text);
    ASSERT_FALSE(plan.ok()) << c.text;
    EXPECT_EQ(plan.status().code(), StatusCode::kInvalidInput);
    EXPECT_NE(plan.status().message().find(c.needle), std::string::npos)
        << c.text << " -> " << plan.status().message();
  }
}

}  // namespace
}  // namespace occam
