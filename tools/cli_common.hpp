// What papcoll's command-line tools (papcoll-bench, papcoll-sched, papcoll-model) share: CLI11
// set up in one style (help layout, repeated options, the errors' wording), and the values with
// units: durations (20ms, 200us, 0.5s) and byte counts (4MiB, 64K). Docs: docs/papcoll-bench.md,
// docs/papcoll-sched.md, docs/papcoll-model.md ("Values with units").
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace papcoll_cli {

// One --help style: the description and footer wrapped to 100 columns, option names in a
// 30-column margin, their descriptions wrapped beside them; a repeated option keeps its last value
// (scripts append their caller's options). Call it before adding options and subcommands, which
// inherit it.
void configure(CLI::App& app, const std::string& description, const std::string& footer);

// `text` wrapped at spaces to lines of at most `width` characters; its own line breaks are kept.
std::string wrap(const std::string& text, size_t width);
// The width of an option's description in --help (100 columns less the margin).
inline constexpr size_t kDescriptionWidth = 70;

// A flag without a value (bool), described in the common style.
CLI::Option* add_flag(CLI::App& app, const std::string& name, bool& target,
                      const std::string& description);

// An option whose value `check` reads: it returns "" when the value is good (having stored it),
// else the problem, which becomes the error "--flag: problem" (exit 2). The value is taken as
// given, so "--seed -1" reaches `check` as "-1" rather than being mistaken for an option.
CLI::Option* add_checked(CLI::App& app, const std::string& name,
                         std::function<std::string(const std::string&)> check,
                         const std::string& description, const std::string& value_name);

// A subcommand, its description wrapped for both the parent's list and its own --help.
CLI::App* add_command(CLI::App& app, const std::string& name, const std::string& description);

// An option whose value is kept as given, in values[flag] (present only when given), for tools that
// check values where they use them.
CLI::Option* add_kept(CLI::App& app, const std::string& name,
                      std::map<std::string, std::string>& values, const std::string& description,
                      const std::string& value_name);

struct Parsed {
  enum Kind { run, help, error } kind = run;
  std::string text;  // help: the help of the (sub)command asked; error: the message
};

// Parses argv with `app`. Unknown options and stray arguments are errors that name them
// ("unknown option '--bogus'", "unexpected argument 'x'"), a flag at the end without its value
// "option --iters needs a value", a value `check` refuses "--flag: problem".
Parsed parse(CLI::App& app, int argc, const char* const* argv);

// "a,b,c" -> {"a","b","c"} (no trimming; empty items are kept so the caller can reject them).
std::vector<std::string> split_commas(const std::string& s);

// A duration: a number (decimal, >= 0, finite) with an optional unit "ns", "us", "ms", "s"; a
// plain number is in `plain_unit_s` seconds. Returns false on anything else. Seconds in *out.
bool parse_duration_s(const std::string& s, double plain_unit_s, double* out);

// A byte count: a non-negative integer with an optional suffix: B; K, KiB; M, MiB; G, GiB
// (powers of 1024; K, M, G in either case); KB, MB, GB are refused as ambiguous (1000 or 1024).
// At most `max`. Returns false on anything else.
bool parse_bytes(const std::string& s, long long max, long long* out);

// A plain integer in [lo, hi] (digits only, an optional leading '-'); false otherwise.
bool parse_integer(const std::string& s, long long lo, long long hi, long long* out);

}  // namespace papcoll_cli
