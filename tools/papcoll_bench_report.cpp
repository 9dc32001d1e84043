#include "papcoll_bench_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "papcoll_bench_json.hpp"

namespace papcoll_bench {

Stats summarize(const std::vector<double>& samples) {
  Stats s;
  s.n = static_cast<int>(samples.size());
  if (s.n == 0) return s;
  s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / s.n;
  double ss = 0;
  for (const double x : samples) ss += (x - s.mean) * (x - s.mean);
  s.stddev = s.n > 1 ? std::sqrt(ss / (s.n - 1)) : 0.0;
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  s.median = s.n % 2 ? sorted[s.n / 2] : 0.5 * (sorted[s.n / 2 - 1] + sorted[s.n / 2]);
  s.min = sorted.front();
  s.max = sorted.back();
  return s;
}

const AlgoResult* ConfigResult::find(const std::string& name) const {
  for (const AlgoResult& a : algos)
    if (a.algorithm == name) return &a;
  return nullptr;
}

double ConfigResult::speedup_vs_ring(const AlgoResult& a) const {
  const AlgoResult* ring = find("ring");
  if (!ring || ring->samples_ms.empty() || a.samples_ms.empty()) return -1;
  const double alg_mean = summarize(a.samples_ms).mean;
  if (!(alg_mean > 0)) return -1;
  return summarize(ring->samples_ms).mean / alg_mean;
}

std::string format_ms(double ms) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", ms);
  return buf;
}

namespace {

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

std::string sizes_label(const std::vector<long long>& sizes) {
  std::vector<std::string> v;
  for (const long long n : sizes) v.push_back(format_count(n));
  return join(v);
}

std::string delays_label(const std::vector<double>& delays) {
  std::vector<std::string> v;
  for (const double d : delays) v.push_back(format_ms(d));
  return join(v);
}

std::string bytes_label(double bytes) {
  char buf[64];
  if (bytes >= (1 << 20)) std::snprintf(buf, sizeof buf, "%.4g MiB", bytes / (1 << 20));
  else if (bytes >= (1 << 10)) std::snprintf(buf, sizeof buf, "%.4g KiB", bytes / (1 << 10));
  else std::snprintf(buf, sizeof buf, "%.0f B", bytes);
  return buf;
}

}  // namespace

void print_header(std::ostream& os, const RunInfo& info) {
  const BenchOptions& o = info.opt;
  os << "# papcoll-bench op=" << o.op << " p=" << info.p << " size=" << sizes_label(o.sizes)
     << " dtype=" << dtype_name(o.dtype) << " mode=" << delay_mode_name(o.mode)
     << " max-delay=" << delays_label(o.max_delays_ms) << "ms pat=" << pat_mode_name(o.pat)
     << " iters=" << o.iters << " warmup=" << o.warmup
     << " compute=" << format_ms(o.compute_ms) << "ms blocks="
     << (o.blocks > 0 ? std::to_string(o.blocks) : std::string("default")) << " seed=" << o.seed
     << "\n"
     << "# algorithms: " << join(o.algorithms) << "\n"
     << "# interleaved: every iteration runs each algorithm in turn, each after its own barriers\n"
     << "#   and emulated computation (first algorithm rotates), so machine noise hits all alike\n"
     << "# elapsed = own arrival to own completion, averaged over ranks, then over iterations\n";
}

