//===- layout-order.cpp - plan a layout from a binary and its profiles ----===//
//
//   layout-order --binary BIN --profile P.fdata [--profile P2] -o PLAN_DIR
//
// Phases: open the binary -> read each profile once -> planLayout
// (keel/Planner/PlanLayout.h): merge them, resolve them to addresses
// (stale symbols counted) -> call graph -> hot data ranking ->
// block layout (--blocks) -> plan (hot set by --hot-coverage, or by density
// under --hot-budget) -> spacers (--spacers, sized by --section-sizes where
// it names a function) -> write order.txt, layout.ld, layout.gnu.ld,
// plan.yaml, callgraph.txt, with --blocks bbsections.txt and sizes.txt,
// with --spacers spacer-sizes.txt, and the flags that apply the plan,
// compile.rsp and link.rsp (keel/Planner/BuildFlags.h) (each atomically;
// nothing is written if any step fails). --preset (default: recommended)
// gives every option it names a value; an option given explicitly keeps
// the user's.
//
//===----------------------------------------------------------------------===//
#include "keel/Blocks/BlockLayout.h"
#include "keel/Plan/Plan.h"
#include "keel/Planner/BuildFlags.h"
#include "keel/Planner/Emit.h"
#include "keel/Planner/PlanLayout.h"
#include "keel/Planner/Planner.h"
#include "keel/Planner/Spacers.h"
#include "keel/Profile/Binary.h"
#include "keel/Profile/Formats.h"
#include "keel/Profile/Load.h"
#include "keel/Support/Diagnostics.h"
#include "keel/Support/Input.h"
#include "keel/Support/OutputFile.h"
#include "keel/Support/Text.h"
#include "keel/Support/Tool.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;
using namespace keel;

static const char *Tool = "layout-order";

static cl::OptionCategory Cat("layout-order options");

namespace {
/// A named set of option values (--preset). recommended is the build Keel
/// measures and recommends (README.md, docs/results.md; the same flags are
/// spelt out in bench/recommended.json), functions the function-level plan
/// that was layout-order's default before it.
struct Preset {
  const char *Name;
  bool Blocks;
  const char *BlockOrder;
  double BlockCoverage;
  uint64_t HotBudget, Spacers;
  double PackEndShare, DominantLast;
  uint64_t AlignLoops, DataPad;
};
} // namespace

/// The first is the default. The cl::init values of the options below that a
/// preset names are never used: applyPreset gives each one the preset's
/// value unless the command line gave it.
static const Preset Presets[] = {
    {"recommended", true, "exttsp", 1, 32768, 4096, 0, 10, 1, 2048},
    {"functions", false, "exttsp", 0.99, 0, 0, 10, 0, 0, 0},
};

static const Preset *findPreset(StringRef Name) {
  for (const Preset &P : Presets)
    if (Name == P.Name)
      return &P;
  return nullptr;
}

/// --preset's help: what each preset sets, from the table itself.
static std::string describePresets() {
  std::string S = "a named set of the options below (an option given "
                  "explicitly overrides its value):";
  for (const Preset &P : Presets)
    S += formatv(" {0}{1}: --blocks={2} --block-order={3} "
                 "--block-coverage={4} --hot-budget={5} --spacers={6} "
                 "--pack-end-share={7} --dominant-last={8} "
                 "--align-loops={9} --data-pad={10};",
                 P.Name, &P == Presets ? " (default)" : "",
                 P.Blocks ? "true" : "false", P.BlockOrder,
                 format("%g", P.BlockCoverage), P.HotBudget, P.Spacers,
                 format("%g", P.PackEndShare), format("%g", P.DominantLast),
                 P.AlignLoops, P.DataPad)
             .str();
  return S + " recommended plans function-level (with a note) when the "
             "binary has no block map";
}
static const std::string PresetHelp = describePresets();

static cl::opt<std::string>
    PresetName("preset", cl::cat(Cat), cl::init("recommended"),
               cl::value_desc("recommended|functions"),
               cl::desc(PresetHelp.c_str()));
static cl::opt<std::string> BinaryPath("binary", cl::Required, cl::cat(Cat),
                                       cl::desc("the profiled binary"),
                                       cl::value_desc("file"));
