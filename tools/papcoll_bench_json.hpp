// A small streaming JSON writer for papcoll-bench: objects, arrays, strings, numbers, booleans,
// null. Commas and escaping are handled here; non-finite numbers are written as null.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace papcoll_bench {

class JsonWriter {
 public:
  // indent > 0: pretty-print with that many spaces per level; 0: one line.
  explicit JsonWriter(std::ostream& os, int indent = 2) : os_(os), indent_(indent) {}

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  // Inside an object: the key of the next value.
  JsonWriter& key(std::string_view k);

  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(double d);
  JsonWriter& value(long long n);
  JsonWriter& value(long n) { return value(static_cast<long long>(n)); }
  JsonWriter& value(int n) { return value(static_cast<long long>(n)); }
  JsonWriter& value(std::uint64_t n);
  JsonWriter& value(bool b);
  JsonWriter& null();

  // key + value in one call.
  template <class T>
  JsonWriter& field(std::string_view k, const T& v) {
    key(k);
    return value(v);
  }

  static std::string escape(std::string_view s);

 private:
  void before_value();
  void newline();

  struct Level {
    bool is_object;
    bool empty = true;
  };
  std::ostream& os_;
  int indent_;
  std::vector<Level> stack_;
  bool after_key_ = false;
};

}  // namespace papcoll_bench
