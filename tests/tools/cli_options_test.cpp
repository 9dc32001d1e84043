// The tools' command lines (tools/cli_common.hpp, papcoll-bench's options): values with units,
// and errors that name the option. No MPI: papcoll-bench parses before MPI_Init.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli_common.hpp"
#include "papcoll_bench_options.hpp"

namespace {

using papcoll_bench::BenchOptions;
using papcoll_bench::ParseResult;

ParseResult parse(std::vector<std::string> args, BenchOptions* out) {
  args.insert(args.begin(), "papcoll-bench");
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  return papcoll_bench::parse_bench_options(static_cast<int>(argv.size()), argv.data(), *out);
}

std::string error_of(std::vector<std::string> args) {
  BenchOptions o;
  const ParseResult r = parse(std::move(args), &o);
  return r.kind == ParseResult::error ? r.message : "(no error)";
}

TEST(CliUnits, Durations) {
  double s = -1;
  EXPECT_TRUE(papcoll_cli::parse_duration_s("20ms", 1, &s));
  EXPECT_DOUBLE_EQ(s, 0.02);
  EXPECT_TRUE(papcoll_cli::parse_duration_s("200us", 1, &s));
  EXPECT_DOUBLE_EQ(s, 2e-4);
  EXPECT_TRUE(papcoll_cli::parse_duration_s("0.5s", 1e-3, &s));
  EXPECT_DOUBLE_EQ(s, 0.5);
  EXPECT_TRUE(papcoll_cli::parse_duration_s("750ns", 1, &s));
  EXPECT_DOUBLE_EQ(s, 7.5e-7);
  EXPECT_TRUE(papcoll_cli::parse_duration_s("20", 1e-3, &s));  // plain: the caller's unit
  EXPECT_DOUBLE_EQ(s, 0.02);
  for (const char* bad : {"", "ms", "-1ms", "5min", "2h", "1e3ms", "nan", "inf", "1.2.3s", "."})
    EXPECT_FALSE(papcoll_cli::parse_duration_s(bad, 1, &s)) << bad;
}

TEST(CliUnits, Bytes) {
  long long n = -1;
  EXPECT_TRUE(papcoll_cli::parse_bytes("4MiB", 1LL << 40, &n));
  EXPECT_EQ(n, 4LL << 20);
  EXPECT_TRUE(papcoll_cli::parse_bytes("64K", 1LL << 40, &n));
  EXPECT_EQ(n, 64LL << 10);
  EXPECT_TRUE(papcoll_cli::parse_bytes("2g", 1LL << 40, &n));
  EXPECT_EQ(n, 2LL << 30);
  EXPECT_TRUE(papcoll_cli::parse_bytes("12B", 1LL << 40, &n));
  EXPECT_EQ(n, 12);
  EXPECT_TRUE(papcoll_cli::parse_bytes("1024", 1LL << 40, &n));
  EXPECT_EQ(n, 1024);
  // KB/MB are ambiguous (1000 or 1024): refused; so are signs, fractions and overflow.
  for (const char* bad : {"", "4MB", "1KB", "-1K", "1.5M", "MiB", "8TiB", "99999999999999999999"})
    EXPECT_FALSE(papcoll_cli::parse_bytes(bad, 1LL << 40, &n)) << bad;
  EXPECT_FALSE(papcoll_cli::parse_bytes("2GiB", (1LL << 31) - 1, &n));
}

TEST(CliUnits, Wrap) {
  EXPECT_EQ(papcoll_cli::wrap("aa bb cc", 5), "aa bb\ncc");
  EXPECT_EQ(papcoll_cli::wrap("aa\nbb cc", 80), "aa\nbb cc");
  EXPECT_EQ(papcoll_cli::wrap("averylongword x", 4), "averylongword\nx");
}

TEST(BenchOptions, SizesInElementsOrBytes) {
  BenchOptions o;
  ASSERT_EQ(parse({"--size", "1M,4MiB,64K,12B", "--dtype", "float"}, &o).kind, ParseResult::run);
  EXPECT_EQ(o.sizes, (std::vector<long long>{1 << 20, 1 << 20, 64 << 10, 3}));
  BenchOptions d;
  // Bytes become elements of the dtype, whichever option comes first.
  ASSERT_EQ(parse({"--dtype", "double", "--size=4MiB"}, &d).kind, ParseResult::run);
  EXPECT_EQ(d.sizes, (std::vector<long long>{1 << 19}));
  EXPECT_EQ(error_of({"--size", "6B", "--dtype", "long"}),
            "--size: 6B is not a whole number of long elements (8 bytes each)");
  EXPECT_EQ(error_of({"--size", "16GiB"}),
            "--size: 16GiB (17179869184 bytes) is more than 2147483647 float elements (MPI counts "
            "are int)");
  EXPECT_NE(error_of({"--size", "4MB"}).find("--size: '4MB' is not an element count"),
            std::string::npos);
}

TEST(BenchOptions, Durations) {
  BenchOptions o;
  ASSERT_EQ(parse({"--max-delay", "200us,20ms,0.5s,3", "--compute-ms", "0.1s"}, &o).kind,
            ParseResult::run);
  ASSERT_EQ(o.max_delays_ms.size(), 4u);
  EXPECT_DOUBLE_EQ(o.max_delays_ms[0], 0.2);
  EXPECT_DOUBLE_EQ(o.max_delays_ms[1], 20);
  EXPECT_DOUBLE_EQ(o.max_delays_ms[2], 500);
  EXPECT_DOUBLE_EQ(o.max_delays_ms[3], 3);
  EXPECT_DOUBLE_EQ(o.compute_ms, 100);
  EXPECT_EQ(error_of({"--compute-ms", "2h"}).rfind("--compute-ms: '2h' is not a duration", 0), 0u);
  EXPECT_EQ(error_of({"--max-delay", "3601s"}).rfind("--max-delay: '3601s' is not a duration", 0),
            0u);
}

TEST(BenchOptions, ErrorsNameTheOption) {
  EXPECT_EQ(error_of({"--iters", "0"}), "--iters: '0' is not an integer in 1..1000000");
  EXPECT_EQ(error_of({"--iters"}), "option --iters needs a value");
  EXPECT_EQ(error_of({"--iter", "3"}), "unknown option '--iter'");
  EXPECT_EQ(error_of({"--iter=3"}), "unknown option '--iter'");
  EXPECT_EQ(error_of({"stray"}), "unexpected argument 'stray'");
  EXPECT_EQ(error_of({"--seed", "-1"}), "--seed: '-1' is not a non-negative integer");
  EXPECT_EQ(error_of({"--dtype", "half"}),
            "--dtype: 'half' is not one of float, double, int, long");
  EXPECT_EQ(error_of({"--algo", "ring,,prr"}), "--algo: empty algorithm name in 'ring,,prr'");
  EXPECT_EQ(error_of({"--pat", "oracle,oracle"}), "--pat: 'oracle' listed twice");
  EXPECT_EQ(error_of({"--json="}), "option --json needs a value");
}

TEST(BenchOptions, LaterOptionWinsAndFlags) {
  BenchOptions o;
  ASSERT_EQ(
      parse({"--iters", "5", "--quiet", "--iters=7", "--no-check", "--mode", "k-late:2"}, &o).kind,
      ParseResult::run);
  EXPECT_EQ(o.iters, 7);
  EXPECT_TRUE(o.quiet);
  EXPECT_FALSE(o.check);
  EXPECT_EQ(o.mode, papcoll_bench::DelayMode::k_late);
  EXPECT_EQ(o.late_count, 2);
}

TEST(BenchOptions, Help) {
  BenchOptions o;
  const ParseResult r = parse({"--help"}, &o);
  ASSERT_EQ(r.kind, ParseResult::help);
  for (const char* s : {"--max-delay", "k-late:K", "staggered:K", "200us", "--csv", "4MiB"})
    EXPECT_NE(r.message.find(s), std::string::npos) << s;
  EXPECT_EQ(parse({"-h"}, &o).kind, ParseResult::help);
}

}  // namespace