static cl::list<std::string> Profiles("profile", cl::OneOrMore, cl::cat(Cat),
                                      cl::desc("a profile of the binary: BOLT fdata, "
                                               "pre-aggregated, perf script or callgrind output "
                                               "(repeatable; merged)"),
                                      cl::value_desc("file"));
static cl::opt<std::string> BinaryPathInProfile(
    "binary-path-in-profile", cl::cat(Cat), cl::value_desc("path"),
    cl::desc("perf.data and perf script: the binary's path as the recording "
             "names it, for recordings without build ids of a binary since "
             "copied or renamed"));
static cl::opt<std::string> OutDir("o", cl::cat(Cat), cl::value_desc("dir"),
                                   cl::desc("plan directory to write"));
static cl::opt<std::string>
    OrderName("order", cl::cat(Cat), cl::init("c3"),
              cl::desc("hot function order: c3 | ph | cdsort | exttsp | none"));
static cl::opt<double>
    HotCoverage("hot-coverage", cl::cat(Cat), cl::init(0.99),
                cl::desc("share of executed instructions in hot functions"));
static cl::opt<uint64_t> HotBudget(
    "hot-budget", cl::cat(Cat), cl::init(0), cl::value_desc("bytes"),
    cl::desc("size the hot set by density under a cache budget: the "
             "densest executed functions (weight per byte of their hot "
             "part) that fit in this many bytes, within --hot-coverage, are "
             "hot and come first in the text, the warm ones after them; "
             "--spacers packs only the hot ones. 0: hot by --hot-coverage "
             "alone, hot and warm interleaved (set by --preset)"));
static cl::opt<double> DominantLast(
    "dominant-last", cl::cat(Cat), cl::init(0), cl::value_desc("PCT"),
    cl::desc("with --hot-budget: hot functions holding at least PCT% of the "
             "profile's weight go to the end of the hot tier, the heaviest "
             "last, so growth in or after them moves only warm code; 0 = off "
             "(set by --preset)"));
static cl::opt<double>
    DataCoverage("data-coverage", cl::cat(Cat), cl::init(0.99),
                 cl::desc("share of executed data references in hot data"));
static cl::opt<uint64_t> HotTextAlign("hot-text-align", cl::cat(Cat),
                                      cl::init(4096),
                                      cl::desc("boundary the hot text starts on"));
static cl::opt<uint64_t> HotDataAlign("hot-data-align", cl::cat(Cat),
                                      cl::init(4096),
                                      cl::desc("boundary the hot data starts on"));
static cl::opt<uint64_t>
    FunctionAlign("function-align", cl::cat(Cat), cl::init(16),
                  cl::desc("alignment of hot functions (for the pass plugin)"));
static cl::opt<std::string> CodePad(
    "code-pad", cl::cat(Cat), cl::init("0"), cl::value_desc("N|@file"),
    cl::desc("default __keel_code_pad baked into the linker scripts (bytes "
             "after the hot-text boundary; --defsym still overrides it): a "
             "number, or @FILE, the JSON layout-sweep --best-pad-out writes"));
static cl::opt<uint64_t> Spacers(
    "spacers", cl::cat(Cat), cl::init(0), cl::value_desc("W"),
    cl::desc("pack the hot text into W-byte packs (from the region's start) "
             "and align a function that would cross a pack boundary to the "
             "next one, so code growing inside the region moves later code "
             "by 0 or W bytes; W a power of two >= 64, 0 = off (set by "
             "--preset)"));
static cl::opt<std::string> SectionSizes(
    "section-sizes", cl::cat(Cat), cl::value_desc("file"),
    cl::desc("'<symbol> <bytes>' lines: the sizes --spacers packs with, "
             "instead of the estimates (with --blocks, the hot parts' "
             "estimated sizes; without, the binary's symbol sizes); a "
             "function not in the file keeps its estimate. Only the spacers "
             "change, never the order. E.g. the symbol sizes of a build "
             "linked with this plan (llvm-nm --print-size), or "
             "layout-blocks' sizes.txt"));
static cl::opt<bool> Blocks(
    "blocks", cl::cat(Cat),
    cl::desc("also lay out the hot functions' basic blocks (as layout-blocks "
             "does, in the planned function order; the binary needs "
             "-fbasic-block-address-map): writes bbsections.txt for clang "
             "-fbasic-block-sections=list=, sizes.txt, and an order.txt "
             "with the hot parts and then the cold ones; --spacers packs by "
             "the hot parts' sizes (set by --preset; --blocks=false plans "
             "function-level)"));
