// A small streaming JSON writer for the report (no MPI, no dependencies): objects, arrays,
// numbers (non-finite ones as null), strings with escapes. Indents objects, keeps arrays of
// numbers on one line.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace papcoll::observe {

class JsonOut {
 public:
  JsonOut& begin_object(bool pretty = true) { return open('{', pretty); }
  JsonOut& end_object() { return close('}'); }
  JsonOut& begin_array(bool compact = false) { return open('[', !compact); }
  JsonOut& end_array() { return close(']'); }
  JsonOut& key(const std::string& k) {
    comma();
    newline();
    string_literal(k);
    out_ += ": ";
    after_key_ = true;
    return *this;
  }
  JsonOut& value(const std::string& s) {
    item();
    string_literal(s);
    return *this;
  }
  JsonOut& value(const char* s) { return value(std::string(s)); }
  JsonOut& value(bool b) {
    item();
    out_ += b ? "true" : "false";
    return *this;
  }
  JsonOut& value(double x) {
    item();
    if (!std::isfinite(x)) {
      out_ += "null";
    } else {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.9g", x);
      out_ += buf;
    }
    return *this;
  }
  JsonOut& value(long long x) {
    item();
    out_ += std::to_string(x);
    return *this;
  }
  JsonOut& value(int x) { return value(static_cast<long long>(x)); }
  JsonOut& value(std::uint64_t x) {
    item();
    out_ += std::to_string(x);
    return *this;
  }
  template <typename T>
  JsonOut& field(const std::string& k, const T& v) {
    key(k);
    return value(v);
  }
  JsonOut& numbers(const std::string& k, const std::vector<double>& v) {
    key(k).begin_array(true);
    for (double x : v) value(x);
    return end_array();
  }
  const std::string& str() const { return out_; }

 private:
  struct Level {
    bool first = true;
    bool pretty = true;
  };
  JsonOut& open(char c, bool pretty) {
    item();
    out_ += c;
    levels_.push_back(Level{true, pretty && (levels_.empty() || levels_.back().pretty)});
    return *this;
  }
  JsonOut& close(char c) {
    const Level l = levels_.back();
    levels_.pop_back();
    if (l.pretty && !l.first) {
      out_ += '\n';
      out_.append(2 * levels_.size(), ' ');
    }
    out_ += c;
    return *this;
  }
  void comma() {
    if (levels_.empty()) return;
    if (!levels_.back().first) out_ += levels_.back().pretty ? "," : ", ";
    levels_.back().first = false;
  }
  void newline() {
    if (!levels_.empty() && levels_.back().pretty) {
      out_ += '\n';
      out_.append(2 * levels_.size(), ' ');
    }
  }
  // A value: after a key nothing more; in an array a separator first.
  void item() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    comma();
    newline();
  }
  void string_literal(const std::string& s) {
    out_ += '"';
    for (unsigned char ch : s) {
      switch (ch) {
        case '"': out_ += "\\\""; break;
        case '\\': out_ += "\\\\"; break;
        case '\n': out_ += "\\n"; break;
        case '\t': out_ += "\\t"; break;
        case '\r': out_ += "\\r"; break;
        default:
          if (ch < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", ch);
            out_ += buf;
          } else {
            out_ += static_cast<char>(ch);
          }
      }
    }
    out_ += '"';
  }

  std::string out_;
  std::vector<Level> levels_;
  bool after_key_ = false;
};

}  // namespace papcoll::observe
