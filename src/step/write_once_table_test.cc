#include "step/write_once_table.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <thread>
#include <vector>

namespace occam::step_internal {
namespace {

struct Key {
  int64_t a = 0, b = 0;
  bool operator==(const Key&) const = default;
};

TEST(WriteOnceTable, KeepsTheFirstValueAndComputesOnce) {
  WriteOnceTable<Key, double, 16> t;
  int calls = 0;
  auto make = [&] { return ++calls * 1.5; };
  EXPECT_EQ(t.Get(3, Key{1, 2}, make), 1.5);
  EXPECT_EQ(t.Get(3, Key{1, 2}, make), 1.5);  // kept: make() not called again
  EXPECT_EQ(calls, 1);
  // Another key with the same home probes on to the next slot.
  EXPECT_EQ(t.Get(3, Key{2, 1}, make), 3.0);
  EXPECT_EQ(t.Get(3, Key{2, 1}, make), 3.0);
  EXPECT_EQ(calls, 2);
}

TEST(WriteOnceTable, FullProbeWindowComputesWithoutKeeping) {
  // 4 slots, 2 probes: home 0 reaches slots 0 and 1 only.
  WriteOnceTable<Key, int, 4, 2> t;
  int calls = 0;
  auto make = [&] { return ++calls; };
  EXPECT_EQ(t.Get(0, Key{0, 0}, make), 1);
  EXPECT_EQ(t.Get(0, Key{0, 1}, make), 2);
  EXPECT_EQ(t.Get(0, Key{0, 2}, make), 3);  // window full: not kept
  EXPECT_EQ(t.Get(0, Key{0, 2}, make), 4);
  EXPECT_EQ(t.Get(0, Key{0, 0}, make), 1);  // the kept ones stay
  EXPECT_EQ(t.Get(1, Key{0, 1}, make), 2);  // found from another home too
}

TEST(WriteOnceTable, HomeWrapsAroundTheTable) {
  WriteOnceTable<Key, int, 4, 2> t;
  EXPECT_EQ(t.Get(3, Key{7, 7}, [] { return 1; }), 1);
  EXPECT_EQ(t.Get(4 + 3, Key{8, 8}, [] { return 2; }), 2);  // slot 0 after 3
  EXPECT_EQ(t.Get(0, Key{8, 8}, [] { return 9; }), 2);
}

TEST(WriteOnceTable, GetRefReturnsAStableKeptValueOrTheScratch) {
  WriteOnceTable<Key, std::vector<int>, 2, 1> t;
  std::vector<int> scratch;
  const std::vector<int>& kept = t.GetRef(0, Key{1, 1}, scratch, [] { return std::vector{1, 2}; });
  EXPECT_NE(&kept, &scratch);
  EXPECT_EQ(&t.GetRef(0, Key{1, 1}, scratch, [] { return std::vector{9}; }), &kept);
  // Slot 0 is taken by another key and the window is one slot: scratch.
  const std::vector<int>& miss = t.GetRef(0, Key{2, 2}, scratch, [] { return std::vector{3}; });
  EXPECT_EQ(&miss, &scratch);
  EXPECT_EQ(miss, std::vector{3});
}

// Many threads asking for overlapping keys all see make(key)'s value.
TEST(WriteOnceTable, ConcurrentReadersSeeOnlyPublishedValues) {
  WriteOnceTable<Key, int64_t, 64> t;
  std::vector<std::thread> threads;
  std::vector<int> bad(4, 0);
  for (int th = 0; th < 4; ++th) {
    threads.emplace_back([&, th] {
      for (int rep = 0; rep < 200; ++rep) {
        for (int64_t k = 0; k < 100; ++k) {
          const int64_t v = t.Get(static_cast<size_t>(k * 7), Key{k, -k}, [k] { return k * k; });
          if (v != k * k) ++bad[static_cast<size_t>(th)];
        }
      }
    });
  }
  for (auto& x : threads) x.join();
  for (int b : bad) EXPECT_EQ(b, 0);
}

}  // namespace
}  // namespace occam::step_internal