static cl::opt<std::string> BlockOrderName(
    "block-order", cl::cat(Cat), cl::init("exttsp"),
    cl::value_desc("exttsp|keep|guarded|cheapest"),
    cl::desc("with --blocks: how a laid-out function's executed blocks are "
             "ordered: exttsp (LLVM's Ext-TSP), keep (the compiler's order; "
             "only never-executed blocks leave, so no fall-through between "
             "executed blocks becomes a taken branch), guarded (keep unless "
             "Ext-TSP raises the function's score by --block-reorder-gain), "
             "cheapest (per function, Ext-TSP or keep, whichever executes "
             "fewer jumps and taken branches by the profile) (set by --preset)"));
static cl::opt<bool> RefineJumps(
    "refine-jumps", cl::cat(Cat), cl::init(false),
    cl::desc("with --blocks and an Ext-TSP order: then move single executed "
             "blocks next to a predecessor or successor where that executes "
             "fewer jumps and taken branches by the profile (Ext-TSP's score "
             "does not count a jump as an instruction; default off: "
             "measured on the corpus, fewer jumps everywhere, no lower cost "
             "in geomean, docs/block-layout.md)"));
static cl::opt<double> BlockReorderGain(
    "block-reorder-gain", cl::cat(Cat), cl::init(0.1), cl::value_desc("F"),
    cl::desc("with --block-order=guarded: the relative Ext-TSP score gain "
             "(0.1 = 10%) needed to reorder a function's blocks"));
static cl::opt<double> BlockRare(
    "block-rare", cl::cat(Cat), cl::init(0), cl::value_desc("F"),
    cl::desc("with --block-order=keep|guarded: an executed block entered "
             "fewer than F times the function's hottest block moves behind "
             "the function's other executed blocks (still hot), in the "
             "compiler's order; 0 = off"));
static cl::opt<double> WarmShare(
    "warm-share", cl::cat(Cat), cl::init(0), cl::value_desc("F"),
    cl::desc("with --blocks: the warm split: an executed block entered "
             "fewer than F times its function's hottest block leaves the hot "
             "part for the function's warm part (name.__part.1), which "
             "order.txt puts after every hot part and before the cold parts "
             "(in the linker scripts: after the warm functions); compile.rsp "
             "adds -funique-basic-block-section-names; 0 = off"));
static cl::opt<bool> WarmPartsAfterHotTier(
    "warm-parts-after-hot-tier", cl::cat(Cat),
    cl::desc("with --warm-share and --hot-budget: the linker scripts place "
             "the warm parts right after the hot tier, before the warm "
             "functions (default: after every planned function)"));
static cl::opt<double> BlockCoverage(
    "block-coverage", cl::cat(Cat), cl::init(0.99), cl::value_desc("F"),
    cl::desc("with --blocks: lay out (and split) the heaviest functions "
             "covering this share of executed instructions; 1 = every "
             "executed function with a block map (set by --preset)"));
static cl::opt<double> PackEndShare(
    "pack-end-share", cl::cat(Cat), cl::init(10), cl::value_desc("PCT"),
    cl::desc("with --spacers: a function holding at least PCT% of the "
             "profile's weight ends its pack (the next function starts on "
             "the next boundary), so growth in or right after it moves no "
             "other code by less than W; 0 = off (set by --preset)"));
static cl::opt<uint64_t> SpacerMaxPad(
    "spacer-max-pad", cl::cat(Cat), cl::init(0), cl::value_desc("BYTES"),
    cl::desc("with --spacers: leave out a spacer that would add more than "
             "BYTES of padding (the function then straddles the boundary and "
             "the two packs act as one); pack ends are not capped; 0 = no "
             "cap"));
static cl::opt<uint64_t> PackAlign(
    "pack-align", cl::cat(Cat), cl::init(16),
    cl::desc("alignment --spacers assumes for every function (16: clang's "
             "x86-64 default; the plan's --function-align when the pass "
             "plugin aligns the hot functions)"));
