#include "calibration/calibration_file.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <sstream>

#include "model/link_model.hpp"

namespace papcoll {

std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t h) {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

std::uint64_t calibration_key_hash(std::vector<std::uint64_t> host_hashes, int ranks,
                                   std::string_view library, std::string_view layout_key) {
  std::sort(host_hashes.begin(), host_hashes.end());
  std::uint64_t h = 14695981039346656037ULL;
  auto mix = [&](std::uint64_t v) {
    char b[8];
    for (int i = 0; i < 8; ++i) b[i] = static_cast<char>((v >> (8 * i)) & 0xff);
    h = fnv1a64(std::string_view(b, 8), h);
  };
  for (std::uint64_t v : host_hashes) mix(v);
  mix(static_cast<std::uint64_t>(ranks));
  h = fnv1a64(one_line(library), h);
  if (!layout_key.empty()) h = fnv1a64(layout_key, fnv1a64("nodes", h));
  return h;
}

std::string key_text(std::uint64_t hash) {
  static const char* const digits = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, hash >>= 4) s[static_cast<size_t>(i)] = digits[hash & 0xf];
  return s;
}

std::string one_line(std::string_view text) {
  std::string s(text.substr(0, 512));
  for (char& c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

namespace {

std::vector<std::string_view> fields_of(std::string_view line) {
  std::vector<std::string_view> f;
  size_t at = 0;
  while (at < line.size()) {
    while (at < line.size() && (line[at] == ' ' || line[at] == '\t')) ++at;
    if (at >= line.size()) break;
    size_t end = at;
    while (end < line.size() && line[end] != ' ' && line[end] != '\t') ++end;
    f.push_back(line.substr(at, end - at));
    at = end;
  }
  return f;
}

bool number(std::string_view t, double* out) {
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), *out);
  return ec == std::errc() && end == t.data() + t.size() && std::isfinite(*out) && *out >= 0;
}

std::string text_of(double v) { return link_value_text(v); }

}  // namespace

