#include "cli_common.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "cli11.hpp"

namespace papcoll_cli {

std::string wrap(const std::string& text, size_t width) {
  std::string out, line, word;
  const auto flush_word = [&] {
    if (word.empty()) return;
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    word.clear();
  };
  for (const char c : text) {
    if (c == ' ') {
      flush_word();
    } else if (c == '\n') {
      flush_word();
      out += line + "\n";
      line.clear();
    } else {
      word += c;
    }
  }
  flush_word();
  return out + line;
}

void configure(CLI::App& app, const std::string& description, const std::string& footer) {
  app.description(wrap(description, 100));
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.get_formatter()->column_width(30);
  app.get_formatter()->label("REQUIRED", "(required)");
  // Unknown arguments are collected rather than thrown at once, so that parse() can name them
  // in papcoll's words.
  app.allow_extras();
  if (!footer.empty()) app.footer(wrap(footer, 100));
  app.set_help_flag("-h,--help", "this help");
}

CLI::Option* add_flag(CLI::App& app, const std::string& name, bool& target,
                      const std::string& description) {
  return app.add_flag(name, target, wrap(description, kDescriptionWidth));
}

CLI::Option* add_checked(CLI::App& app, const std::string& name,
                         std::function<std::string(const std::string&)> check,
                         const std::string& description, const std::string& value_name) {
  const std::string flag = name.substr(0, name.find(','));
  CLI::Option* o = app.add_option_function<std::string>(
      name,
      [check = std::move(check), flag](const std::string& v) {
        if (std::string problem = check(v); !problem.empty())
          throw CLI::ValidationError(flag, problem);
      },
      wrap(description, kDescriptionWidth));
  o->type_name(value_name);
  return o;
}

CLI::App* add_command(CLI::App& app, const std::string& name, const std::string& description) {
  return app.add_subcommand(name, wrap(description, kDescriptionWidth));
}

CLI::Option* add_kept(CLI::App& app, const std::string& name,
                      std::map<std::string, std::string>& values, const std::string& description,
                      const std::string& value_name) {
  const std::string flag = name.substr(0, name.find(','));
  return add_checked(
      app, name,
      [&values, flag](const std::string& v) {
        values[flag] = v;
        return std::string();
      },
      description, value_name);
}

Parsed parse(CLI::App& app, int argc, const char* const* argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    return Parsed{Parsed::help, app.help()};
  } catch (const CLI::CallForAllHelp&) {
    return Parsed{Parsed::help, app.help("", CLI::AppFormatMode::All)};
  } catch (const CLI::ArgumentMismatch& e) {
    // "--iters: 1 required TEXT missing" and the like: the flag came without its value.
    const std::string what = e.what();
    const auto colon = what.find(':');
    if (what.rfind("-", 0) == 0 && colon != std::string::npos &&
        what.find("missing") != std::string::npos)
      return Parsed{Parsed::error, "option " + what.substr(0, colon) + " needs a value"};
    return Parsed{Parsed::error, what};
  } catch (const CLI::ParseError& e) {
    return Parsed{Parsed::error, e.what()};
  }
  const std::vector<std::string> extra = app.remaining(true);
  if (!extra.empty()) {
    const std::string& x = extra.front();
    if (x.rfind("-", 0) == 0 && x.size() > 1)
      return Parsed{Parsed::error, "unknown option '" + x.substr(0, x.find('=')) + "'"};
    return Parsed{Parsed::error, "unexpected argument '" + x + "'"};
  }
  return Parsed{};
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t comma = s.find(',', start);
    out.push_back(s.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

bool parse_duration_s(const std::string& s, double plain_unit_s, double* out) {
  struct Unit {
    const char* suffix;
    double seconds;
  };
  // "s" last: it ends the others.
  static const Unit kUnits[] = {{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1.0}};
  std::string number = s;
  double scale = plain_unit_s;
  for (const Unit& u : kUnits) {
    if (ends_with(s, u.suffix)) {
      number = s.substr(0, s.size() - std::char_traits<char>::length(u.suffix));
      scale = u.seconds;
      break;
    }
  }
  // Decimal digits and a point only: no sign, no exponent, no "inf" or "nan".
  if (number.empty() || number.find_first_not_of("0123456789.") != std::string::npos ||
      number.find_first_of("0123456789") == std::string::npos)
    return false;
  char* end = nullptr;
  const double v = std::strtod(number.c_str(), &end);
  if (*end != '\0' || !std::isfinite(v)) return false;
  *out = v * scale;
  return true;
}

bool parse_integer(const std::string& s, long long lo, long long hi, long long* out) {
  const size_t digits = !s.empty() && s[0] == '-' ? 1 : 0;
  if (s.size() == digits || s.find_first_not_of("0123456789", digits) != std::string::npos)
    return false;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || v < lo || v > hi) return false;
  *out = v;
  return true;
}

bool parse_bytes(const std::string& s, long long max, long long* out) {
  struct Suffix {
    const char* text;
    long long bytes;
  };
  // Longest first: "KiB" before "B".
  static const Suffix kSuffixes[] = {{"KiB", 1LL << 10}, {"MiB", 1LL << 20},
                                     {"GiB", 1LL << 30}, {"K", 1LL << 10},
                                     {"k", 1LL << 10},   {"M", 1LL << 20},
                                     {"m", 1LL << 20},   {"G", 1LL << 30},
                                     {"g", 1LL << 30},   {"B", 1}};
  std::string digits = s;
  long long mult = 1;
  for (const Suffix& x : kSuffixes) {
    if (ends_with(s, x.text)) {
      digits = s.substr(0, s.size() - std::char_traits<char>::length(x.text));
      mult = x.bytes;
      break;
    }
  }
  long long n = 0;
  if (!parse_integer(digits, 0, max / mult, &n) || digits[0] == '-') return false;
  *out = n * mult;
  return true;
}

}  // namespace papcoll_cli