static cl::opt<uint64_t> ColdPatternLimit(
    "cold-pattern-limit", cl::cat(Cat), cl::init(10000),
    cl::desc("most cold functions named in the linker scripts (a long "
             "pattern list slows links down)"));
static cl::opt<uint64_t> AlignLoops(
    "align-loops", cl::cat(Cat), cl::init(0), cl::value_desc("N"),
    cl::desc("with --blocks: compile.rsp rebuilds with -falign-loops=N (1: "
             "no loop alignment, whose padding the new block order would "
             "put on hot fall-through paths); 0 = the compiler's own (set by "
             "--preset)"));
static cl::opt<uint64_t> DataPad(
    "data-pad", cl::cat(Cat), cl::init(0), cl::value_desc("BYTES"),
    cl::desc("link.rsp links with --defsym=__keel_data_pad=BYTES: the hot "
             "data starts BYTES into its page, away from the page-start "
             "objects (4K aliasing); 0 = no --defsym (set by --preset)"));
static cl::opt<bool> PrintPlan("print-plan", cl::cat(Cat),
                               cl::desc("print a summary of the plan"));
static cl::opt<bool> JSON("json", cl::cat(Cat),
                          cl::desc("print the summary as JSON on stdout"));

static bool isPowerOf2(uint64_t V) { return V && !(V & (V - 1)); }

/// --code-pad=N, or --code-pad=@FILE naming the JSON object layout-sweep
/// --best-pad-out writes ({"axis": "code", "pad": N, ...}).
static Expected<uint64_t> parseCodePad(StringRef Arg) {
  uint64_t V = 0;
  if (!Arg.starts_with("@")) {
    if (Arg.getAsInteger(10, V))
      return inputError("--code-pad", 0, "'{0}' is not a byte count or @file",
                        Arg);
    return V;
  }
  StringRef Path = Arg.drop_front();
  auto Text = readTextFile(Path);
  if (!Text)
    return Text.takeError();
  auto J = json::parse(*Text);
  if (!J)
    return inputError(Path, 0, "not JSON: {0}", toString(J.takeError()));
  const json::Object *O = J->getAsObject();
  std::optional<int64_t> Pad = O ? O->getInteger("pad") : std::nullopt;
  std::optional<StringRef> Axis = O ? O->getString("axis") : std::nullopt;
  if (!Pad || *Pad < 0)
    return inputError(Path, 0, "has no non-negative integer \"pad\"");
  if (Axis && *Axis != "code")
    return inputError(Path, 0, "is a best pad for the {0} axis, not code",
                      *Axis);
  return uint64_t(*Pad);
}

/// --spacers, --section-sizes and --pack-align, checked before any work.
static Expected<SpacerOptions> spacerOptions() {
  SpacerOptions O;
  if (Spacers && (Spacers < 64 || !isPowerOf2(Spacers)))
    return inputError("--spacers", 0, "{0} is not 0 or a power of two >= 64",
                      uint64_t(Spacers));
  if (!isPowerOf2(PackAlign))
    return inputError("--pack-align", 0, "{0} is not a power of two",
                      uint64_t(PackAlign));
  if (!SectionSizes.empty() && !Spacers)
    return inputError("--section-sizes", 0, "is only used with --spacers=W");
  if (!(PackEndShare >= 0 && PackEndShare <= 100))
    return inputError("--pack-end-share", 0, "{0} is not a percentage (0-100)",
                      double(PackEndShare));
  O.Window = Spacers;
  O.PackEndShare = PackEndShare;
  O.MaxPad = SpacerMaxPad;
  O.FunctionAlign = PackAlign;
  if (SectionSizes.empty())
    return O;
  auto Text = readTextFile(SectionSizes);
  if (!Text)
    return Text.takeError();
  auto Sizes = parseSectionSizes(*Text, SectionSizes);
  if (!Sizes)
    return Sizes.takeError();
  O.GivenSizes = std::move(*Sizes);
  return O;
}

