#include "papcoll_bench_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "json_number.hpp"

namespace papcoll_bench {

using papcoll_cli::Json;

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

const AlgoResult* ConfigResult::ring_for(const AlgoResult& a) const {
  for (const AlgoResult& r : algos)
    if (r.algorithm == "ring" && r.pat == a.pat) return &r;
  return find("ring");
}

double ConfigResult::speedup_vs_ring(const AlgoResult& a) const {
  const AlgoResult* ring = ring_for(a);
  if (!ring || ring->samples_ms.empty() || a.samples_ms.empty()) return -1;
  const double alg_mean = summarize(a.samples_ms).mean;
  if (!(alg_mean > 0)) return -1;
  return summarize(ring->samples_ms).mean / alg_mean;
}

PostArrival post_arrival(const std::vector<double>& arrival_s,
                         const std::vector<double>& finish_s) {
  PostArrival r;
  if (arrival_s.empty() || arrival_s.size() != finish_s.size()) return r;
  const double n = static_cast<double>(arrival_s.size());
  const double last = *std::max_element(arrival_s.begin(), arrival_s.end());
  const double mean_arrival = std::accumulate(arrival_s.begin(), arrival_s.end(), 0.0) / n;
  const double mean_finish = std::accumulate(finish_s.begin(), finish_s.end(), 0.0) / n;
  r.post_arrival_ms = (mean_finish - last) * 1e3;
  r.arrival_lag_ms = (last - mean_arrival) * 1e3;
  return r;
}

double config_delta_ms(const RunInfo& info, const ConfigResult& c) {
  return delta_ms(info.delta, static_cast<double>(c.count) * dtype_size(info.opt.dtype));
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
  if (bytes >= (1 << 20))
    std::snprintf(buf, sizeof buf, "%.4g MiB", bytes / (1 << 20));
  else if (bytes >= (1 << 10))
    std::snprintf(buf, sizeof buf, "%.4g KiB", bytes / (1 << 10));
  else
    std::snprintf(buf, sizeof buf, "%.0f B", bytes);
  return buf;
}

// How many ranks the mode makes late: none 0, one-late 1, k-late/staggered K; rand-late delays
// every rank by a random amount, so null.
Json late_ranks(const BenchOptions& o) {
  switch (o.mode) {
    case DelayMode::none: return 0;
    case DelayMode::one_late: return 1;
    case DelayMode::rand_late: return nullptr;
    case DelayMode::k_late:
    case DelayMode::staggered: return o.late_count;
  }
  return nullptr;
}

using papcoll_cli::json_number;
using papcoll_cli::json_numbers;

// x, or null when there is no such figure.
Json number_if(bool have, double x) { return have ? json_number(x) : Json(); }

}  // namespace

std::string ran_label(const AlgoResult& a) {
  std::string s;
  for (const auto& [name, n] : a.ran)
    s += (s.empty() ? "" : ";") + (a.ran.size() == 1 ? name : name + ":" + std::to_string(n));
  return s;
}

std::string case_label(const RunInfo& info, const ConfigResult& c, PatMode pat) {
  const BenchOptions& o = info.opt;
  std::string s = o.op + " " + format_count(c.count) + " " + delay_mode_label(o.mode, o.late_count);
  if (o.mode != DelayMode::none) s += " " + format_ms(c.max_delay_ms) + "ms";
  return s + " " + pat_mode_name(pat);
}

namespace {

double mean_of_first(const std::vector<double>& v, int n) {
  if (n <= 0) return 0;
  return std::accumulate(v.begin(), v.begin() + n, 0.0) / n;
}

}  // namespace

std::vector<Verdict> case_verdicts(const RunInfo& info, const ConfigResult& c) {
  std::vector<Verdict> out;
  const double delta = config_delta_ms(info, c);
  for (const AlgoResult& a : c.algos) {
    if (a.algorithm == "native") continue;
    const AlgoResult* native = nullptr;
    for (const AlgoResult& r : c.algos)
      if (r.algorithm == "native" && r.pat == a.pat) native = &r;
    if (native == nullptr) continue;
    Verdict v;
    v.row = &a;
    v.native = native;
    v.ratio = paired_ratio(a.samples_ms, native->samples_ms);
    const int n = v.ratio.paired;
    v.post_arrival_over_delta = mean_of_first(a.post_arrival_ms, n) / delta;
    v.native_post_arrival_over_delta = mean_of_first(native->post_arrival_ms, n) / delta;
    v.word = a.correct() && native->correct() && n > 0 ? verdict_word(v.ratio) : "failed";
    out.push_back(v);
  }
  return out;
}

