#include "sim/engine.h"

#include <gtest/gtest.h>

#include <vector>

namespace occam::sim {
namespace {

TEST(EventQueue, EqualTimesComeOutInInsertionOrder) {
  EventQueue q;
  q.Push(Seconds(1.0), 10);
  q.Push(Seconds(0.5), 20);
  q.Push(Seconds(1.0), 30);
  q.Push(Seconds(1.0), 40);
  q.Push(Seconds(0.5), 50);
  std::vector<int64_t> order;
  while (!q.empty()) order.push_back(q.Pop().payload);
  EXPECT_EQ(order, (std::vector<int64_t>{20, 50, 10, 30, 40}));
}

TEST(EventQueue, ManyTiesStayInInsertionOrder) {
  EventQueue q;
  for (int i = 0; i < 1000; ++i) q.Push(Seconds(i % 3), i);
  int64_t last_time = -1, last_payload = -1;
  while (!q.empty()) {
    const auto e = q.Pop();
    const auto t = int64_t(e.time.value());
    if (t == last_time) {
      EXPECT_GT(e.payload, last_payload);
    }
    EXPECT_GE(t, last_time);
    last_time = t;
    last_payload = e.payload;
  }
}

TEST(StreamEngine, ProgramOrderAndDependencies) {
  StreamEngine e;
  const int32_t s0 = e.AddStream(StreamEngine::Order::kProgram);
  const int32_t s1 = e.AddStream(StreamEngine::Order::kProgram);
  const int32_t a = e.AddTask(Seconds(2), s0);
  const int32_t b = e.AddTask(Seconds(1), s0);
  const int32_t c = e.AddTask(Seconds(3), s1);
  e.AddDependency(a, c);  // c waits for a although s1 is free
  ASSERT_TRUE(e.Run().ok());
  EXPECT_EQ(e.start(b).value(), 2);  // after a on the same stream
  EXPECT_EQ(e.start(c).value(), 2);
  EXPECT_EQ(e.end(c).value(), 5);
  EXPECT_EQ(e.makespan().value(), 5);
}

TEST(StreamEngine, ReadyStreamRunsInReadinessOrder) {
  StreamEngine e;
  const int32_t compute = e.AddStream(StreamEngine::Order::kProgram);
  const int32_t link = e.AddStream(StreamEngine::Order::kReady);
  const int32_t slow = e.AddTask(Seconds(5), compute);
  const int32_t fast = e.AddTask(Seconds(1), compute);
  // Added first, but its producer ends later.
  const int32_t x_late = e.AddTask(Seconds(1), link);
  const int32_t x_early = e.AddTask(Seconds(1), link);
  e.AddDependency(fast, x_late);
  e.AddDependency(slow, x_early);
  ASSERT_TRUE(e.Run().ok());
  EXPECT_EQ(e.start(x_early).value(), 5);
  EXPECT_EQ(e.start(x_late).value(), 6);
}

TEST(StreamEngine, TwoStreamTaskWaitsForBoth) {
  StreamEngine e;
  const int32_t send = e.AddStream(StreamEngine::Order::kReady);
  const int32_t recv = e.AddStream(StreamEngine::Order::kReady);
  const int32_t other_send = e.AddStream(StreamEngine::Order::kReady);
  const int32_t busy_recv = e.AddTask(Seconds(4), other_send, recv);
  const int32_t x = e.AddTask(Seconds(1), send, recv);
  ASSERT_TRUE(e.Run().ok());
  EXPECT_EQ(e.start(busy_recv).value(), 0);
  EXPECT_EQ(e.start(x).value(), 4);  // recv stream was held until 4
}

TEST(StreamEngine, DeadlockIsReported) {
  StreamEngine e;
  const int32_t s = e.AddStream(StreamEngine::Order::kProgram);
  const int32_t first = e.AddTask(Seconds(1), s);
  const int32_t second = e.AddTask(Seconds(1), s);
  e.AddDependency(second, first);  // first waits for a task queued behind it
  const Status st = e.Run();
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("deadlock"), std::string::npos);
  EXPECT_EQ(e.FirstStuckTask(), first);
}

TEST(StreamEngine, RunsAreDeterministic) {
  auto run = [] {
    StreamEngine e;
    const int32_t a = e.AddStream(StreamEngine::Order::kProgram);
    const int32_t l = e.AddStream(StreamEngine::Order::kReady);
    const int32_t r = e.AddStream(StreamEngine::Order::kReady);
    std::vector<int32_t> tasks;
    for (int i = 0; i < 50; ++i) {
      const int32_t t = e.AddTask(Seconds(1), a);
      const int32_t x = e.AddTask(Seconds(i % 2), l, r);  // equal-time ties
      e.AddDependency(t, x);
      tasks.push_back(x);
    }
    EXPECT_TRUE(e.Run().ok());
    std::vector<double> starts;
    for (int32_t x : tasks) starts.push_back(e.start(x).value());
    return starts;
  };
  EXPECT_EQ(run(), run());
}

}  // namespace
}  // namespace occam::sim
