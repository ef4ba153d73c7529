#include <gtest/gtest.h>

#include "occam/report.h"

namespace occam {
namespace {

TEST(Format, BytesUseDecimalPrefixes) {
  EXPECT_EQ(FormatBytes(Bytes(80e9)), "80.00 GB");
  EXPECT_EQ(FormatBytes(Bytes(1536)), "1.54 kB");
  EXPECT_EQ(FormatBytes(Bytes(12)), "12 B");
}

TEST(Format, SecondsPickAReadableUnit) {
  EXPECT_EQ(FormatSeconds(Seconds(12.5)), "12.500 s");
  EXPECT_EQ(FormatSeconds(Seconds(0.0452)), "45.20 ms");
  EXPECT_EQ(FormatSeconds(Seconds(3e-6)), "3.00 us");
}

}  // namespace
}  // namespace occam
