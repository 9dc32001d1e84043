#include "model/link_model_io.hpp"

#include <charconv>
#include <exception>
#include <fstream>
#include <optional>
#include <sstream>
#include <vector>

namespace papcoll {
namespace {

// Ranks above this are refused before anything is allocated: a p*p model beyond it would not fit.
constexpr int kMaxModelP = 1 << 16;

std::vector<std::string_view> fields_of(std::string_view line) {
  if (const size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
  std::vector<std::string_view> f;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    const size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    if (i > start) f.push_back(line.substr(start, i - start));
  }
  return f;
}

std::optional<long long> int_of(std::string_view s) {
  long long v = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<double> double_of(std::string_view s) {
  double v = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string pair_name(long long i, long long j) {
  return std::to_string(i) + " -> " + std::to_string(j);
}

class Parser {
 public:
  Parser(std::string_view text, std::string source) : text_(text), source_(std::move(source)) {}

  LinkModelResult run(int expected_p) {
    std::vector<std::string_view> lines;
    for (size_t pos = 0; pos < text_.size();) {
      size_t nl = text_.find('\n', pos);
      if (nl == std::string_view::npos) nl = text_.size();
      lines.push_back(text_.substr(pos, nl - pos));
      pos = nl + 1;
    }
    if (lines.empty() || fields_of(lines[0]).empty())
      return fail("empty file or empty first line (expected the header '" + header() + "')");
    for (size_t k = 0; k < lines.size(); ++k) {
      line_ = static_cast<int>(k) + 1;
      last_line_ = k + 1 == lines.size();
      const std::vector<std::string_view> f = fields_of(lines[k]);
      if (k == 0) {
        if (std::string e = check_header(f); !e.empty()) return fail_at(e);
        continue;
      }
      if (f.empty()) continue;
      if (ended_) return fail_at("content after 'end'");
      if (std::string e = take(f); !e.empty()) return fail_at(e);
    }
    if (!ended_)
      return fail("truncated: no closing 'end' line after line " + std::to_string(lines.size()));
    if (p_ == 0) return fail("no 'p N' line");
    if (std::string e = check_complete(); !e.empty()) return fail(e);
    if (expected_p > 0 && p_ != expected_p)
      return fail("the model is for p=" + std::to_string(p_) + " ranks but there are " +
                  std::to_string(expected_p));
    LinkModelResult r = alpha_.empty()
                            ? LinkModel::homogeneous(p_, default_alpha_, default_beta_)
                            : LinkModel::from_matrices(p_, std::move(alpha_), std::move(beta_));
    if (!r.ok()) return fail(r.error);
    return r;
  }

 private:
  static std::string header() {
    return std::string(kModelHeader) + " " + std::to_string(kModelVersion);
  }

  std::string check_header(const std::vector<std::string_view>& f) const {
    if (f[0] != kModelHeader)
      return "not a papcoll model file: expected the header '" + header() + "', found '" +
             std::string(f[0]) + "'";
    if (f.size() != 2) return "the header must be '" + header() + "'";
    const std::optional<long long> v = int_of(f[1]);
    if (!v || *v != kModelVersion)
      return "unsupported model format version '" + std::string(f[1]) +
             "' (this library reads version " + std::to_string(kModelVersion) + ")";
    return {};
  }

  // One non-empty line after the header.
  std::string take(const std::vector<std::string_view>& f) {
    const std::string_view key = f[0];
    if (key == "end") {
      if (f.size() != 1) return "'end' takes nothing after it";
      ended_ = true;
      return {};
    }
    if (key == "p") {
      if (p_ != 0) return "a second 'p' line";
      if (f.size() != 2) return "expected 'p N'";
      const std::optional<long long> p = int_of(f[1]);
      if (!p || *p < 1 || *p > kMaxModelP)
        return "p must be an integer in 1.." + std::to_string(kMaxModelP) + ", found '" +
               std::string(f[1]) + "'";
      p_ = static_cast<int>(*p);
      return {};
    }
    if (key == "default") {
      if (p_ == 0) return "'default' before the 'p N' line";
      if (has_default_) return "a second 'default' line";
      if (f.size() != 3) return fields_error("'default ALPHA BETA'", 3, f.size());
      if (std::string e = values(f[1], f[2], "default", &default_alpha_, &default_beta_);
          !e.empty())
        return e;
      has_default_ = true;
      return {};
    }
    if (!int_of(key))
      return "expected 'p N', 'default ALPHA BETA', 'FROM TO ALPHA BETA' or 'end', found '" +
             std::string(key) + "'";
    if (p_ == 0) return "a link line before the 'p N' line";
    if (f.size() != 4) return fields_error("'FROM TO ALPHA BETA'", 4, f.size());
    const std::optional<long long> i = int_of(f[0]), j = int_of(f[1]);
    if (!j) return "TO must be an integer, found '" + std::string(f[1]) + "'";
    for (long long r : {*i, *j})
      if (r < 0 || r >= p_)
        return "rank " + std::to_string(r) + " out of range 0.." + std::to_string(p_ - 1);
    if (*i == *j) return "link from rank " + std::to_string(*i) + " to itself";
    if (alpha_.empty()) {  // first link line: the matrices, pre-filled for 'default'
      const size_t n = static_cast<size_t>(p_) * static_cast<size_t>(p_);
      alpha_.assign(n, 0.0);
      beta_.assign(n, 0.0);
      seen_.assign(n, false);
    }
    const size_t k = static_cast<size_t>(*i) * p_ + static_cast<size_t>(*j);
    if (seen_[k]) return "link " + pair_name(*i, *j) + " given twice";
    seen_[k] = true;
    ++links_;
    return values(f[2], f[3], "link " + pair_name(*i, *j), &alpha_[k], &beta_[k]);
  }

  std::string values(std::string_view a, std::string_view b, const std::string& what,
                     double* alpha, double* beta) const {
    const std::optional<double> x = double_of(a), y = double_of(b);
    if (!x) return "alpha of " + what + " is not a number: '" + std::string(a) + "'";
    if (!y) return "beta of " + what + " is not a number: '" + std::string(b) + "'";
    if (std::string e = check_link_value(*x, "alpha of " + what); !e.empty()) return e;
    if (std::string e = check_link_value(*y, "beta of " + what); !e.empty()) return e;
    *alpha = *x;
    *beta = *y;
    return {};
  }

  std::string fields_error(const std::string& form, size_t want, size_t got) const {
    return "expected " + form + " (" + std::to_string(want) + " fields), found " +
           std::to_string(got) + " field" + (got == 1 ? "" : "s");
  }

  // Every ordered pair is listed, or a default covers the rest.
  std::string check_complete() {
    const long long pairs = static_cast<long long>(p_) * (p_ - 1);
    if (links_ == pairs) return {};
    if (links_ == 0 && !has_default_)
      return "no links: list every ordered pair as 'FROM TO ALPHA BETA' or give a "
             "'default ALPHA BETA' line";
    if (has_default_) {
      for (int i = 0; i < p_ && !alpha_.empty(); ++i)
        for (int j = 0; j < p_; ++j) {
          const size_t k = static_cast<size_t>(i) * p_ + j;
          if (i != j && !seen_[k]) {
            alpha_[k] = default_alpha_;
            beta_[k] = default_beta_;
          }
        }
      return {};
    }
    std::vector<bool> mentioned(static_cast<size_t>(p_), false);
    std::vector<std::string> missing;
    for (int i = 0; i < p_; ++i)
      for (int j = 0; j < p_; ++j) {
        if (i == j) continue;
        if (!seen_.empty() && seen_[static_cast<size_t>(i) * p_ + j]) {
          mentioned[i] = mentioned[j] = true;
        } else if (missing.size() < 3) {
          missing.push_back(pair_name(i, j));
        }
      }
    for (int r = 0; r < p_; ++r)
      if (!mentioned[r])
        return "rank " + std::to_string(r) + " has no link lines (the model is for p=" +
               std::to_string(p_) + "; list every ordered pair or give a 'default ALPHA BETA' line)";
    std::string list;
    for (const std::string& m : missing) list += (list.empty() ? "" : ", ") + m;
    return "missing " + std::to_string(pairs - links_) + " of " + std::to_string(pairs) +
           " links, e.g. " + list + " (list every ordered pair or give a 'default ALPHA BETA' line)";
  }

  LinkModelResult fail(const std::string& e) const { return {nullptr, source_ + ": " + e}; }
  LinkModelResult fail_at(const std::string& e) const {
    const char* hint = last_line_ && !ended_ ? " (the file looks truncated: no closing 'end')" : "";
    return fail("line " + std::to_string(line_) + ": " + e + hint);
  }

  std::string_view text_;
  std::string source_;
  int line_ = 0;
  bool last_line_ = false;
  bool ended_ = false;
  int p_ = 0;
  bool has_default_ = false;
  double default_alpha_ = 0, default_beta_ = 0;
  long long links_ = 0;
  std::vector<double> alpha_, beta_;
  std::vector<bool> seen_;
};

}  // namespace

LinkModelResult parse_link_model(std::string_view text, const std::string& source,
                                 int expected_p) noexcept {
  try {
    return Parser(text, source).run(expected_p);
  } catch (const std::exception& e) {
    return {nullptr, source + ": cannot read the model: " + e.what()};
  }
}

LinkModelResult read_link_model_file(const std::string& path, int expected_p) noexcept {
  try {
    std::ifstream in(path, std::ios::binary);
    if (!in) return {nullptr, path + ": cannot open the model file"};
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) return {nullptr, path + ": read error"};
    return parse_link_model(text.str(), path, expected_p);
  } catch (const std::exception& e) {
    return {nullptr, path + ": cannot read the model: " + e.what()};
  }
}

void write_link_model(std::ostream& out, const LinkModel& m) {
  out << kModelHeader << ' ' << kModelVersion << '\n'
      << "# per-pair Hockney model: t(i, j, m) = alpha + beta * m; alpha in seconds, beta in\n"
      << "# seconds per byte (docs/model-format.md)\n"
      << "p " << m.p() << '\n';
  if (m.is_homogeneous()) {
    out << "default " << link_value_text(m.alpha(0, 0)) << ' ' << link_value_text(m.beta(0, 0))
        << '\n';
  } else {
    out << "# from to alpha beta\n";
    for (int i = 0; i < m.p(); ++i)
      for (int j = 0; j < m.p(); ++j)
        if (i != j)
          out << i << ' ' << j << ' ' << link_value_text(m.alpha(i, j)) << ' '
              << link_value_text(m.beta(i, j)) << '\n';
  }
  out << "end\n";
}

}  // namespace papcoll