void print_table(std::ostream& os, const RunInfo& info, const ConfigResult& c) {
  const double bytes = static_cast<double>(c.count) * dtype_size(info.opt.dtype);
  os << "\n## size=" << format_count(c.count) << " (" << c.count << " " << dtype_name(info.opt.dtype)
     << ", " << bytes_label(bytes) << ") max-delay=" << format_ms(c.max_delay_ms) << "ms\n";
  char line[256];
  std::snprintf(line, sizeof line, "%-20s %10s %10s %10s %8s  %s\n", "algorithm", "mean_ms",
                "stddev_ms", "median_ms", "speedup", "correct");
  os << line;
  for (const AlgoResult& a : c.algos) {
    const Stats s = summarize(a.samples_ms);
    const double sp = c.speedup_vs_ring(a);
    char speed[32];
    if (sp > 0) std::snprintf(speed, sizeof speed, "%.3f", sp);
    else std::snprintf(speed, sizeof speed, "-");
    const char* ok = a.error_iterations ? "ERROR" : (a.incorrect_iterations ? "no" : "yes");
    if (s.n > 0)
      std::snprintf(line, sizeof line, "%-20s %10.3f %10.3f %10.3f %8s  %s\n",
                    a.algorithm.c_str(), s.mean, s.stddev, s.median, speed, ok);
    else
      std::snprintf(line, sizeof line, "%-20s %10s %10s %10s %8s  %s\n", a.algorithm.c_str(),
                    "-", "-", "-", speed, ok);
    os << line;
  }
}

void write_json(std::ostream& os, const RunInfo& info, const std::vector<ConfigResult>& configs) {
  const BenchOptions& o = info.opt;
  JsonWriter w(os);
  w.begin_object();
  w.field("benchmark", "papcoll-bench").field("format_version", 1);
  w.key("config").begin_object();
  w.field("op", o.op).field("p", info.p);
  w.key("algorithms").begin_array();
  for (const std::string& a : o.algorithms) w.value(a);
  w.end_array();
  w.key("counts").begin_array();
  for (const long long n : o.sizes) w.value(n);
  w.end_array();
  w.field("dtype", dtype_name(o.dtype)).field("mode", delay_mode_name(o.mode));
  w.key("max_delays_ms").begin_array();
  for (const double d : o.max_delays_ms) w.value(d);
  w.end_array();
  w.field("compute_ms", o.compute_ms).field("pat", pat_mode_name(o.pat))
      .field("blocks", o.blocks).field("seed", static_cast<std::uint64_t>(o.seed))
      .field("iters", o.iters).field("warmup", o.warmup).field("interleaved", true)
      .field("mpi_library", info.mpi_library).field("wall_s", info.wall_s);
  w.end_object();
  w.key("results").begin_array();
  for (const ConfigResult& c : configs) {
    for (const AlgoResult& a : c.algos) {
      const Stats s = summarize(a.samples_ms);
      w.begin_object();
      w.field("op", o.op).field("algorithm", a.algorithm).field("p", info.p)
          .field("count", c.count).field("dtype", dtype_name(o.dtype))
          .field("bytes", c.count * static_cast<long long>(dtype_size(o.dtype)))
          .field("mode", delay_mode_name(o.mode)).field("max_delay_ms", c.max_delay_ms)
          .field("compute_ms", o.compute_ms).field("pat", pat_mode_name(o.pat))
          .field("blocks", o.blocks).field("seed", static_cast<std::uint64_t>(o.seed))
          .field("iters", o.iters).field("measured_iters", s.n);
      if (s.n > 0) {
        w.field("mean_elapsed_ms", s.mean).field("stddev_ms", s.stddev)
            .field("median_ms", s.median).field("min_ms", s.min).field("max_ms", s.max);
      } else {
        w.key("mean_elapsed_ms").null().key("stddev_ms").null().key("median_ms").null()
            .key("min_ms").null().key("max_ms").null();
      }
      const double sp = c.speedup_vs_ring(a);
      w.key("speedup_vs_ring");
      if (sp > 0) w.value(sp);
      else w.null();
      w.field("correct", a.correct()).field("incorrect_iters", a.incorrect_iterations)
          .field("error_iters", a.error_iterations);
      w.key("error");
      if (a.error_message.empty()) w.null();
      else w.value(a.error_message);
      w.key("per_rank_mean_ms").begin_array();
      for (const double sum : a.rank_sum_ms) w.value(s.n > 0 ? sum / s.n : 0.0);
      w.end_array();
      w.key("samples_ms").begin_array();
      for (const double x : a.samples_ms) w.value(x);
      w.end_array();
      w.end_object();
    }
  }
  w.end_array();
  w.end_object();
}

}  // namespace papcoll_bench
