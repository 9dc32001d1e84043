#include "observe/report_data.hpp"

#include <cstring>
#include <type_traits>

namespace papcoll::observe {
namespace {

class Writer {
 public:
  template <typename T>
  void pod(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    out_.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  void str(const std::string& s) {
    pod<std::uint64_t>(s.size());
    out_ += s;
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class Reader {
 public:
  Reader(const char* p, size_t n) : p_(p), n_(n) {}
  template <typename T>
  bool pod(T* v) {
    if (n_ - at_ < sizeof *v) return false;
    std::memcpy(v, p_ + at_, sizeof *v);
    at_ += sizeof *v;
    return true;
  }
  bool str(std::string* s) {
    std::uint64_t len = 0;
    if (!pod(&len) || n_ - at_ < len) return false;
    s->assign(p_ + at_, len);
    at_ += len;
    return true;
  }
  // A count of items of at least `min_bytes` each that fit in what is left.
  bool count(std::uint64_t* n, size_t min_bytes) {
    return pod(n) && *n <= (n_ - at_) / (min_bytes == 0 ? 1 : min_bytes);
  }
  bool done() const { return at_ == n_; }

 private:
  const char* p_;
  size_t n_, at_ = 0;
};

constexpr std::uint64_t kMagic = 0x7061706372707431ULL;  // "papcrpt1"

}  // namespace

KeyData key_data(const KeyRecord& k) {
  KeyData d;
  d.key = k.key;
  d.calls = k.calls;
  d.seconds = k.seconds;
  d.max_seconds = k.max_seconds;
  for (const auto& [name, calls] : k.algorithms) d.algorithms.emplace_back(name, calls);
  std::memcpy(d.reasons, k.reasons, sizeof d.reasons);
  d.gain_sum = k.gain_sum;
  d.gain_calls = k.gain_calls;
  d.level = k.level;
  d.samples = k.samples;
  return d;
}

std::string serialize(const RankData& r) {
  Writer w;
  w.pod(kMagic);
  w.pod(r.world_rank);
  w.str(r.host);
  w.pod(r.clock_offset);
  w.pod(r.clock_width);
  w.pod<std::uint64_t>(r.comms.size());
  for (const CommData& c : r.comms) {
    w.pod(c.id);
    w.str(c.name);
    w.pod(c.size);
    w.pod(c.rank);
    w.pod<std::uint64_t>(c.world_ranks.size());
    for (int x : c.world_ranks) w.pod(x);
    w.pod(c.calls);
    w.pod(c.unkeyed);
    w.pod<std::uint8_t>(c.freed ? 1 : 0);
    w.pod<std::uint64_t>(c.keys.size());
    for (const KeyData& k : c.keys) {
      w.pod(k.key.collective);
      w.pod(k.key.bytes);
      w.pod(k.key.root);
      w.pod(k.calls);
      w.pod(k.seconds);
      w.pod(k.max_seconds);
      w.pod<std::uint64_t>(k.algorithms.size());
      for (const auto& [name, n] : k.algorithms) {
        w.str(name);
        w.pod(n);
      }
      for (std::uint64_t x : k.reasons) w.pod(x);
      w.pod(k.gain_sum);
      w.pod(k.gain_calls);
      w.pod(k.level);
      w.pod<std::uint64_t>(k.samples.size());
      for (const Sample& s : k.samples) w.pod(s);
    }
  }
  return w.take();
}

bool deserialize(const char* bytes, size_t n, RankData* out) {
  Reader r(bytes, n);
  std::uint64_t magic = 0, comms = 0;
  RankData d;
  if (!r.pod(&magic) || magic != kMagic || !r.pod(&d.world_rank) || !r.str(&d.host) ||
      !r.pod(&d.clock_offset) || !r.pod(&d.clock_width) || !r.count(&comms, 32))
    return false;
  d.comms.resize(comms);
  for (CommData& c : d.comms) {
    std::uint64_t ranks = 0, keys = 0;
    std::uint8_t freed = 0;
    if (!r.pod(&c.id) || !r.str(&c.name) || !r.pod(&c.size) || !r.pod(&c.rank) ||
        !r.count(&ranks, sizeof(int)))
      return false;
    c.world_ranks.resize(ranks);
    for (int& x : c.world_ranks)
      if (!r.pod(&x)) return false;
    if (!r.pod(&c.calls) || !r.pod(&c.unkeyed) || !r.pod(&freed) || !r.count(&keys, 64))
      return false;
    c.freed = freed != 0;
    c.keys.resize(keys);
    for (KeyData& k : c.keys) {
      std::uint64_t algos = 0, samples = 0;
      if (!r.pod(&k.key.collective) || !r.pod(&k.key.bytes) || !r.pod(&k.key.root) ||
          !r.pod(&k.calls) || !r.pod(&k.seconds) || !r.pod(&k.max_seconds) || !r.count(&algos, 16))
        return false;
      k.algorithms.resize(algos);
      for (auto& [name, calls] : k.algorithms)
        if (!r.str(&name) || !r.pod(&calls)) return false;
      for (std::uint64_t& x : k.reasons)
        if (!r.pod(&x)) return false;
      if (!r.pod(&k.gain_sum) || !r.pod(&k.gain_calls) || !r.pod(&k.level) ||
          !r.count(&samples, sizeof(Sample)))
        return false;
      k.samples.resize(samples);
      for (Sample& s : k.samples)
        if (!r.pod(&s)) return false;
    }
  }
  if (!r.done()) return false;
  *out = std::move(d);
  return true;
}

}  // namespace papcoll::observe