std::string verdict_line(const RunInfo& info, const ConfigResult& c, const Verdict& v) {
  const AlgoResult& a = *v.row;
  std::string who = a.algorithm;
  if (!a.ran.empty() && !(a.ran.size() == 1 && a.ran.front().first == a.algorithm)) {
    int total = 0;
    for (const auto& entry : a.ran) total += entry.second;
    std::string ran;
    for (const auto& [name, n] : a.ran)
      ran +=
          (ran.empty() ? "" : ", ") +
          (a.ran.size() == 1 ? name : name + " " + std::to_string(n) + "/" + std::to_string(total));
    who += " (" + ran + ")";
  }
  char buf[512];
  if (v.word == "failed") {
    std::snprintf(buf, sizeof buf,
                  "verdict %s: %s vs native: failed (%s had an error or a wrong result), no ratio",
                  case_label(info, c, a.pat).c_str(), who.c_str(),
                  a.correct() ? "native" : a.algorithm.c_str());
    return buf;
  }
  const PairedRatio& r = v.ratio;
  char interval[96];
  if (r.paired >= kVerdictMinIterations)
    std::snprintf(interval, sizeof interval, "%.0f%% CI %.2f-%.2f, ", kVerdictLevel * 100, r.ci_low,
                  r.ci_high);
  else
    interval[0] = '\0';
  std::snprintf(buf, sizeof buf,
                "verdict %s: %s %.2fx native, %s (%s%d paired iterations; mean %.4g vs %.4g ms; "
                "P/delta %.2f vs %.2f)",
                case_label(info, c, a.pat).c_str(), who.c_str(), r.ratio, v.word.c_str(), interval,
                r.paired, r.mean_ms, r.baseline_mean_ms, v.post_arrival_over_delta,
                v.native_post_arrival_over_delta);
  return buf;
}

void print_header(std::ostream& os, const RunInfo& info) {
  const BenchOptions& o = info.opt;
  os << "# papcoll-bench op=" << o.op << " p=" << info.p << " size=" << sizes_label(o.sizes)
     << " dtype=" << dtype_name(o.dtype)
     << (o.op == "allgatherv" ? std::string(" shape=") + shape_name(o.shape) : std::string())
     << (o.op == "scatterv" || o.op == "gatherv"
             ? " counts-dist=" + counts_dist_label(o.counts_dist, o.counts_ratio)
             : std::string())
     << " mode=" << delay_mode_label(o.mode, o.late_count)
     << " max-delay=" << delays_label(o.max_delays_ms) << "ms pat=" << pats_label(o.pats)
     << " iters=" << o.iters << " warmup=" << o.warmup << " compute=" << format_ms(o.compute_ms)
     << "ms blocks=" << (o.blocks > 0 ? std::to_string(o.blocks) : std::string("default"))
     << " seed=" << o.seed << (o.check ? "" : " no-check") << "\n"
     << (o.check ? "" : "# --no-check: outputs not checked (the correct column means: no error)\n")
     << "# algorithms: " << join(o.algorithms) << "; MPI thread level " << info.thread_level << "\n"
     << "# interleaved: every iteration runs each algorithm in turn, each after its own barriers\n"
     << "#   and emulated computation (in an order drawn anew each iteration), so machine noise "
        "hits all alike\n"
     << "# elapsed = own arrival to own completion, averaged over ranks, then over iterations\n"
     << "# P = post-arrival time: completion - last rank's arrival, averaged over ranks, then\n"
     << "#   over iterations (elapsed = P + last arrival - mean arrival); delta = alpha + n beta,\n"
     << "#   n the whole buffer's bytes, alpha=" << format_ms(info.delta.alpha_s)
     << " s beta=" << format_ms(info.delta.beta_s_per_byte) << " s/B (" << info.delta.source
     << ")\n"
     << "# network (papcoll_last_network): alpha=" << format_ms(info.delta.alpha_s)
     << " s beta=" << format_ms(info.delta.beta_s_per_byte)
     << " s/B gamma=" << format_ms(info.delta.gamma_s_per_byte) << " s/B, " << info.delta.source
     << ", " << info.delta.nodes << " node(s); measurement "
     << format_ms(info.delta.calibration_s * 1e3) << " ms, papcoll_calibrate "
     << format_ms(info.delta.calibrate_call_s * 1e3) << " ms\n"
     << "#   arrivals and completions read on "
     << (info.shared_clock ? "the ranks' shared clock (one node)"
                           : "each rank's clock from its own exit from the barriers")
     << "\n";
  bool history = false, monitor = false;
  for (PatMode m : o.pats) {
    history = history || m == PatMode::history;
    monitor = monitor || m == PatMode::monitor;
  }
  if (o.oracle_with_monitor)
    os << "# oracle runs also run the edge monitor (its pattern unused): --oracle-with-monitor\n";
  if (history || monitor)
    os << "# predictor=" << predictor_name(o.predictor) << " window=" << o.window
       << " ema-alpha=" << format_ms(o.ema_alpha) << " warmup-messages=" << o.warmup_messages
       << "\n";
  os << "# pred_err = mean |predicted - injected| arrival relative to the earliest rank, ms\n";
  if (std::find(o.algorithms.begin(), o.algorithms.end(), "native") != o.algorithms.end())
    os << "# verdict = a papcoll row against native (the MPI library's collective) with the same\n"
       << "#   pat: ratio of mean elapsed over the iterations both ran (below 1: papcoll faster),\n"
       << "#   " << static_cast<int>(kVerdictLevel * 100) << "% bootstrap interval over those "
       << "iterations; faster/slower when it excludes 1\n";
}