/// --block-order, --block-reorder-gain and --block-coverage.
static Expected<BlockLayoutOptions> blockOptions() {
  BlockLayoutOptions O;
  auto Order = parseBlockOrder(BlockOrderName);
  if (!Order)
    return inputError("--block-order", 0,
                      "unknown block order '{0}' (exttsp, keep, guarded, "
                      "cheapest)",
                      BlockOrderName);
  if (!(BlockReorderGain >= 0))
    return inputError("--block-reorder-gain", 0, "{0} is negative",
                      double(BlockReorderGain));
  if (!(BlockCoverage > 0 && BlockCoverage <= 1))
    return inputError("--block-coverage", 0, "{0} is not in (0, 1]",
                      double(BlockCoverage));
  O.Order = *Order;
  O.ReorderGain = BlockReorderGain;
  O.HotCoverage = BlockCoverage;
  O.RefineJumps = RefineJumps;
  if (!(BlockRare >= 0 && BlockRare < 1))
    return inputError("--block-rare", 0, "{0} is not in [0, 1)",
                      double(BlockRare));
  O.RareShare = BlockRare;
  if (!(WarmShare >= 0 && WarmShare < 1))
    return inputError("--warm-share", 0, "{0} is not in [0, 1)",
                      double(WarmShare));
  O.WarmShare = WarmShare;
  return O;
}

static Expected<PlannerOptions> plannerOptions(const Binary &Bin) {
  PlannerOptions O;
  auto A = parseOrderAlgorithm(OrderName);
  if (!A)
    return inputError("--order", 0, "unknown order '{0}' (c3, ph, cdsort, "
                      "exttsp, none)", OrderName);
  O.Order = *A;
  for (auto [Name, V] : {std::pair<const char *, double>{"--hot-coverage",
                                                         HotCoverage},
                         {"--data-coverage", DataCoverage}})
    if (!(V > 0 && V <= 1))
      return inputError(Name, 0, "{0} is not in (0, 1]", V);
  for (auto [Name, V] : {std::pair<const char *, uint64_t>{"--hot-text-align",
                                                           HotTextAlign},
                         {"--hot-data-align", HotDataAlign},
                         {"--function-align", FunctionAlign}})
    if (!isPowerOf2(V))
      return inputError(Name, 0, "{0} is not a power of two", V);
  // clang refuses -falign-loops=N unless N is a power of two; past the
  // window less 64 the data pad would move code again (Emit.h).
  if (AlignLoops && !isPowerOf2(AlignLoops))
    return inputError("--align-loops", 0, "{0} is not 0 or a power of two",
                      uint64_t(AlignLoops));
  if (DataPad > DataPadWindow - 64)
    return inputError("--data-pad", 0,
                      "{0} is more than {1} (the hot read-only data's window "
                      "less 64 bytes)",
                      uint64_t(DataPad), DataPadWindow - 64);
  O.HotCoverage = HotCoverage;
  O.HotBudget = HotBudget;
  if (!(DominantLast >= 0 && DominantLast <= 100))
    return inputError("--dominant-last", 0, "{0} is not a percentage (0-100)",
                      double(DominantLast));
  if (DominantLast > 0 && !HotBudget)
    return inputError("--dominant-last", 0, "is only used with --hot-budget");
  O.DominantLastShare = DominantLast;
  if (WarmPartsAfterHotTier && !(WarmShare > 0 && HotBudget))
    return inputError("--warm-parts-after-hot-tier", 0,
                      "is only used with --warm-share and --hot-budget");
  O.WarmPartsAfterHotTier = WarmPartsAfterHotTier;
  O.DataCoverage = DataCoverage;
  O.ColdPatternLimit = ColdPatternLimit;
  O.HotTextAlign = HotTextAlign;
  O.HotDataAlign = HotDataAlign;
  O.FunctionAlign = FunctionAlign;
  auto Pad = parseCodePad(CodePad);
  if (!Pad)
    return Pad.takeError();
  O.CodePad = *Pad;
  O.BinaryName = sys::path::filename(BinaryPath).str();
  O.BuildID = Bin.buildID().str();
  return O;
}

/// Set every option --preset names that the command line did not give.
template <typename T, typename V> static void presetValue(cl::opt<T> &O, V P) {
  if (!O.getNumOccurrences())
    O = T(P);
}

