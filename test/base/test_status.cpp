// Status and Result<T>: names, classes, propagation through TILEFW_TRY / TILEFW_TRY_ASSIGN.
#include <cstring>

#include "tftest.hpp"
#include "tilefw/base/result.hpp"
#include "tilefw/base/status.hpp"

using tilefw::Result;
using tilefw::Status;
using tilefw::StatusClass;

namespace {

Result<int> parse_digit(char c) {
  if (c < '0' || c > '9') return Status::invalid_argument;
  return c - '0';
}

Status sum_two(char a, char b, int* out) {
  TILEFW_TRY_ASSIGN(const int x, parse_digit(a));
  TILEFW_TRY_ASSIGN(const int y, parse_digit(b));
  *out = x + y;
  return Status::ok;
}

Status first_failure(Status a, Status b) {
  TILEFW_TRY(a);
  TILEFW_TRY(b);
  return Status::ok;
}

constexpr Result<int> constexpr_half(int v) {
  if (v % 2 != 0) return Status::invalid_argument;
  return v / 2;
}
static_assert(constexpr_half(8).ok() && constexpr_half(8).value() == 4);
static_assert(constexpr_half(7).status() == Status::invalid_argument);

}  // namespace

TEST(Status, NamesAndClasses) {
  EXPECT_STREQ(tilefw::status_name(Status::ok), "ok");
  EXPECT_STREQ(tilefw::status_name(Status::desc_dst_block_stride_zero), "desc_dst_block_stride_zero");
  EXPECT_EQ(tilefw::status_class(Status::desc_dst_block_stride_zero), StatusClass::invalid_descriptor);
  EXPECT_EQ(tilefw::status_class(Status::misaligned), StatusClass::misaligned);
  EXPECT_EQ(tilefw::status_class(Status::out_of_bounds), StatusClass::out_of_bounds);
  EXPECT_EQ(tilefw::status_class(Status::illegal_overlap), StatusClass::illegal_overlap);
  EXPECT_EQ(tilefw::status_class(Status::cmd_truncated), StatusClass::other);
  EXPECT_STREQ(tilefw::status_class_name(StatusClass::invalid_descriptor), "invalid_descriptor");
}

TEST(Status, EveryValueHasANameAndDescription) {
  // Walk the numeric space; every defined value must have its own name and a sentence.
  int defined = 0;
  for (unsigned v = 0; v < 1000; ++v) {
    const char* name = tilefw::status_name(static_cast<Status>(v));
    if (std::strcmp(name, "unknown_status") == 0) continue;
    ++defined;
#if defined(TILEFW_STATUS_DESCRIPTIONS) && !TILEFW_STATUS_DESCRIPTIONS
    // -Dstatus_strings=names: the descriptions are compiled out and the name stands in.
    EXPECT_STREQ(tilefw::status_description(static_cast<Status>(v)), name);
#else
    EXPECT_GT(std::strlen(tilefw::status_description(static_cast<Status>(v))), 10u);
#endif
  }
  EXPECT_GT(defined, 40);
}

TEST(Status, TableIsTheEnumInNumericOrder) {
  // status_table() is what `tilefw status` and docs/STATUS.md list: every row must agree with
  // the per-value functions, and the rows must be strictly ascending (no duplicate numbers).
  std::size_t count = 0;
  const tilefw::StatusInfo* table = tilefw::status_table(count);
  ASSERT_GT(count, 60u);
  int defined = 0;
  for (unsigned v = 0; v < 1000; ++v) {
    if (std::strcmp(tilefw::status_name(static_cast<Status>(v)), "unknown_status") != 0) ++defined;
  }
  EXPECT_EQ(static_cast<std::size_t>(defined), count);
  for (std::size_t i = 0; i < count; ++i) {
    if (i > 0) {
      EXPECT_LT(static_cast<unsigned>(table[i - 1].value), static_cast<unsigned>(table[i].value));
    }
    EXPECT_STREQ(table[i].name, tilefw::status_name(table[i].value));
    EXPECT_STREQ(table[i].description, tilefw::status_description(table[i].value));
    EXPECT_EQ(table[i].cls, tilefw::status_class(table[i].value));
  }
}

TEST(Status, BandsFollowTheHundreds) {
  EXPECT_STREQ(tilefw::status_band(Status::ok), "ok");
  EXPECT_STREQ(tilefw::status_band(Status::capacity_exceeded), "base");
  EXPECT_STREQ(tilefw::status_band(Status::port_timeout), "chip/port");
  EXPECT_STREQ(tilefw::status_band(Status::illegal_overlap), "desc");
  EXPECT_STREQ(tilefw::status_band(Status::sim_unsupported_op), "issue/sim");
  EXPECT_STREQ(tilefw::status_band(Status::tile_misaligned), "plan/tile");
  EXPECT_STREQ(tilefw::status_band(Status::cmd_bad_field), "cmd");
  EXPECT_STREQ(tilefw::status_band(Status::cmd_no_route), "cmd");
  EXPECT_STREQ(tilefw::status_band(Status::cmd_unsatisfiable_message), "cmd");
  EXPECT_EQ(static_cast<unsigned>(Status::cmd_unmatched_transfer), 511u);
  EXPECT_EQ(static_cast<unsigned>(Status::cmd_pair_mismatch), 512u);
  EXPECT_STREQ(tilefw::status_band(Status::rt_busy), "rt");
  EXPECT_STREQ(tilefw::status_band(Status::gen_plan_mismatch), "gen");
}

TEST(Result, ValueAndFailure) {
  const Result<int> good = parse_digit('7');
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(good.value(), 7);
  const Result<int> bad = parse_digit('x');
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.status(), Status::invalid_argument);
  EXPECT_EQ(bad.value_or(-1), -1);
}

TEST(Result, OkStatusWithoutValueIsAnError) {
  // A Result built from Status::ok would hold no value; it must not read as success.
  const Result<int> r{Status::ok};
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status(), Status::invalid_argument);
}

TEST(Result, TryPropagatesTheFirstFailure) {
  int sum = -1;
  EXPECT_EQ(sum_two('3', '4', &sum), Status::ok);
  EXPECT_EQ(sum, 7);
  sum = -1;
  EXPECT_EQ(sum_two('3', 'z', &sum), Status::invalid_argument);
  EXPECT_EQ(sum, -1);  // nothing written on failure
  EXPECT_EQ(first_failure(Status::ok, Status::capacity_exceeded), Status::capacity_exceeded);
  EXPECT_EQ(first_failure(Status::buffer_too_small, Status::capacity_exceeded), Status::buffer_too_small);
  EXPECT_EQ(first_failure(Status::ok, Status::ok), Status::ok);
}