void print_table(std::ostream& os, const RunInfo& info, const ConfigResult& c) {
  const double bytes = static_cast<double>(c.count) * dtype_size(info.opt.dtype);
  const double delta = config_delta_ms(info, c);
  os << "\n## size=" << format_count(c.count) << " (" << c.count << " "
     << dtype_name(info.opt.dtype) << ", " << bytes_label(bytes)
     << ") max-delay=" << format_ms(c.max_delay_ms) << "ms delta=" << format_ms(delta) << "ms\n";
  char line[256];
  std::snprintf(line, sizeof line, "%-20s %-8s %10s %10s %10s %9s %8s %8s %11s  %s\n", "algorithm",
                "pat", "mean_ms", "stddev_ms", "median_ms", "P_ms", "P/delta", "speedup",
                "pred_err_ms", "correct");
  os << line;
  for (const AlgoResult& a : c.algos) {
    const Stats s = summarize(a.samples_ms);
    const double sp = c.speedup_vs_ring(a);
    char speed[32], err[32];
    if (sp > 0)
      std::snprintf(speed, sizeof speed, "%.3f", sp);
    else
      std::snprintf(speed, sizeof speed, "-");
    if (!a.pred_err_ms.empty())
      std::snprintf(err, sizeof err, "%.3f", summarize(a.pred_err_ms).mean);
    else
      std::snprintf(err, sizeof err, "-");
    const char* ok = a.error_iterations ? "ERROR" : (a.incorrect_iterations ? "no" : "yes");
    const double pa = summarize(a.post_arrival_ms).mean;
    if (s.n > 0)
      std::snprintf(line, sizeof line, "%-20s %-8s %10.3f %10.3f %10.3f %9.3f %8.2f %8s %11s  %s\n",
                    a.algorithm.c_str(), pat_mode_name(a.pat), s.mean, s.stddev, s.median, pa,
                    pa / delta, speed, err, ok);
    else
      std::snprintf(line, sizeof line, "%-20s %-8s %10s %10s %10s %9s %8s %8s %11s  %s\n",
                    a.algorithm.c_str(), pat_mode_name(a.pat), "-", "-", "-", "-", "-", speed, err,
                    ok);
    os << line;
  }
  // What papcoll's rows weighed and sized their schedules with beyond alpha and beta: measured
  // by the first call on the communicator, so known only now (the JSON has it per row).
  for (const AlgoResult& a : c.algos) {
    if (!(a.step_overhead_s > 0) && !(a.exchange_alpha_s > 0) && !(a.exchange_beta_s_per_byte > 0))
      continue;
    std::snprintf(line, sizeof line,
                  "# executor costs (papcoll_last_executor_costs): step overhead %.2f us; ",
                  a.step_overhead_s * 1e6);
    os << line;
    if (a.exchange_alpha_s > 0 || a.exchange_beta_s_per_byte > 0) {
      std::snprintf(line, sizeof line, "node exchange %.2f us + %.3g s/B\n",
                    a.exchange_alpha_s * 1e6, a.exchange_beta_s_per_byte);
      os << line;
    } else {
      os << "node exchange not timed\n";
    }
    break;
  }
  for (const Verdict& v : case_verdicts(info, c)) os << verdict_line(info, c, v) << "\n";
}

