//===- layout-blocks.cpp - basic-block layout from a profile ---------------===//
//
//   layout-blocks --binary BIN --profile P [--profile P2] -o DIR
//
// BIN must be built with -fbasic-block-address-map. Phases: open the binary
// -> load and merge the profiles (any format layout-profile reads) -> map
// counts onto the blocks of .llvm_bb_addr_map -> Ext-TSP order and hot/cold
// split per hot function -> write DIR/bbsections.txt (for clang's
// -fbasic-block-sections=list=), DIR/order.txt (lld --symbol-ordering-file:
// hot functions, then the cold parts), DIR/sizes.txt (estimated hot-part
// sizes, for layout-order --spacers --section-sizes) and, with --autofdo, DIR/autofdo.prof
// (for -fprofile-sample-use=).
//
//===----------------------------------------------------------------------===//
#include "keel/Profile/Load.h"
#include "keel/Support/Tool.h"

#include "keel/Blocks/AutoFDO.h"
#include "keel/Blocks/BlockLayout.h"
#include "keel/Profile/Binary.h"
#include "keel/Support/Diagnostics.h"
#include "keel/Support/Input.h"
#include "keel/Support/OutputFile.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/LineIterator.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;
using namespace keel;

static const char *Tool = "layout-blocks";
static cl::OptionCategory Cat("layout-blocks options");
static cl::opt<std::string> BinaryPath("binary", cl::Required, cl::cat(Cat), cl::value_desc("file"),
    cl::desc("the profiled binary, built with -fbasic-block-address-map"));
static cl::list<std::string> Profiles("profile", cl::OneOrMore, cl::cat(Cat), cl::value_desc("file"),
    cl::desc("a profile of the binary (fdata, pre-aggregated, perf script, "
             "callgrind); repeatable, merged"));
static cl::opt<std::string> BinaryPathInProfile(
    "binary-path-in-profile", cl::cat(Cat), cl::value_desc("path"),
    cl::desc("perf.data and perf script: the binary's path as the recording "
             "names it, for recordings without build ids of a binary since "
             "copied or renamed"));
static cl::opt<std::string> OutDir("o", cl::Required, cl::cat(Cat),
    cl::desc("output directory"), cl::value_desc("dir"));
static cl::opt<double> HotCoverage("hot-coverage", cl::init(0.99), cl::cat(Cat),
    cl::desc("lay out the functions covering this share of executed "
             "instructions (default 0.99)"));
static cl::opt<std::string> BlockOrderName("block-order", cl::init("exttsp"), cl::cat(Cat),
    cl::value_desc("exttsp|keep|guarded|cheapest"),
    cl::desc("order of a function's executed blocks: exttsp (LLVM's Ext-TSP), "
             "keep (the compiler's order, never-executed blocks split off), "
             "guarded (keep unless Ext-TSP raises the score by "
             "--block-reorder-gain), cheapest (Ext-TSP or keep per function, "
             "whichever executes fewer jumps and taken branches by the "
             "profile)"));
static cl::opt<bool> RefineJumps(
    "refine-jumps", cl::init(false), cl::cat(Cat),
    cl::desc("after Ext-TSP, move single executed blocks next to a "
             "predecessor or successor where that executes fewer jumps and "
             "taken branches by the profile (default off)"));
static cl::opt<double> ReorderGain("block-reorder-gain", cl::init(0.1), cl::cat(Cat),
    cl::value_desc("F"),
    cl::desc("with --block-order=guarded: relative Ext-TSP score gain needed "
             "to reorder (default 0.1)"));
static cl::opt<double> WarmShare("warm-share", cl::init(0), cl::cat(Cat),
    cl::value_desc("F"),
    cl::desc("warm split: an executed block entered fewer than F times its "
             "function's hottest block goes to the function's warm part "
             "(name.__part.1, ordered after every hot part; rebuild with "
             "-funique-basic-block-section-names as well); 0 = off "
             "(default)"));
