#include "schedule/clairvoyant/bench.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <ctime>
#include <iomanip>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

namespace papcoll::clairvoyant {
namespace {

double thread_cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

size_t reference_index(const std::vector<Impl>& impls) {
  for (size_t i = 0; i < impls.size(); ++i)
    if (impls[i] == Impl::segtree) return i;
  return 0;
}

}  // namespace

const char* dist_name(Dist d) { return d == Dist::uniform ? "uniform" : "skewed"; }

bool parse_dist(const std::string& s, Dist* out) {
  if (s == "uniform")
    *out = Dist::uniform;
  else if (s == "skewed")
    *out = Dist::skewed;
  else
    return false;
  return true;
}

Instance random_instance(int p, int segments, Dist dist, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Instance in;
  in.p = p;
  in.segments = segments;
  in.arrivals.assign(static_cast<size_t>(p), 0.0);
  in.round_time = std::uniform_real_distribution<double>(0.001, 1.0)(rng);
  if (dist == Dist::uniform) {
    std::uniform_real_distribution<double> a(0.0, p + 0.1);
    for (double& x : in.arrivals) x = a(rng);
    in.root = static_cast<int>(rng() % static_cast<uint64_t>(p));
  } else {
    in.arrivals[static_cast<size_t>(p) - 1] = segments;
    in.root = 0;
  }
  return in;
}

BenchResult bench(const std::vector<int>& ps, int segments_fixed, const std::vector<Dist>& dists,
                  const std::vector<Impl>& impls, int runs, uint64_t seed) {
  BenchResult out;
  for (const int p : ps)
    for (const Dist dist : dists) {
      const int n = segments_fixed > 0 ? segments_fixed : p;
      const size_t k = impls.size();
      std::vector<double> sum(k, 0), sum2(k, 0), cpu(k, 0), bits(k, 0), transfers(k, 0);
      auto seed_of = [&](int run) {
        return seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(p) * 1000003u +
               static_cast<uint64_t>(n) * 7919u + (dist == Dist::skewed ? 1u : 0u) +
               static_cast<uint64_t>(run) * 0xBF58476D1CE4E5B9ull;
      };
      if (static_cast<int64_t>(p) * n <= 64 * 64) {  // warm-up: code, caches, allocator
        const Instance warm = random_instance(p, n, dist, seed_of(-1));
        for (Impl impl : impls) run(impl, warm);
      }
      for (int r = 0; r < runs; ++r) {
        const Instance in = random_instance(p, n, dist, seed_of(r));
        std::vector<Result> res(k);
        for (size_t j = 0; j < k; ++j) {
          const size_t i = (j + static_cast<size_t>(r)) % k;  // rotate who goes first
          const auto t0 = std::chrono::steady_clock::now();
          const double c0 = thread_cpu_ms();
          res[i] = run(impls[i], in);
          const double c1 = thread_cpu_ms();
          const double ms =
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                  .count();
          sum[i] += ms;
          sum2[i] += ms * ms;
          cpu[i] += c1 - c0;
          bits[i] = res[i].state_bits / (static_cast<double>(p) * n);
          transfers[i] += static_cast<double>(res[i].transfers.size());
        }
        for (size_t i = 1; i < k; ++i)
          if (out.identical && !res[i].same_transfers(res[0])) {
            out.identical = false;
            std::ostringstream m;
            m << impl_name(impls[i]) << " differs from " << impl_name(impls[0]) << " at p=" << p
              << " blocks=" << n << " dist=" << dist_name(dist) << " run " << r;
            out.mismatch = m.str();
          }
      }
      for (size_t i = 0; i < k; ++i) {
        BenchCell c;
        c.impl = impls[i];
        c.p = p;
        c.segments = n;
        c.dist = dist;
        c.runs = runs;
        const double mean = runs ? sum[i] / runs : 0;
        c.mean_ms = mean;
        c.stddev_ms =
            runs > 1 ? std::sqrt(std::max(0.0, (sum2[i] - runs * mean * mean) / (runs - 1))) : 0;
        c.cpu_mean_ms = runs ? cpu[i] / runs : 0;
        c.bits_per_pair = bits[i];
        c.mean_transfers = runs ? transfers[i] / runs : 0;
        out.cells.push_back(c);
      }
    }
  return out;
}

namespace {

// Cells come in groups of equal (p, segments, dist), in the order the implementations were given.
template <typename F>
void for_each_group(const BenchResult& r, F f) {
  for (size_t i = 0; i < r.cells.size();) {
    size_t j = i;
    while (j < r.cells.size() && r.cells[j].p == r.cells[i].p &&
           r.cells[j].segments == r.cells[i].segments && r.cells[j].dist == r.cells[i].dist)
      ++j;
    f(i, j);
    i = j;
  }
}

std::vector<Impl> group_impls(const BenchResult& r, size_t i, size_t j) {
  std::vector<Impl> v;
  for (size_t k = i; k < j; ++k) v.push_back(r.cells[k].impl);
  return v;
}

}  // namespace

std::string bench_json(const BenchResult& r) {
  using Json = nlohmann::ordered_json;  // keys in the order written
  // Six significant digits, as the stream wrote them before; an integral value as an integer.
  const auto num = [](double x) -> Json {
    char buf[32];
    const auto end = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::general, 6).ptr;
    std::from_chars(buf, end, x);
    if (std::isfinite(x) && x == std::trunc(x) && std::fabs(x) < 9007199254740992.0)
      return static_cast<long long>(x);
    return x;
  };
  Json results = Json::array();
  for (const BenchCell& c : r.cells)
    results.push_back(Json{{"impl", impl_name(c.impl)},
                           {"p", c.p},
                           {"blocks", c.segments},
                           {"dist", dist_name(c.dist)},
                           {"runs", c.runs},
                           {"mean_ms", num(c.mean_ms)},
                           {"stddev_ms", num(c.stddev_ms)},
                           {"cpu_mean_ms", num(c.cpu_mean_ms)},
                           {"bits_per_pair", num(c.bits_per_pair)},
                           {"mean_transfers", num(c.mean_transfers)}});
  Json ratios = Json::array();
  for_each_group(r, [&](size_t i, size_t j) {
    const size_t ref = i + reference_index(group_impls(r, i, j));
    const BenchCell& c = r.cells[ref];
    Json g{{"p", c.p}, {"blocks", c.segments}, {"dist", dist_name(c.dist)}};
    for (size_t k = i; k < j; ++k)
      if (k != ref)
        g[std::string(impl_name(r.cells[k].impl)) + "/" + impl_name(c.impl)] =
            num(c.mean_ms > 0 ? r.cells[k].mean_ms / c.mean_ms : 0);
    ratios.push_back(std::move(g));
  });
  Json doc{{"results", std::move(results)},
           {"ratios", std::move(ratios)},
           {"identical", r.identical}};
  if (!r.identical) doc["mismatch"] = r.mismatch;
  return doc.dump() + "\n";
}

std::string bench_text(const BenchResult& r) {
  std::ostringstream o;
  o << std::fixed;
  for_each_group(r, [&](size_t i, size_t j) {
    const size_t ref = i + reference_index(group_impls(r, i, j));
    const BenchCell& c = r.cells[ref];
    o << "P=" << c.p << " N=" << c.segments << " " << dist_name(c.dist) << " (" << c.runs
      << " runs)\n";
    for (size_t k = i; k < j; ++k) {
      const BenchCell& x = r.cells[k];
      o << "  " << std::left << std::setw(8) << impl_name(x.impl) << std::right
        << std::setprecision(3) << std::setw(12) << x.mean_ms << " ms  (sd " << x.stddev_ms
        << ", cpu " << x.cpu_mean_ms << ")  " << std::setprecision(2) << x.bits_per_pair
        << " bits/pair";
      if (k != ref && c.mean_ms > 0)
        o << "  x" << x.mean_ms / c.mean_ms << " of " << impl_name(c.impl);
      o << '\n';
    }
  });
  if (!r.identical) o << "MISMATCH: " << r.mismatch << '\n';
  return o.str();
}

}  // namespace papcoll::clairvoyant
