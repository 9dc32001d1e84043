#include "model/link_model_io.hpp"

#include <charconv>
#include <cstring>
#include <exception>
#include <fstream>
#include <istream>
#include <new>
#include <optional>
#include <string>
#include <vector>

namespace papcoll {
namespace {

// Bounds, all checked before the memory they guard is allocated (docs/model-format.md, "Limits").
// A homogeneous model (a 'default' line only) is two numbers for any p up to kMaxModelP; per-pair
// links need two p x p matrices, 256 MiB at kMaxPerPairP.
constexpr int kMaxModelP = 1 << 16;
constexpr int kMaxPerPairP = 1 << 12;
// One line, comment included: a link line is under 100 bytes; anything longer is not a model file
// (/dev/zero, a binary).
constexpr size_t kMaxLineBytes = 4096;
// The whole file: 1 MiB, plus 128 bytes per ordered pair once 'p N' allows per-pair links.
constexpr long long kBaseFileBytes = 1 << 20;
constexpr long long kBytesPerLink = 128;

long long file_byte_limit(int p) {
  if (p <= 0 || p > kMaxPerPairP) return kBaseFileBytes;
  return kBaseFileBytes + kBytesPerLink * static_cast<long long>(p) * (p - 1);
}

// Lines of a text or a stream, one at a time, never more than kMaxLineBytes of one in memory.
class LineReader {
 public:
  explicit LineReader(std::string_view text) : text_(text) {}
  explicit LineReader(std::istream& in) : in_(&in) {}

  enum class Status { line, end, too_long, read_error };
  // The next line without its '\n' (valid until the next call).
  Status next(std::string_view* line) {
    if (in_ == nullptr) {
      if (pos_ >= text_.size()) return Status::end;
      size_t nl = text_.find('\n', pos_);
      const bool terminated = nl != std::string_view::npos;
      if (!terminated) nl = text_.size();
      if (nl - pos_ > kMaxLineBytes) return Status::too_long;
      *line = text_.substr(pos_, nl - pos_);
      consumed_ += static_cast<long long>(nl - pos_) + (terminated ? 1 : 0);
      pos_ = nl + 1;
      return Status::line;
    }
    buf_.clear();
    for (;;) {
      if (chunk_pos_ == chunk_len_ && !refill()) {
        if (in_->bad()) return Status::read_error;
        if (buf_.empty() && !started_line_) return Status::end;
        break;
      }
      started_line_ = true;
      const char* begin = chunk_.data() + chunk_pos_;
      const char* nl = static_cast<const char*>(std::memchr(begin, '\n', chunk_len_ - chunk_pos_));
      const size_t n = nl != nullptr ? static_cast<size_t>(nl - begin) : chunk_len_ - chunk_pos_;
      if (buf_.size() + n > kMaxLineBytes) return Status::too_long;
      buf_.append(begin, n);
      chunk_pos_ += n + (nl != nullptr ? 1 : 0);
      consumed_ += static_cast<long long>(n) + (nl != nullptr ? 1 : 0);
      if (nl != nullptr) break;
    }
    started_line_ = false;
    *line = buf_;
    return Status::line;
  }
  // Nothing follows the line just returned.
  bool at_end() {
    if (in_ == nullptr) return pos_ >= text_.size();
    return chunk_pos_ == chunk_len_ && !refill();
  }
  long long consumed() const { return consumed_; }

 private:
  std::string_view text_;
  size_t pos_ = 0;
  bool refill() {
    in_->read(chunk_.data(), static_cast<std::streamsize>(chunk_.size()));
    chunk_len_ = static_cast<size_t>(in_->gcount());
    chunk_pos_ = 0;
    return chunk_len_ > 0;
  }

