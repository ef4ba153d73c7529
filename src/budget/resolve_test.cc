// Budget inputs: cited defaults per chip, given values, bad values.
#include <gtest/gtest.h>

#include <cmath>

#include "occam/budget.h"

namespace occam {
namespace {

const BudgetInput* Find(const BudgetAssumptions& a, const std::string& key) {
  for (const auto& i : a.inputs) {
    if (i.key == key) return &i;
  }
  return nullptr;
}

TEST(ResolveBudget, FillsCitedDefaultsAndMarksThem) {
  auto chip = CatalogChip("h100");
  ASSERT_TRUE(chip.ok());
  BudgetOptions o;
  o.tokens = 15e12;
  o.pue = 1.08;
  auto a = ResolveBudget(o, *chip);
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_TRUE(a->chip_watts.has_value());
  EXPECT_EQ(*a->chip_watts, 700);
  EXPECT_EQ(a->pue, 1.08);
  EXPECT_FALSE(Find(*a, "pue")->is_default);
  EXPECT_TRUE(Find(*a, "chip_watts")->is_default);
  EXPECT_NE(Find(*a, "chip_watts")->source.find("700 W"), std::string::npos);
  // Llama 3 Table 5: 268 GPU-class interruptions in 16,384 x 54 x 24 GPU-hours.
  EXPECT_NEAR(a->chip_failures_per_hour, 268.0 / 21233664.0, 1e-15);
  EXPECT_NEAR(a->node_failures_per_hour, 151.0 / (2048.0 * 1296.0), 1e-15);
  EXPECT_EQ(a->chips_per_node, 8);
  EXPECT_FALSE(a->price_per_chip_hour.has_value());
  EXPECT_EQ(Find(*a, "price_per_chip_hour"), nullptr);  // no default price
  for (const auto& i : a->inputs) EXPECT_FALSE(i.source.empty()) << i.key;
}

TEST(ResolveBudget, ChipsWithoutPublishedPowerHaveNoEnergyDefault) {
  auto chip = CatalogChip("tpu-v5p");
  ASSERT_TRUE(chip.ok());
  BudgetOptions o;
  o.tokens = 1e12;
  auto a = ResolveBudget(o, *chip);
  ASSERT_TRUE(a.ok());
  EXPECT_FALSE(a->chip_watts.has_value());
  EXPECT_EQ(a->chips_per_node, 4);
  EXPECT_EQ(a->pue, 1.10);
  EXPECT_FALSE(CheckObjective(*a, BudgetObjective::kEnergy).ok());
  EXPECT_FALSE(CheckObjective(*a, BudgetObjective::kCost).ok());
  EXPECT_TRUE(CheckObjective(*a, BudgetObjective::kTime).ok());
  o.chip_watts = 450;
  a = ResolveBudget(o, *chip);
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(CheckObjective(*a, BudgetObjective::kEnergy).ok());
}

TEST(ResolveBudget, RejectsBadValuesNamingTheFlag) {
  auto chip = CatalogChip("h800");
  ASSERT_TRUE(chip.ok());
  struct Bad {
    const char* flag;
    BudgetOptions o;
  };
  std::vector<Bad> cases;
  BudgetOptions base;
  base.tokens = 1e12;
  cases.push_back({"--tokens", base});
  cases.back().o.tokens = -5;
  cases.push_back({"--price-per-chip-hour", base});
  cases.back().o.price_per_chip_hour = std::nan("");
  cases.push_back({"--pue", base});
  cases.back().o.pue = 0.5;
  cases.push_back({"--chip-failures-per-hour", base});
  cases.back().o.chip_failures_per_hour = -1;
  cases.push_back({"--storage-gbps", base});
  cases.back().o.storage_gbps = 0;
  cases.push_back({"--async-stall-s", base});
  cases.back().o.async_stall_s = 1;  // without --async-checkpoint
  for (const auto& c : cases) {
    auto a = ResolveBudget(c.o, *chip);
    ASSERT_FALSE(a.ok()) << c.flag;
    EXPECT_EQ(a.status().code(), StatusCode::kInvalidInput);
    EXPECT_NE(a.status().message().find(c.flag), std::string::npos) << a.status().message();
  }
}

}  // namespace
}  // namespace occam
