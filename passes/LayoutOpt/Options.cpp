//===- Options.cpp - LayoutOpt settings from -mllvm and the environment ---===//
#include "Options.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/StringSaver.h"

#include <cstdlib>
#include <mutex>

using namespace llvm;

namespace {

cl::OptionCategory Category("LayoutOpt (Keel) options");

cl::opt<std::string>
    PlanOpt("layout-plan", cl::value_desc("path"), cl::cat(Category),
            cl::desc("Keel plan file (plan.yaml) to apply; without it the "
                     "layout-opt pass does nothing"));
cl::opt<uint64_t> FunctionAlignOpt(
    "layout-function-align", cl::value_desc("bytes"), cl::cat(Category),
    cl::desc("Alignment of hot functions that have no alignment of their own "
             "in the plan (default: the plan's function-align, 16)"));
cl::opt<uint64_t> HotTextAlignOpt(
    "layout-text-region-align", cl::value_desc("bytes"), cl::cat(Category),
    cl::desc("Alignment of the first hot function in plan order, i.e. the "
             "start of the hot text region (default: the plan's "
             "hot-text-align, 4096)"));
cl::opt<uint64_t> HotDataAlignOpt(
    "layout-data-region-align", cl::value_desc("bytes"), cl::cat(Category),
    cl::desc("Alignment of the first hot global of each kind in plan order, "
             "i.e. the start of each hot data region (default: the plan's "
             "hot-data-align, 4096)"));
cl::opt<bool> SummaryOpt("layout-summary", cl::cat(Category),
                         cl::desc("Print a one-line summary per module on "
                                  "stderr"));

// Largest alignment accepted: 1 GiB. Anything above is surely a typo, and
// LLVM's own limit (2^32) would make the linker pad absurdly.
constexpr uint64_t MaxAlign = uint64_t(1) << 30;

Error checkAlign(StringRef Source, StringRef Name, uint64_t V) {
  if (V == 0 || !isPowerOf2_64(V) || V > MaxAlign)
    return createStringError(
        inconvertibleErrorCode(),
        formatv("{0}: -{1}={2}: an alignment must be a power of two between 1 "
                "and {3}",
                Source, Name, V, MaxAlign)
            .str());
  return Error::success();
}

// The options that KEEL_LAYOUT_OPTS may set, by name.
enum class Key { Plan, FunctionAlign, TextAlign, DataAlign, Summary };

struct KeyInfo {
  const char *Name;
  Key K;
  cl::Option *Opt;
};

const KeyInfo Keys[] = {
    {"layout-plan", Key::Plan, &PlanOpt},
    {"layout-function-align", Key::FunctionAlign, &FunctionAlignOpt},
    {"layout-text-region-align", Key::TextAlign, &HotTextAlignOpt},
    {"layout-data-region-align", Key::DataAlign, &HotDataAlignOpt},
    {"layout-summary", Key::Summary, &SummaryOpt},
};

Error applyEnvToken(StringRef Token, StringSet<> &SeenOnCommandLine,
                    keel::layoutopt::Settings &S) {
  const char *Var = keel::layoutopt::EnvVarName;
  StringRef Arg = Token;
  if (!Arg.consume_front("--") && !Arg.consume_front("-"))
    return createStringError(
        inconvertibleErrorCode(),
        formatv("{0}: '{1}' is not an option (expected -layout-...)", Var,
                Token)
            .str());
  auto [Name, Value] = Arg.split('=');
  bool HasValue = Arg.contains('=');
  const KeyInfo *Info = nullptr;
  for (const KeyInfo &KI : Keys)
    if (Name == KI.Name)
      Info = &KI;
  if (!Info)
    return createStringError(
        inconvertibleErrorCode(),
        formatv("{0}: unknown option '-{1}' (known: -layout-plan, "
                "-layout-function-align, -layout-text-region-align, "
                "-layout-data-region-align, -layout-summary)",
                Var, Name)
            .str());
  if (SeenOnCommandLine.contains(Name))
    return Error::success(); // the command line wins
  switch (Info->K) {
  case Key::Plan:
    if (!HasValue || Value.empty())
      return createStringError(inconvertibleErrorCode(),
                               formatv("{0}: -layout-plan needs =path", Var)
                                   .str());
    S.PlanPath = Value.str();
    return Error::success();
  case Key::Summary:
    if (!HasValue || Value == "true" || Value == "1")
      S.Summary = true;
    else if (Value == "false" || Value == "0")
      S.Summary = false;
    else
      return createStringError(
          inconvertibleErrorCode(),
          formatv("{0}: -layout-summary={1}: expected true or false", Var,
                  Value)
              .str());
    return Error::success();
  case Key::FunctionAlign:
  case Key::TextAlign:
  case Key::DataAlign: {
    uint64_t N = 0;
    if (!HasValue || Value.getAsInteger(10, N))
      return createStringError(
          inconvertibleErrorCode(),
          formatv("{0}: -{1} needs =<bytes> (a decimal number)", Var, Name)
              .str());
    if (Error E = checkAlign(Var, Name, N))
      return E;
    (Info->K == Key::FunctionAlign ? S.FunctionAlign
     : Info->K == Key::TextAlign   ? S.HotTextAlign
                                   : S.HotDataAlign) = N;
    return Error::success();
  }
  }
  return Error::success();
}

} // namespace

namespace keel {
namespace layoutopt {

Expected<Settings> resolveSettings(std::optional<StringRef> EnvValue) {
  Settings S;
  StringSet<> SeenOnCommandLine;
  for (const KeyInfo &KI : Keys)
    if (KI.Opt->getNumOccurrences())
      SeenOnCommandLine.insert(KI.Name);

  // Command line first (it has the last word, see applyEnvToken).
  if (PlanOpt.getNumOccurrences())
    S.PlanPath = PlanOpt;
  if (SummaryOpt.getNumOccurrences())
    S.Summary = SummaryOpt;
  struct {
    cl::opt<uint64_t> &Opt;
    std::optional<uint64_t> &Out;
  } Aligns[] = {{FunctionAlignOpt, S.FunctionAlign},
                {HotTextAlignOpt, S.HotTextAlign},
                {HotDataAlignOpt, S.HotDataAlign}};
  for (auto &A : Aligns) {
    if (!A.Opt.getNumOccurrences())
      continue;
    if (Error E = checkAlign("command line", A.Opt.ArgStr, A.Opt))
      return std::move(E);
    A.Out = A.Opt;
  }

  if (!EnvValue)
    return S;
  BumpPtrAllocator Alloc;
  StringSaver Saver(Alloc);
  SmallVector<const char *, 8> Tokens;
  cl::TokenizeGNUCommandLine(*EnvValue, Saver, Tokens);
  for (const char *T : Tokens)
    if (Error E = applyEnvToken(T, SeenOnCommandLine, S))
      return std::move(E);
  return S;
}

Expected<Settings> processSettings() {
  static std::once_flag Once;
  static std::optional<Settings> Cached;
  static std::string CachedError;
  std::call_once(Once, [] {
    std::optional<StringRef> Env;
    if (const char *V = std::getenv(EnvVarName))
      Env = StringRef(V);
    Expected<Settings> S = resolveSettings(Env);
    if (S)
      Cached = std::move(*S);
    else
      CachedError = toString(S.takeError());
  });
  if (!Cached)
    return createStringError(inconvertibleErrorCode(), CachedError);
  return *Cached;
}

} // namespace layoutopt
} // namespace keel