static cl::opt<bool> NoSplit("no-split", cl::cat(Cat),
    cl::desc("keep never-executed blocks in the function (no .cold part)"));
static cl::opt<std::string> FunctionOrder("function-order", cl::cat(Cat), cl::value_desc("file"),
    cl::desc("an lld symbol order (e.g. layout-order's order.txt) to keep for "
             "the hot functions; default: hottest first"));
static cl::opt<bool> AutoFDO("autofdo", cl::cat(Cat),
    cl::desc("also write autofdo.prof (needs DWARF line tables in the binary)"));
static cl::opt<bool> JSON("json", cl::cat(Cat),
    cl::desc("print the summary as JSON on stdout"));

static Expected<std::vector<std::string>> readOrder(StringRef Path) {
  std::vector<std::string> Out;
  if (Path.empty())
    return Out;
  auto MB = readInputFile(Path, InputKind::Text);
  if (!MB)
    return MB.takeError();
  for (line_iterator L(**MB, /*SkipBlanks=*/true, '#'); !L.is_at_eof(); ++L)
    Out.push_back(L->trim().str());
  return Out;
}

static void printSummary(const BlockMapStats &S,
                         ArrayRef<FunctionLayout> Layout) {
  uint64_t Hot = 0, Cold = 0, Split = 0, Warm = 0, WarmSplit = 0;
  for (const FunctionLayout &L : Layout) {
    Hot += L.HotOrder.size();
    Cold += L.ColdBlocks.size();
    Split += !L.ColdBlocks.empty();
    Warm += L.WarmOrder.size();
    WarmSplit += !L.WarmOrder.empty();
  }
  if (JSON) {
    json::Array Fns;
    for (const FunctionLayout &L : Layout) {
      json::Object F{{"name", L.Name},
                     {"weight", int64_t(L.Weight)},
                     {"hot_blocks", int64_t(L.HotOrder.size())},
                     {"cold_blocks", int64_t(L.ColdBlocks.size())},
                     {"exttsp_before", L.ScoreBefore},
                     {"exttsp_after", L.ScoreAfter},
                     {"kept_order", L.KeptOrder},
                     {"jumps", int64_t(L.Branches.Jumps)},
                     {"taken", int64_t(L.Branches.Taken)},
                     {"jump_moves", int64_t(L.JumpMoves)}};
      if (WarmShare > 0)
        F["warm_blocks"] = int64_t(L.WarmOrder.size());
      Fns.push_back(std::move(F));
    }
    outs() << formatv("{0:2}\n", json::Value(json::Object{
                                     {"version", 1},
                                     {"functions_with_map", int64_t(S.FunctionsWithMap)},
                                     {"coverage", S.coverage()},
                                     {"laid_out", int64_t(Layout.size())},
                                     {"split", int64_t(Split)},
                                     {"functions", std::move(Fns)}}));
    return;
  }
  outs() << formatv("{0}: {1} functions with a block map; {2:P2} of the "
                    "profile mapped onto blocks\n",
                    Tool, S.FunctionsWithMap, S.coverage());
  outs() << formatv("{0}: laid out {1} hot functions: {2} hot blocks, {3} "
                    "cold blocks split from {4} functions\n",
                    Tool, Layout.size(), Hot, Cold, Split);
  if (WarmShare > 0)
    outs() << formatv("{0}: warm split: {1} warm blocks from {2} functions\n",
                      Tool, Warm, WarmSplit);
}