/// --preset, applied before any option is checked; then --blocks against
/// the binary: a preset's blocks need a block map (without one the plan is
/// function-level, and a note says so), an explicit --blocks refuses.
static Error applyPreset(const Binary &Bin) {
  const Preset *P = findPreset(PresetName);
  if (!P)
    return inputError("--preset", 0,
                      "unknown preset '{0}' (recommended, functions)",
                      PresetName);
  presetValue(BlockOrderName, P->BlockOrder);
  presetValue(BlockCoverage, P->BlockCoverage);
  presetValue(HotBudget, P->HotBudget);
  presetValue(Spacers, P->Spacers);
  presetValue(PackEndShare, P->PackEndShare);
  // The preset's --dominant-last goes with its --hot-budget: an explicit
  // --hot-budget=0 turns both off.
  presetValue(DominantLast, HotBudget ? P->DominantLast : 0);
  presetValue(AlignLoops, P->AlignLoops);
  presetValue(DataPad, P->DataPad);
  if (Blocks.getNumOccurrences()) {
    if (Blocks && !hasBlockMap(Bin))
      return inputError(BinaryPath, 0,
                        "no .llvm_bb_addr_map section: build with "
                        "-fbasic-block-address-map (--blocks lays out its "
                        "blocks), or plan without --blocks");
    return Error::success();
  }
  Blocks = P->Blocks && hasBlockMap(Bin);
  if (P->Blocks && !Blocks)
    WithColor::note(errs(), Tool)
        << BinaryPath << " has no .llvm_bb_addr_map (not built with "
        << "-fbasic-block-address-map): planning function-level, the "
        << "--preset=" << P->Name << " plan without --blocks; build with "
        << "-fbasic-block-address-map for the block layout\n";
  return Error::success();
}

/// --binary: its symbols are what the plan is made of.
static Expected<std::unique_ptr<Binary>> openBinary() {
  auto Bin = Binary::open(BinaryPath);
  if (!Bin)
    return Bin.takeError();
  if ((*Bin)->functions().empty())
    return inputError(BinaryPath, 0, "has no function symbols (stripped?): "
                      "nothing to plan; plan the unstripped binary");
  return Bin;
}

/// Every option, checked before any profile is read.
static Expected<LayoutOptions> layoutOptions(const Binary &Bin) {
  auto Planner = plannerOptions(Bin);
  if (!Planner)
    return Planner.takeError();
  auto Spacer = spacerOptions();
  if (!Spacer)
    return Spacer.takeError();
  auto Block = blockOptions();
  if (!Block)
    return Block.takeError();
  LayoutOptions O;
  O.Planner = std::move(*Planner);
  O.Spacers = std::move(*Spacer);
  if (Blocks)
    O.Blocks = *Block;
  return O;
}

/// Every profile, read once in any format Keel reads (fdata,
/// pre-aggregated, perf script, callgrind; detected from the text).
static Expected<std::vector<LoadedProfile>> loadProfiles(const Binary &Bin) {
  std::vector<LoadedProfile> Loaded;
  for (const std::string &Path : Profiles) {
    // Readers count their problems in their own units (instructions,
    // entries), so they are reported apart from the record counts.
    QualityReport ReaderQuality;
    PerfScriptOptions PO;
    PO.BinaryPathInProfile = BinaryPathInProfile;
    auto LP = loadProfile(Path, ProfileFormat::Auto, &Bin, ReaderQuality, PO);
    if (!LP)
      return LP.takeError();
    for (const auto &KV : ReaderQuality.counts())
      WithColor::note(errs(), Tool)
          << Path << ": " << ReaderQuality.describe(KV.first) << '\n';
    Loaded.push_back(std::move(*LP));
  }
  return Loaded;
}

/// What planning found, also when it failed: how much of the profile names
/// functions this binary has (stale or partial profiles), the problems
/// counted in the profile records, and the block layout (--blocks).
static void reportPlanning(const PlanReport &R, const Binary &Bin,
                           const LayoutOptions &Opts) {
  if (R.MatchedFunctions < R.ProfiledFunctions) {
    size_t Missing = R.ProfiledFunctions - R.MatchedFunctions;
    WithColor::warning(errs(), Tool)
        << Missing << " of " << R.ProfiledFunctions
        << " profiled functions ("
        << formatv("{0:F2}", 100.0 * Missing / R.ProfiledFunctions)
        << "%) are missing from " << Bin.path()
        << " (stale or partial profile)\n";
  }
  if (R.Analysed)
    R.Quality.print(errs(), Tool, R.Records, "profile records");
  if (!R.BlocksLaidOut || JSON || PrintPlan)
    return;
  outs() << formatv("{0}: blocks: {1:P2} of the profile mapped onto "
                    "blocks; laid out {2} hot functions, {3} split\n",
                    Tool, R.BlockStats.coverage(), R.BlockFunctions,
                    R.SplitFunctions);
  if (Opts.Blocks->Order != BlockOrder::ExtTsp)
    outs() << formatv("{0}: blocks: {1} of {2} functions keep the "
                      "compiler's block order ({3})\n",
                      Tool, R.KeptFunctions, R.BlockFunctions,
                      blockOrderName(Opts.Blocks->Order));
}

