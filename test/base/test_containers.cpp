// Span, StaticVector and RingBuffer: bounds are reported as Status, never overrun; StaticVector
// holds move-only items and moves without allocating, also in constant expressions.
#include <type_traits>
#include <utility>

#include "tftest.hpp"
#include "tilefw/base/span.hpp"
#include "tilefw/base/static_vector.hpp"

using tilefw::RingBuffer;
using tilefw::Span;
using tilefw::StaticVector;
using tilefw::Status;

TEST(Span, SubspanChecksBounds) {
  int data[6] = {0, 1, 2, 3, 4, 5};
  const Span<int> s(data);
  EXPECT_EQ(s.size(), 6u);
  auto mid = s.subspan(2, 3);
  ASSERT_TRUE(mid.ok());
  EXPECT_EQ(mid->size(), 3u);
  EXPECT_EQ((*mid)[0], 2);
  EXPECT_EQ(s.subspan(4, 3).status(), Status::index_out_of_range);
  EXPECT_EQ(s.subspan(7).status(), Status::index_out_of_range);
  // A count that would wrap around the address space is rejected, not wrapped.
  EXPECT_EQ(s.subspan(1, static_cast<size_t>(-1)).status(), Status::index_out_of_range);
  EXPECT_TRUE(s.subspan(6).ok());
  EXPECT_EQ(s.at(5).value(), &data[5]);
  EXPECT_EQ(s.at(6).status(), Status::index_out_of_range);
  const Span<const int> cs = s;
  EXPECT_EQ(cs.size_bytes(), sizeof(data));
}

namespace {

// A move-only item (think: an owned handle). `token` 0 marks a moved-from item.
struct MoveOnly {
  int token = 0;
  constexpr explicit MoveOnly(int t) noexcept : token(t) {}
  constexpr MoveOnly(MoveOnly&& o) noexcept : token(o.token) { o.token = 0; }
  constexpr MoveOnly& operator=(MoveOnly&& o) noexcept {
    token = o.token;
    o.token = 0;
    return *this;
  }
  MoveOnly(const MoveOnly&) = delete;
  MoveOnly& operator=(const MoveOnly&) = delete;
};

using MoveOnlyVector = StaticVector<MoveOnly, 4>;
static_assert(std::is_move_constructible_v<MoveOnlyVector> && std::is_move_assignable_v<MoveOnlyVector>);
static_assert(!std::is_copy_constructible_v<MoveOnlyVector> && !std::is_copy_assignable_v<MoveOnlyVector>);
static_assert(std::is_nothrow_move_constructible_v<MoveOnlyVector>);
static_assert(std::is_copy_constructible_v<StaticVector<int, 2>>);

// Moves stay constexpr: build, move-construct, move-assign and read back at compile time.
constexpr int moved_sum() {
  MoveOnlyVector a;
  if (a.emplace_back(1) != Status::ok || a.push_back(MoveOnly{2}) != Status::ok) return -1;
  MoveOnlyVector b(std::move(a));
  MoveOnlyVector c;
  c = std::move(b);
  return c[0].token * 10 + c[1].token + static_cast<int>(a.size() + b.size()) * 100;
}
static_assert(moved_sum() == 12);

}  // namespace

TEST(StaticVector, MoveOnlyElementsMoveAndLeaveTheSourceEmpty) {
  MoveOnlyVector a;
  EXPECT_EQ(a.emplace_back(7), Status::ok);
  MoveOnly item(8);
  EXPECT_EQ(a.push_back(std::move(item)), Status::ok);
  EXPECT_EQ(item.token, 0);  // moved into the vector
  MoveOnlyVector b(std::move(a));
  EXPECT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].token, 7);
  EXPECT_EQ(b[1].token, 8);
  EXPECT_TRUE(a.empty());
  MoveOnlyVector c;
  EXPECT_EQ(c.emplace_back(99), Status::ok);
  c = std::move(b);
  EXPECT_EQ(c.size(), 2u);
  EXPECT_EQ(c[1].token, 8);
  EXPECT_TRUE(b.empty());
  // A full vector refuses a moved item and leaves it untouched.
  EXPECT_EQ(c.emplace_back(3), Status::ok);
  EXPECT_EQ(c.emplace_back(4), Status::ok);
  MoveOnly spare(5);
  EXPECT_EQ(c.push_back(std::move(spare)), Status::capacity_exceeded);
  EXPECT_EQ(spare.token, 5);
}

TEST(StaticVector, PushUntilFullThenReport) {
  StaticVector<int, 3> v;
  EXPECT_TRUE(v.empty());
  EXPECT_EQ(v.push_back(1), Status::ok);
  EXPECT_EQ(v.push_back(2), Status::ok);
  EXPECT_EQ(v.emplace_back(3), Status::ok);
  EXPECT_TRUE(v.full());
  EXPECT_EQ(v.push_back(4), Status::capacity_exceeded);
  EXPECT_EQ(v.size(), 3u);
  EXPECT_EQ(v.back(), 3);
  int sum = 0;
  for (int x : v) sum += x;
  EXPECT_EQ(sum, 6);
  EXPECT_EQ(v.pop_back(), Status::ok);
  EXPECT_EQ(v.size(), 2u);
  EXPECT_EQ(v.at(2).status(), Status::index_out_of_range);
  const StaticVector<int, 3> copy = v;
  EXPECT_EQ(copy.size(), 2u);
  EXPECT_EQ(copy[1], 2);
  v.clear();
  EXPECT_EQ(v.pop_back(), Status::index_out_of_range);
}

TEST(RingBuffer, FifoOrderAndWrap) {
  RingBuffer<uint32_t, 3> q;
  for (uint32_t round = 0; round < 4; ++round) {  // wraps the head several times
    EXPECT_EQ(q.push(round * 10 + 1), Status::ok);
    EXPECT_EQ(q.push(round * 10 + 2), Status::ok);
    EXPECT_EQ(q.pop().value(), round * 10 + 1);
    EXPECT_EQ(q.pop().value(), round * 10 + 2);
  }
  EXPECT_EQ(q.pop().status(), Status::index_out_of_range);
  EXPECT_EQ(q.push(1), Status::ok);
  EXPECT_EQ(q.push(2), Status::ok);
  EXPECT_EQ(q.push(3), Status::ok);
  EXPECT_EQ(q.push(4), Status::capacity_exceeded);
  EXPECT_EQ(q.front().value(), 1u);
  EXPECT_EQ(q.size(), 3u);
}