void write_json(std::ostream& os, const RunInfo& info, const std::vector<ConfigResult>& configs) {
  const BenchOptions& o = info.opt;
  // Keys in the order written (ordered_json); non-finite numbers come out as null.
  // Built bottom-up: a reference into an ordered_json does not survive the next key added.
  Json cfg;
  cfg["op"] = o.op;
  cfg["p"] = info.p;
  cfg["algorithms"] = o.algorithms;
  cfg["counts"] = o.sizes;
  cfg["dtype"] = dtype_name(o.dtype);
  cfg["mode"] = delay_mode_label(o.mode, o.late_count);
  cfg["checked"] = o.check;
  cfg["late_ranks"] = late_ranks(o);
  if (o.op == "allgatherv") cfg["shape"] = shape_name(o.shape);
  if (o.op == "scatterv" || o.op == "gatherv") {
    cfg["counts_dist"] = counts_dist_label(o.counts_dist, o.counts_ratio);
    cfg["model_file"] = o.model_path;
  }
  cfg["max_delays_ms"] = json_numbers(o.max_delays_ms);
  cfg["compute_ms"] = json_number(o.compute_ms);
  cfg["pat"] = pats_label(o.pats);
  Json pats = Json::array();
  for (PatMode m : o.pats) pats.push_back(pat_mode_name(m));
  cfg["pats"] = std::move(pats);
  cfg["predictor"] = predictor_name(o.predictor);
  cfg["window"] = o.window;
  cfg["ema_alpha"] = json_number(o.ema_alpha);
  cfg["warmup_messages"] = o.warmup_messages;
  cfg["oracle_with_monitor"] = o.oracle_with_monitor;
  cfg["blocks"] = o.blocks;
  cfg["alpha"] = json_number(o.alpha);
  cfg["beta"] = json_number(o.beta);
  cfg["gamma"] = json_number(o.gamma);
  cfg["delta_alpha_s"] = json_number(info.delta.alpha_s);
  cfg["delta_beta_s_per_byte"] = json_number(info.delta.beta_s_per_byte);
  cfg["delta_params"] = info.delta.source;
  cfg["network_gamma_s_per_byte"] = json_number(info.delta.gamma_s_per_byte);
  cfg["network_nodes"] = info.delta.nodes;
  cfg["network_intra_alpha_s"] = json_number(info.delta.intra_alpha_s);
  cfg["network_intra_beta_s_per_byte"] = json_number(info.delta.intra_beta_s_per_byte);
  cfg["calibration_s"] = json_number(info.delta.calibration_s);
  cfg["calibrate_call_s"] = json_number(info.delta.calibrate_call_s);
  cfg["post_arrival_clock"] = info.shared_clock ? "shared" : "barrier-exit";
  cfg["seed"] = static_cast<std::uint64_t>(o.seed);
  cfg["iters"] = o.iters;
  cfg["warmup"] = o.warmup;
  cfg["interleaved"] = true;
  cfg["mpi_library"] = info.mpi_library;
  cfg["mpi_thread_level"] = info.thread_level;
  cfg["wall_s"] = json_number(info.wall_s);

  Json results = Json::array();
  for (const ConfigResult& c : configs) {
    for (const AlgoResult& a : c.algos) {
      const Stats s = summarize(a.samples_ms);
      Json r;
      r["op"] = o.op;
      r["algorithm"] = a.algorithm;
      r["p"] = info.p;
      r["count"] = c.count;
      r["dtype"] = dtype_name(o.dtype);
      r["bytes"] = c.count * static_cast<long long>(dtype_size(o.dtype));
      r["mode"] = delay_mode_label(o.mode, o.late_count);
      r["late_ranks"] = late_ranks(o);
      r["max_delay_ms"] = json_number(c.max_delay_ms);
      r["shape"] = o.op == "allgatherv" ? shape_name(o.shape) : "";
      r["compute_ms"] = json_number(o.compute_ms);
      r["pat"] = pat_mode_name(a.pat);
      r["blocks"] = o.blocks;
      r["seed"] = static_cast<std::uint64_t>(o.seed);
      r["iters"] = o.iters;
      r["measured_iters"] = s.n;
      r["mean_elapsed_ms"] = number_if(s.n > 0, s.mean);
      r["stddev_ms"] = number_if(s.n > 0, s.stddev);
      r["median_ms"] = number_if(s.n > 0, s.median);
      r["min_ms"] = number_if(s.n > 0, s.min);
      r["max_ms"] = number_if(s.n > 0, s.max);
      const double delta = config_delta_ms(info, c);
      const Stats pa = summarize(a.post_arrival_ms);
      r["delta_ms"] = json_number(delta);
      r["post_arrival_ms"] = number_if(pa.n > 0, pa.mean);
      r["post_arrival_stddev_ms"] = number_if(pa.n > 0, pa.stddev);
      r["post_arrival_median_ms"] = number_if(pa.n > 0, pa.median);
      r["post_arrival_over_delta"] = number_if(pa.n > 0, pa.mean / delta);
      r["arrival_lag_ms"] = number_if(pa.n > 0, summarize(a.arrival_lag_ms).mean);
      const double sp = c.speedup_vs_ring(a);
      r["speedup_vs_ring"] = number_if(sp > 0, sp);
      r["correct"] = a.correct();
      r["incorrect_iters"] = a.incorrect_iterations;
      r["error_iters"] = a.error_iterations;
      r["error"] = a.error_message.empty() ? Json() : Json(a.error_message);
      const Stats err = summarize(a.pred_err_ms);
      r["prediction_error_ms"] = number_if(err.n > 0, err.mean);
      r["prediction_error_max_ms"] = number_if(err.n > 0, err.max);
      r["prediction_error_samples_ms"] = json_numbers(a.pred_err_ms);
      r["pattern_sources"] = Json{{"none", a.source_counts[0]},
                                  {"edge", a.source_counts[1]},
                                  {"history", a.source_counts[2]}};
      Json ran = Json::object();
      for (const auto& [name, n] : a.ran) ran[name] = n;
      r["ran_algorithms"] = std::move(ran);
      r["executor_costs"] =
          Json{{"step_overhead_s", json_number(a.step_overhead_s)},
               {"exchange_alpha_s", json_number(a.exchange_alpha_s)},
               {"exchange_beta_s_per_byte", json_number(a.exchange_beta_s_per_byte)}};
      Json per_rank = Json::array();
      for (const double sum : a.rank_sum_ms)
        per_rank.push_back(json_number(s.n > 0 ? sum / s.n : 0.0));
      r["per_rank_mean_ms"] = std::move(per_rank);
      r["samples_ms"] = json_numbers(a.samples_ms);
      r["post_arrival_samples_ms"] = json_numbers(a.post_arrival_ms);
      results.push_back(std::move(r));
    }
  }

  Json verdicts = Json::array();
  for (const ConfigResult& c : configs) {
    for (const Verdict& v : case_verdicts(info, c)) {
      const AlgoResult& a = *v.row;
      const bool ok = v.word != "failed";
      Json j;
      j["op"] = o.op;
      j["p"] = info.p;
      j["count"] = c.count;
      j["bytes"] = c.count * static_cast<long long>(dtype_size(o.dtype));
      j["dtype"] = dtype_name(o.dtype);
      j["mode"] = delay_mode_label(o.mode, o.late_count);
      j["late_ranks"] = late_ranks(o);
      j["max_delay_ms"] = json_number(c.max_delay_ms);
      j["pat"] = pat_mode_name(a.pat);
      j["algorithm"] = a.algorithm;
      j["ran"] = ran_label(a);
      j["baseline"] = "native";
      j["paired_iters"] = v.ratio.paired;
      j["mean_elapsed_ms"] = number_if(ok, v.ratio.mean_ms);
      j["baseline_mean_elapsed_ms"] = number_if(ok, v.ratio.baseline_mean_ms);
      j["ratio"] = number_if(ok, v.ratio.ratio);
      j["ratio_ci_low"] = number_if(ok, v.ratio.ci_low);
      j["ratio_ci_high"] = number_if(ok, v.ratio.ci_high);
      j["ci_level"] = json_number(kVerdictLevel);
      j["bootstrap_resamples"] = kVerdictResamples;
      j["post_arrival_over_delta"] = number_if(ok, v.post_arrival_over_delta);
      j["baseline_post_arrival_over_delta"] = number_if(ok, v.native_post_arrival_over_delta);
      j["verdict"] = v.word;
      j["text"] = verdict_line(info, c, v);
      verdicts.push_back(std::move(j));
    }
  }
  Json doc;
  doc["benchmark"] = "papcoll-bench";
  doc["format_version"] = 1;
  doc["config"] = std::move(cfg);
  doc["results"] = std::move(results);
  doc["verdicts"] = std::move(verdicts);
  os << doc.dump(2) << '\n';
}