/// The hot tier and the spacers, then the plan as JSON (--json) or as a
/// summary (--print-plan).
static void printPlan(const LayoutPlan &LP, const PlanReport &R,
                      const LayoutOptions &Opts) {
  if (LP.HotFirst && !JSON && !PrintPlan)
    outs() << formatv("{0}: hot: {1} functions, {2} bytes (budget {3}), "
                      "{4:P2} of the profile; {5} warm after them\n",
                      Tool, LP.HotOrder.size(), LP.HotBytes, LP.HotBudget,
                      double(LP.weightOf(Temperature::Hot)) /
                          double(LP.Graph.totalWeight()),
                      LP.WarmOrder.size());
  if (Opts.Spacers.Window) {
    size_t Sizes = Opts.Spacers.GivenSizes.size();
    size_t Used = LP.packedFrom(PackSizeSource::Given);
    if (!SectionSizes.empty() && Used < Sizes)
      WithColor::note(errs(), Tool)
          << SectionSizes << ": " << (Sizes - Used) << " of "
          << Sizes << " sizes name no function of the hot text (ignored)\n";
    if (!JSON && !PrintPlan)
      outs() << formatv("{0}: spacers: {1} every {2} bytes ({3} ending a "
                        "pack), {4} bytes of padding, hot text {5} bytes "
                        "(estimated), sizes: {6}\n",
                        Tool, LP.SpacerCount, LP.File.Spacers,
                        LP.PackEndCount, LP.SpacerPadBytes,
                        LP.PackedTextBytes, packedSizeSources(LP));
  }
  if (JSON) {
    printPlanJSON(LP, outs());
  } else if (PrintPlan) {
    std::string Text; // symbol names: never raw control or bidi characters
    raw_string_ostream TS(Text);
    printPlanSummary(LP, TS);
    outs() << printableText(Text);
    for (const auto &[What, N] : R.DataQuality.counts())
      outs() << "  " << N << " of " << R.DataReferences
             << " referenced addresses: " << What << '\n';
  }
}

/// compile.rsp and link.rsp: the flags that apply the plan, naming its
/// files by absolute path (keel/Planner/BuildFlags.h).
template <typename OutFn>
static Error writeBuildFlags(bool HasBlocks, OutFn &Out) {
  SmallString<256> Dir(OutDir);
  if (std::error_code EC = sys::fs::make_absolute(Dir))
    return inputError(OutDir, 0, "cannot make the path absolute: {0}",
                      EC.message());
  sys::path::remove_dots(Dir, /*remove_dot_dot=*/false);
  BuildFlagOptions O;
  O.PlanDir = std::string(Dir);
  O.Blocks = HasBlocks;
  O.WarmParts = HasBlocks && WarmShare > 0;
  O.AlignLoops = AlignLoops;
  O.DataPad = DataPad;
  BuildFlags F = planBuildFlags(O);
  if (Error E = Out("compile.rsp", [&](raw_ostream &OS) {
        writeResponseFile(F.Compile, OS);
      }))
    return E;
  return Out("link.rsp",
             [&](raw_ostream &OS) { writeResponseFile(F.Link, OS); });
}

