#include "occam/units.h"

#include <gtest/gtest.h>

#include <cmath>

namespace occam {
namespace {

TEST(Units, BytesOverBandwidthIsSeconds) {
  const Seconds t = GB(100) / GBps(50);
  EXPECT_DOUBLE_EQ(t.value(), 2.0);
}

TEST(Units, FlopsOverRateIsSeconds) {
  const Seconds t = Flops(989.4e12) / TFlops(989.4);
  EXPECT_DOUBLE_EQ(t.value(), 1.0);
}

TEST(Units, RatioOfLikeQuantitiesIsPlainNumber) {
  const double r = GiB(1) / Bytes(1024.0 * 1024.0 * 1024.0);
  EXPECT_DOUBLE_EQ(r, 1.0);
}

TEST(Units, RateTimesTimeIsAmount) {
  EXPECT_DOUBLE_EQ((GBps(2) * Seconds(3)).value(), 6e9);
  EXPECT_DOUBLE_EQ((Flops(6e12) / Seconds(2)).value(), 3e12);
}

TEST(Units, MinMaxAndOrdering) {
  EXPECT_EQ(Max(Seconds(1), Seconds(2)), Seconds(2));
  EXPECT_EQ(Min(Seconds(1), Seconds(2)), Seconds(1));
  EXPECT_LT(Microseconds(1), Milliseconds(1));
}

// The comparisons are the doubles': every one is false against NaN.
TEST(Units, ComparisonsFollowTheValues) {
  const Bytes one(1), two(2), nan(std::nan(""));
  EXPECT_TRUE(one < two && one <= two && two > one && two >= one && one != two);
  EXPECT_TRUE(one <= one && one >= one && one == one);
  EXPECT_FALSE(nan < one || nan > one || nan <= one || nan >= one || nan == nan);
  EXPECT_TRUE(nan != nan);
}

}  // namespace
}  // namespace occam
