//===- Options.h - LayoutOpt settings from -mllvm and the environment -----===//
//
// The plugin's options exist twice: as llvm::cl options (clang -mllvm,
// opt, ld.lld -mllvm when the plugin is linked in) and as the environment
// variable KEEL_LAYOUT_OPTS. The variable is needed for ld.lld's LTO back
// ends: lld parses -mllvm before it loads --load-pass-plugin libraries, so
// at that point our cl options do not exist yet and lld rejects them.
//
// Precedence, per setting: a value given on the command line (-mllvm) wins
// over KEEL_LAYOUT_OPTS, which wins over the plan file's own value
// (function-align, hot-text-align, hot-data-align), which wins over the
// built-in default.
//
// Option names must not start with 'h': clang reads an unknown
// `-mllvm -h...` as a request for help and exits 0 without compiling.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_LAYOUTOPT_OPTIONS_H
#define KEEL_LAYOUTOPT_OPTIONS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>

namespace keel {
namespace layoutopt {

/// The name of the environment variable that carries the options.
constexpr const char *EnvVarName = "KEEL_LAYOUT_OPTS";

struct Settings {
  std::string PlanPath;                 ///< empty: the pass does nothing
  std::optional<uint64_t> FunctionAlign; ///< overrides the plan's function-align
  std::optional<uint64_t> HotTextAlign;  ///< overrides the plan's hot-text-align
  std::optional<uint64_t> HotDataAlign;  ///< overrides the plan's hot-data-align
  bool Summary = false;                 ///< one line per module on stderr
};

/// Merge the command-line options with \p EnvValue (the text of
/// KEEL_LAYOUT_OPTS, or none). Errors name the option and its source.
llvm::Expected<Settings> resolveSettings(std::optional<llvm::StringRef> EnvValue);

/// resolveSettings() for this process's environment, computed once and
/// shared by every thread (lld runs ThinLTO back ends in parallel).
llvm::Expected<Settings> processSettings();

} // namespace layoutopt
} // namespace keel

#endif