CalibrationFileResult parse_calibration(std::string_view text, const std::string& source,
                                        const CalibrationKey& key) {
  CalibrationFileResult r;
  auto bad = [&](int line, const std::string& what) {
    r.error = source + (line > 0 ? ": line " + std::to_string(line) : std::string()) + ": " + what;
    return r;
  };
  constexpr size_t kMaxBytes = 16 << 10;
  if (text.size() > kMaxBytes)
    return bad(0, "longer than " + std::to_string(kMaxBytes) + " bytes: not a calibration file");
  if (text.empty()) return bad(0, "empty: not a papcoll calibration file");
  NetworkParams p;
  p.source = NetworkSource::cache;
  bool have_key = false, have_ranks = false, have_nodes = false, have_library = false,
       have_intra = false, have_inter = false, ended = false;
  bool have_gamma[kGammaClasses] = {false, false, false};
  int line_no = 0;
  size_t at = 0;
  while (at < text.size() && !ended) {
    size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(at, nl - at);
    at = nl + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line_no == 1) {
      const std::string expected = std::string(kCalibrationHeader) + " " +
                                   std::to_string(kCalibrationVersion);
      if (line.rfind(kCalibrationHeader, 0) != 0)
        return bad(1, "not a papcoll calibration file (expected '" + expected + "')");
      if (line != expected)
        return bad(1, "unsupported format '" + std::string(line) + "' (this library reads '" +
                          expected + "')");
      continue;
    }
    if (const size_t hash = line.find('#');
        hash != std::string_view::npos && !line.starts_with("library"))
      line = line.substr(0, hash);
    const std::vector<std::string_view> f = fields_of(line);
    if (f.empty()) continue;
    const std::string_view name = f[0];
    if (name == "end") {
      ended = true;
    } else if (name == "key") {
      if (f.size() != 2 || f[1].size() != 16)
        return bad(line_no, "expected 'key' and 16 hex digits");
      std::uint64_t h = 0;
      const auto [end, ec] = std::from_chars(f[1].data(), f[1].data() + 16, h, 16);
      if (ec != std::errc() || end != f[1].data() + 16) return bad(line_no, "key is not hex");
      if (h != key.hash)
        return bad(line_no, "foreign file: written for key " + std::string(f[1]) +
                                " (another host list, communicator size or MPI library), this "
                                "communicator's is " +
                                key_text(key.hash));
      have_key = true;
    } else if (name == "ranks" || name == "nodes") {
      int v = 0;
      if (f.size() != 2 ||
          std::from_chars(f[1].data(), f[1].data() + f[1].size(), v).ptr !=
              f[1].data() + f[1].size() ||
          v < 1)
        return bad(line_no, "expected '" + std::string(name) + " N' with N >= 1");
      if (name == "ranks") {
        if (v != key.ranks)
          return bad(line_no, "foreign file: written for " + std::to_string(v) +
                                  " ranks, the communicator has " + std::to_string(key.ranks));
        have_ranks = true;
      } else {
        p.nodes = v;
        have_nodes = true;
      }
    } else if (name == "library") {
      std::string_view rest = line.substr(line.find("library") + 7);
      while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
      if (one_line(rest) != one_line(key.library))
        return bad(line_no, "foreign file: written for another MPI library ('" + one_line(rest) +
                                "', this one is '" + one_line(key.library) + "')");
      have_library = true;
    } else if (name == "intra" || name == "inter") {
      LinkParams l;
      if (f.size() == 2 && f[1] == "none") {
      } else if (f.size() != 3 || !number(f[1], &l.alpha) || !number(f[2], &l.beta)) {
        return bad(line_no, "expected '" + std::string(name) + " ALPHA BETA' (finite, >= 0) or '" +
                                std::string(name) + " none'");
      }
      (name == "intra" ? p.intra : p.inter) = l;
      (name == "intra" ? have_intra : have_inter) = true;
    } else if (name == "gamma") {
      int k = -1;
      for (int c = 0; c < kGammaClasses; ++c)
        if (f.size() >= 2 && f[1] == gamma_class_name(static_cast<GammaClass>(c))) k = c;
      double g = 0;
      if (k < 0 || f.size() != 3 || !(f[2] == "none" || number(f[2], &g)))
        return bad(line_no, "expected 'gamma float|double|int VALUE' (finite, >= 0) or 'none'");
      p.gamma[k] = f[2] == "none" ? kUnknown : g;
      have_gamma[k] = true;
    } else if (name == "measured_seconds") {
      double s = 0;
      if (f.size() != 2 || !number(f[1], &s)) return bad(line_no, "expected 'measured_seconds S'");
    } else {
      return bad(line_no, "unknown line '" + std::string(f[0]) + "'");
    }
  }
  if (!ended) return bad(0, "truncated: no closing 'end' line");
  const char* missing = !have_key       ? "key"
                        : !have_ranks   ? "ranks"
                        : !have_nodes   ? "nodes"
                        : !have_library ? "library"
                        : !have_intra   ? "intra"
                        : !have_inter   ? "inter"
                                        : nullptr;
  for (int c = 0; c < kGammaClasses && missing == nullptr; ++c)
    if (!have_gamma[c]) missing = "gamma";
  if (missing != nullptr) return bad(0, std::string("no '") + missing + "' line");
  if (!p.intra.known() && !p.inter.known()) return bad(0, "neither intra nor inter links given");
  r.ok = true;
  r.params = p;
  return r;
}

std::string write_calibration(const NetworkParams& params, const CalibrationKey& key) {
  std::ostringstream o;
  o << kCalibrationHeader << ' ' << kCalibrationVersion << "\n"
    << "# papcoll's measured network (docs/calibration-format.md); delete to measure again\n"
    << "key " << key_text(key.hash) << "\n"
    << "ranks " << key.ranks << "\n"
    << "nodes " << params.nodes << "\n"
    << "library " << one_line(key.library) << "\n";
  for (const auto& [name, l] :
       {std::pair{"intra", params.intra}, std::pair{"inter", params.inter}}) {
    o << name;
    if (l.known())
      o << ' ' << text_of(l.alpha) << ' ' << text_of(l.beta) << "\n";
    else
      o << " none\n";
  }
  for (int c = 0; c < kGammaClasses; ++c) {
    const double g = params.gamma[c];
    o << "gamma " << gamma_class_name(static_cast<GammaClass>(c)) << ' '
      << (std::isfinite(g) && g >= 0 ? text_of(g) : std::string("none")) << "\n";
  }
  o << "measured_seconds " << text_of(std::max(0.0, params.seconds)) << "\n"
    << "end\n";
  return o.str();
}

}  // namespace papcoll
