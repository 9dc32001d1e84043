// CLI11 (Debian libcli11-dev, header-only) for the tools' command lines. Include this rather than
// <CLI/CLI.hpp>: under SimGrid SMPI, smpicxx force-includes smpi_helpers.h, whose one-argument
// macro exit(x) breaks CLI11's App::exit(error, out, err) declaration. The macro is set aside for
// CLI11's headers only and restored after them (the rest of a unity batch keeps SMPI's exit);
// papcoll's code never calls App::exit.
#pragma once

#pragma push_macro("exit")
#undef exit
#include <CLI/CLI.hpp>
#pragma pop_macro("exit")