static Error writePlanDir(const LayoutPlan &LP,
                          const std::vector<FunctionLayout> *BlockLayout) {
  if (Error E = prepareOutputDir(OutDir))
    return E;
  auto Out = [&](StringRef Name, auto Render) {
    SmallString<256> Path(OutDir);
    sys::path::append(Path, Name);
    return writeOutput(Path, [&](raw_ostream &OS) {
      Render(OS);
      return Error::success();
    });
  };
  if (BlockLayout) {
    // The planned function order, as layout-blocks --function-order reads
    // it from order.txt; the hot parts keep it, the cold parts follow.
    std::vector<std::string> Order;
    for (uint32_t N : LP.TextOrder)
      Order.push_back(LP.Graph.Nodes[N].Name);
    if (Error E = Out("order.txt", [&](raw_ostream &OS) {
          writeBlockSymbolOrder(Order, *BlockLayout, OS);
        }))
      return E;
    if (Error E = Out("bbsections.txt", [&](raw_ostream &OS) {
          writeBasicBlockSectionsProfile(*BlockLayout, OS);
        }))
      return E;
    if (Error E = Out("sizes.txt", [&](raw_ostream &OS) {
          writeHotPartSizes(Order, *BlockLayout, OS);
        }))
      return E;
  } else if (Error E = Out("order.txt",
                           [&](raw_ostream &OS) { writeOrderFile(LP, OS); }))
    return E;
  if (Error E = Out("layout.ld", [&](raw_ostream &OS) {
        writeLinkerScript(LP, ScriptFlavor::LLD, OS);
      }))
    return E;
  if (Error E = Out("layout.gnu.ld", [&](raw_ostream &OS) {
        writeLinkerScript(LP, ScriptFlavor::GNU, OS);
      }))
    return E;
  if (Error E = Out("callgraph.txt",
                    [&](raw_ostream &OS) { writeCallGraphFile(LP, OS); }))
    return E;
  if (LP.File.Spacers)
    if (Error E = Out("spacer-sizes.txt", [&](raw_ostream &OS) {
          writeSpacerSizes(LP, OS);
        }))
      return E;
  if (Error E = writeBuildFlags(BlockLayout != nullptr, Out))
    return E;
  return Out("plan.yaml", [&](raw_ostream &OS) { writePlan(LP.File, OS); });
}

static Error run() {
  // 1. The binary and every option, checked before any profile is read.
  auto Bin = openBinary();
  if (!Bin)
    return Bin.takeError();
  if (Error E = applyPreset(**Bin))
    return E;
  auto Opts = layoutOptions(**Bin);
  if (!Opts)
    return Opts.takeError();
  // 2. The profiles, each read once.
  auto Loaded = loadProfiles(**Bin);
  if (!Loaded)
    return Loaded.takeError();
  // 3. The plan (keel/Planner/PlanLayout.h), and what planning found.
  PlanReport Report;
  auto Planned = planLayout(**Bin, *Loaded, *Opts, Report);
  reportPlanning(Report, **Bin, *Opts);
  if (!Planned)
    return Planned.takeError();
  // 4. Its summary and its files.
  printPlan(Planned->Plan, Report, *Opts);
  if (!OutDir.empty())
    return writePlanDir(Planned->Plan,
                        Planned->Blocks ? &*Planned->Blocks : nullptr);
  return Error::success();
}

static const char *const Overview =
    "layout-order: plan a code and data layout from profiles\n\n"
    "  With no other option: the recommended plan (--preset=recommended: "
    "hot blocks laid out, a 32 KB hot tier, 4 KB spacers).\n"
    "  Writes PLAN_DIR/{order.txt,layout.ld,layout.gnu.ld,plan.yaml,"
    "callgraph.txt,compile.rsp,link.rsp}\n"
    "  (with --blocks also bbsections.txt, sizes.txt; with --spacers "
    "spacer-sizes.txt). Apply the plan:\n"
    "    clang -O2 @PLAN_DIR/compile.rsp -c x.c ...   (rebuild every "
    "object)\n"
    "    clang @PLAN_DIR/link.rsp *.o -o app          (link)\n"
    "  link.rsp holds -Wl,-z,separate-code, which keeps the writable data's "
    "page offset when code grows (GNU ld's default on x86-64).\n";

int main(int argc, char **argv) {
  return runTool(argc, argv, {Tool, Overview, {&Cat}}, []() -> Expected<int> {
    if (OutDir.empty() && !PrintPlan && !JSON) {
      WithColor::error(errs(), Tool) << "nothing to do: give -o DIR and/or "
                                        "--print-plan or --json\n";
      return ExitBadInput;
    }
    return exitStatus(run());
  });
}