static Error run() {
  // 1. The binary and its block map.
  auto Bin = Binary::open(BinaryPath);
  if (!Bin)
    return Bin.takeError();
  // 2. The profiles, merged, by address.
  QualityReport Quality;
  PerfScriptOptions PO;
  PO.BinaryPathInProfile = BinaryPathInProfile;
  auto AP = loadAddressProfiles(**Bin, Profiles, Quality, PO);
  if (!AP)
    return AP.takeError();
  // 3. Counts on blocks; Ext-TSP and split per hot function.
  BlockMapStats Stats;
  BlockLayoutOptions Opts;
  Opts.HotCoverage = HotCoverage;
  Opts.Split = !NoSplit;
  auto BOrder = parseBlockOrder(BlockOrderName);
  if (!BOrder)
    return inputError("--block-order", 0,
                      "unknown block order '{0}' (exttsp, keep, guarded, "
                      "cheapest)",
                      BlockOrderName);
  if (!(ReorderGain >= 0))
    return inputError("--block-reorder-gain", 0, "{0} is negative",
                      double(ReorderGain));
  Opts.Order = *BOrder;
  Opts.ReorderGain = ReorderGain;
  Opts.RefineJumps = RefineJumps;
  if (!(WarmShare >= 0 && WarmShare < 1))
    return inputError("--warm-share", 0, "{0} is not in [0, 1)",
                      double(WarmShare));
  Opts.WarmShare = WarmShare;
  auto LayoutOr = planBlockLayout(**Bin, *AP, Opts, Stats);
  if (!LayoutOr)
    return LayoutOr.takeError();
  std::vector<FunctionLayout> &Layout = *LayoutOr;
  if (Layout.empty())
    return inputError(Profiles.front(), 0,
                      "no profiled function of {0} has a block map: nothing "
                      "to lay out",
                      BinaryPath);
  auto Order = readOrder(FunctionOrder);
  if (!Order)
    return Order.takeError();
  // 4. The AutoFDO profile is rendered first: it is the output that can
  //    still fail (no line information), and then nothing is written.
  std::string AutoFDOText;
  QualityReport Lines; // its own unit: executed instruction addresses
  if (AutoFDO) {
    raw_string_ostream OS(AutoFDOText);
    if (Error E = writeAutoFDOProfile(**Bin, *AP, OS, Lines))
      return E;
  }
  // 5. Outputs, each written whole.
  if (Error E = prepareOutputDir(OutDir))
    return E;
  auto In = [](StringRef Name) {
    SmallString<256> P(OutDir);
    sys::path::append(P, Name);
    return std::string(P);
  };
  if (Error E = writeOutput(In("bbsections.txt"), [&](raw_ostream &OS) {
        writeBasicBlockSectionsProfile(Layout, OS);
        return Error::success();
      }))
    return E;
  if (Error E = writeOutput(In("order.txt"), [&](raw_ostream &OS) {
        writeBlockSymbolOrder(*Order, Layout, OS);
        return Error::success();
      }))
    return E;
  if (Error E = writeOutput(In("sizes.txt"), [&](raw_ostream &OS) {
        writeHotPartSizes(*Order, Layout, OS);
        return Error::success();
      }))
    return E;
  if (AutoFDO) {
    if (Error E = writeOutput(In("autofdo.prof"), [&](raw_ostream &OS) {
          OS << AutoFDOText;
          return Error::success();
        }))
      return E;
    for (const auto &[What, N] : Lines.counts())
      WithColor::warning(errs(), Tool) << N << ' ' << What << '\n';
  }
  Quality.print(errs(), Tool, AP->Branches.size() + AP->FallThroughs.size(),
                "profile records");
  printSummary(Stats, Layout);
  return Error::success();
}

static const char *const Overview =
    "layout-blocks: basic-block layout (Ext-TSP order, hot/cold split) from "
    "profiles\n\n"
    "  layout-blocks --binary BIN --profile P -o DIR\n"
    "  clang -O2 -ffunction-sections -fbasic-block-sections=list=DIR/bbsections.txt ...\n"
    "  clang -fuse-ld=lld -Wl,--symbol-ordering-file=DIR/order.txt ...\n";

int main(int argc, char **argv) {
  return runTool(argc, argv, {Tool, Overview, {&Cat}},
                 [] { return exitStatus(run()); });
}