  std::istream* in_ = nullptr;
  std::vector<char> chunk_ = std::vector<char>(1 << 16);
  size_t chunk_pos_ = 0, chunk_len_ = 0;
  std::string buf_;
  bool started_line_ = false;
  long long consumed_ = 0;
};

std::vector<std::string_view> fields_of(std::string_view line) {
  if (const size_t hash = line.find('#'); hash != std::string_view::npos)
    line = line.substr(0, hash);
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
  explicit Parser(std::string source) : source_(std::move(source)) {}

  LinkModelResult run(LineReader& in, int expected_p) {
    expected_p_ = expected_p;
    std::string_view text;
    for (;;) {
      const LineReader::Status st = in.next(&text);
      if (st == LineReader::Status::end) break;
      ++line_;
      if (st == LineReader::Status::read_error) return fail("read error");
      if (st == LineReader::Status::too_long)
        return line_ == 1 ? fail("not a papcoll model file: the first line is longer than " +
                                 std::to_string(kMaxLineBytes) + " bytes")
                          : fail_at("longer than " + std::to_string(kMaxLineBytes) + " bytes");
      if (in.consumed() > file_byte_limit(p_))
        return fail("longer than " + std::to_string(file_byte_limit(p_)) + " bytes" +
                    (p_ > 0 && p_ <= kMaxPerPairP
                         ? " (1 MiB plus 128 bytes per link for p=" + std::to_string(p_) + ")"
                         : " (without per-pair links a model file is a few lines)") +
                    ", at line " + std::to_string(line_));
      last_line_ = in.at_end();
      const std::vector<std::string_view> f = fields_of(text);
      if (line_ == 1) {
        if (f.empty())
          return fail("empty file or empty first line (expected the header '" + header() + "')");
        if (std::string e = check_header(f); !e.empty()) return fail_at(e);
        continue;
      }
      if (f.empty()) continue;
      if (ended_) return fail_at("content after 'end'");
      if (std::string e = take(f); !e.empty())
        return size_error_.empty() ? fail_at(e) : fail(size_error_);
    }
    if (line_ == 0)
      return fail("empty file or empty first line (expected the header '" + header() + "')");
    if (!ended_)
      return fail("truncated: no closing 'end' line after line " + std::to_string(line_));
    if (p_ == 0) return fail("no 'p N' line");
    if (std::string e = check_complete(); !e.empty()) return fail(e);
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
      // Before anything is sized by p: a file for another communicator stops here.
      if (expected_p_ > 0 && *p != expected_p_) {
        size_error_ = "the model is for p=" + std::to_string(*p) + " ranks but there are " +
                      std::to_string(expected_p_);
        return size_error_;
      }
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
    if (p_ > kMaxPerPairP)
      return "per-pair links are supported up to p=" + std::to_string(kMaxPerPairP) +
             " (two p x p matrices: " + std::to_string(p_) + " ranks would need " +
             std::to_string(2 * 8 * (static_cast<long long>(p_) * p_ >> 20)) +
             " MiB); describe larger networks with a 'default ALPHA BETA' line only";
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

  std::string values(std::string_view a, std::string_view b, const std::string& what, double* alpha,
                     double* beta) const {
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
        return "rank " + std::to_string(r) +
               " has no link lines (the model is for p=" + std::to_string(p_) +
               "; list every ordered pair or give a 'default ALPHA BETA' line)";
    std::string list;
    for (const std::string& m : missing) list += (list.empty() ? "" : ", ") + m;
    return "missing " + std::to_string(pairs - links_) + " of " + std::to_string(pairs) +
           " links, e.g. " + list +
           " (list every ordered pair or give a 'default ALPHA BETA' line)";
  }

  LinkModelResult fail(const std::string& e) const { return {nullptr, source_ + ": " + e}; }
  LinkModelResult fail_at(const std::string& e) const {
    const char* hint = last_line_ && !ended_ ? " (the file looks truncated: no closing 'end')" : "";
    return fail("line " + std::to_string(line_) + ": " + e + hint);
  }

  std::string source_;
  int expected_p_ = 0;
  std::string size_error_;  // p differs from expected_p: reported without a line number
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
    LineReader in(text);
    return Parser(source).run(in, expected_p);
  } catch (const std::bad_alloc&) {
    return {nullptr, source + ": cannot read the model: out of memory"};
  } catch (const std::exception& e) {
    return {nullptr, source + ": cannot read the model: " + e.what()};
  }
}

LinkModelResult read_link_model_file(const std::string& path, int expected_p) noexcept {
  try {
    std::ifstream in(path, std::ios::binary);
    if (!in) return {nullptr, path + ": cannot open the model file"};
    LineReader lines(in);
    return Parser(path).run(lines, expected_p);
  } catch (const std::bad_alloc&) {
    return {nullptr, path + ": cannot read the model: out of memory"};
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