namespace {

// A CSV cell: numbers with up to 10 significant digits, empty when not finite or not
// applicable.
std::string csv_number(double x) {
  if (!std::isfinite(x)) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10g", x);
  return buf;
}

}  // namespace

void write_csv(std::ostream& os, const RunInfo& info, const std::vector<ConfigResult>& configs) {
  const BenchOptions& o = info.opt;
  os << "op,p,count,bytes,dtype,mode,late_ranks,max_delay_ms,pat,algorithm,ran,measured_iters,"
        "mean_ms,stddev_ms,median_ms,min_ms,max_ms,P_ms,P_median_ms,delta_ms,P_over_delta,"
        "arrival_lag_ms,speedup_vs_ring,pred_err_ms,correct,paired_iters,ratio_vs_native,"
        "ratio_ci_low,ratio_ci_high,verdict\n";
  const std::string late = o.mode == DelayMode::none        ? "0"
                           : o.mode == DelayMode::one_late  ? "1"
                           : o.mode == DelayMode::rand_late ? ""
                                                            : std::to_string(o.late_count);
  for (const ConfigResult& c : configs) {
    const std::vector<Verdict> verdicts = case_verdicts(info, c);
    const double delta = config_delta_ms(info, c);
    for (const AlgoResult& a : c.algos) {
      const Stats s = summarize(a.samples_ms);
      const Stats pa = summarize(a.post_arrival_ms);
      const double nan = std::nan("");
      const auto stat = [&](double x) { return csv_number(s.n > 0 ? x : nan); };
      const auto pstat = [&](double x) { return csv_number(pa.n > 0 ? x : nan); };
      const double sp = c.speedup_vs_ring(a);
      os << o.op << ',' << info.p << ',' << c.count << ','
         << c.count * static_cast<long long>(dtype_size(o.dtype)) << ',' << dtype_name(o.dtype)
         << ',' << delay_mode_label(o.mode, o.late_count) << ',' << late << ','
         << csv_number(c.max_delay_ms) << ',' << pat_mode_name(a.pat) << ',' << a.algorithm << ','
         << ran_label(a) << ',' << s.n << ',' << stat(s.mean) << ',' << stat(s.stddev) << ','
         << stat(s.median) << ',' << stat(s.min) << ',' << stat(s.max) << ',' << pstat(pa.mean)
         << ',' << pstat(pa.median) << ',' << csv_number(delta) << ',' << pstat(pa.mean / delta)
         << ',' << csv_number(a.arrival_lag_ms.empty() ? nan : summarize(a.arrival_lag_ms).mean)
         << ',' << csv_number(sp > 0 ? sp : nan) << ','
         << csv_number(a.pred_err_ms.empty() ? nan : summarize(a.pred_err_ms).mean) << ','
         << (a.correct()          ? "yes"
             : a.error_iterations ? "ERROR"
                                  : "no");
      const Verdict* v = nullptr;
      for (const Verdict& x : verdicts)
        if (x.row == &a) v = &x;
      if (v == nullptr) {
        os << ",,,,,\n";
        continue;
      }
      const bool failed = v->word == "failed";
      os << ',' << v->ratio.paired << ',' << csv_number(failed ? nan : v->ratio.ratio) << ','
         << csv_number(failed ? nan : v->ratio.ci_low) << ','
         << csv_number(failed ? nan : v->ratio.ci_high) << ',' << v->word << '\n';
    }
  }
}

}  // namespace papcoll_bench
