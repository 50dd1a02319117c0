//===- layout-profile.cpp - convert, merge and show profiles --------------===//
//
//   layout-profile convert [--format=F] [--binary=B] [--to=fdata|pa] -o OUT IN
//   layout-profile convert --to=perf-script -o OUT IN.perf.data
//   layout-profile merge -o OUT A.fdata B.fdata ...
//   layout-profile show [--format=F] [--binary=B] [--top=N] [--json] IN
//   layout-profile blocks|timeline ...     (LBRCommands.h)
//   layout-profile --binary=B              (describe the binary model)
//
// Inputs: perf.data, perf script brstack text, BOLT fdata, BOLT
// pre-aggregated, and callgrind output; the format is detected from the first line unless
// --format says it. Outputs are written atomically; bad input exits 2
// naming file:line and leaves no output; data-quality problems are
// summarised once on stderr.
//
//===----------------------------------------------------------------------===//
#include "keel/Profile/Load.h"
#include "keel/Support/Tool.h"
#include "LBRCommands.h"

#include "keel/Profile/Binary.h"
#include "keel/Profile/PerfData.h"
#include "keel/Profile/Summary.h"
#include "keel/Record/PerfDataFile.h"
#include "keel/Support/Diagnostics.h"
#include "keel/Support/OutputFile.h"
#include "keel/Support/Text.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;
using namespace keel;

static const char *const Tool = "layout-profile";

static cl::OptionCategory Cat("layout-profile options");
static cl::SubCommand ConvertCmd(
    "convert", "Convert a profile to BOLT fdata or pre-aggregated text");
static cl::SubCommand MergeCmd("merge", "Merge fdata profiles into one");
static cl::SubCommand ShowCmd(
    "show", "Print the hottest functions and call edges of a profile");

static cl::opt<std::string>
    BinaryPath("binary",
               cl::desc("The profiled binary (needed for address profiles; "
                        "alone: describe its model)"),
               cl::value_desc("path"), cl::cat(Cat), cl::sub(ConvertCmd),
               cl::sub(ShowCmd), cl::sub(cl::SubCommand::getTopLevel()));
static cl::opt<std::string>
    FormatName("format",
               cl::desc("Input format: auto, perf, fdata, pa, callgrind, perf.data"),
               cl::init("auto"), cl::cat(Cat), cl::sub(ConvertCmd),
               cl::sub(ShowCmd));
static cl::opt<bool> PerfPidField(
    "perf-pid-field",
    cl::desc("perf script: a single number before the entries is the pid "
             "(perf script -F pid,brstack) rather than the IP"),
    cl::cat(Cat), cl::sub(ConvertCmd), cl::sub(ShowCmd));
static cl::opt<std::string> BinaryPathInProfile(
    "binary-path-in-profile",
    cl::desc("perf.data and perf script: the binary's path as the recording "
             "names it (a mapping of this path is the binary's), for "
             "recordings without build ids of a binary since copied or "
             "renamed"),
    cl::value_desc("path"), cl::cat(Cat), cl::sub(ConvertCmd),
    cl::sub(ShowCmd));
static cl::opt<unsigned> PerfPid("pid",
                                 cl::desc("perf script: only this process"),
                                 cl::init(0), cl::cat(Cat),
                                 cl::sub(ConvertCmd), cl::sub(ShowCmd));
static cl::opt<std::string>
    OutputPath("o", cl::desc("Output file ('-' for stdout)"),
               cl::value_desc("path"), cl::cat(Cat), cl::sub(ConvertCmd),
               cl::sub(MergeCmd));
static cl::opt<std::string> ToFormat("to",
                                     cl::desc("Output format: fdata, pa (preagg, as layout-record calls it) or perf-script (of a perf.data: what `perf script -F ip,brstack` prints)"),
                                     cl::init("fdata"), cl::cat(Cat),
                                     cl::sub(ConvertCmd));
static cl::list<std::string> Inputs(cl::Positional, cl::desc("<profile>..."),
                                    cl::cat(Cat), cl::sub(ConvertCmd),
                                    cl::sub(MergeCmd), cl::sub(ShowCmd));
static cl::opt<unsigned> Top("top", cl::desc("How many functions and edges"),
                             cl::init(10), cl::cat(Cat), cl::sub(ShowCmd));
static cl::opt<bool> Json("json", cl::desc("Print JSON"), cl::cat(Cat),
                          cl::sub(ShowCmd));
static cl::opt<std::string>
    By("by", cl::desc("Rank functions by 'instructions' or 'samples' "
                      "(default: instructions when known)"),
       cl::cat(Cat), cl::sub(ShowCmd));

namespace {

Expected<std::unique_ptr<Binary>> openBinary() {
  if (BinaryPath.empty())
    return std::unique_ptr<Binary>();
  return Binary::open(BinaryPath);
}

void printQuality(const QualityReport &Q, const LoadedProfile &LP) {
  Q.print(errs(), Tool, LP.NumItems, LP.ItemName);
}

/// The one input profile of convert/show, in the --format asked for (or
/// detected), with the perf-script pid options applied.
Expected<LoadedProfile> loadInput(const Binary *Bin, QualityReport &Q) {
  auto Want = parseFormatName(FormatName);
  if (!Want)
    return Want.takeError();
  PerfScriptOptions PO;
  PO.FirstFieldIsPid = PerfPidField;
  PO.Pid = PerfPid;
  PO.BinaryPathInProfile = BinaryPathInProfile;
  return loadProfile(Inputs[0], *Want, Bin, Q, PO);
}

Error runConvert(const Binary *Bin) {
  if (Inputs.size() != 1)
    return usageError("convert: expected one input profile, got {0}",
                      Inputs.size());
  if (OutputPath.empty())
    return usageError("convert: no output: give -o");
  if (ToFormat == "preagg") // layout-record --format's name for it
    ToFormat = "pa";
  if (ToFormat == "perf-script") {
    // Keel's reading of a perf.data, printed as perf script prints it.
    auto F = perfdata::File::open(Inputs[0]);
    if (!F)
      return F.takeError();
    return writeOutput(OutputPath, [&](raw_ostream &OS) {
      return exportPerfScriptIpBrstack(**F, OS);
    });
  }
  if (ToFormat != "fdata" && ToFormat != "pa")
    return inputError("--to", 0,
                      "unknown output format '{0}' (fdata, pa or perf-script)",
                      ToFormat);
  QualityReport Q;
  auto LP = loadInput(Bin, Q);
  if (!LP)
    return LP.takeError();

  std::function<void(raw_ostream &)> Render;
  BranchProfile Sym;
  if (ToFormat == "fdata") {
    if (LP->Symbolic) {
      Sym = std::move(LP->Sym);
    } else {
      if (!Bin)
        return inputError(Inputs[0], 0,
                          "a {0} profile holds addresses: give the binary "
                          "with --binary to write fdata",
                          formatName(LP->Format));
      Sym = symbolizeForFdata(LP->Addr, *Bin, Q);
    }
    Render = [&](raw_ostream &OS) { writeFdata(Sym, OS); };
  } else {
    if (LP->Symbolic)
      return inputError(Inputs[0], 0,
                        "fdata keeps no fall-through ranges, so it cannot "
                        "become a pre-aggregated profile");
    Render = [&](raw_ostream &OS) { writePreAggregated(LP->Addr, OS); };
  }
  if (Error E = writeOutput(OutputPath, [&](raw_ostream &OS) {
        Render(OS);
        return Error::success();
      }))
    return E;
  printQuality(Q, *LP);
  // Neither format has a record for them (docs/planner.md).
  if (!LP->Symbolic && !LP->Addr.CallChainArcs.empty())
    WithColor::note(errs(), Tool)
        << LP->Addr.CallChainArcs.size() << " callchain arcs are not written ("
        << ToFormat << " has no record for them): plan from " << Inputs[0]
        << " itself to keep its call graph\n";
  return Error::success();
}

Error runMerge() {
  if (Inputs.empty())
    return usageError("merge: no input profiles");
  if (OutputPath.empty())
    return usageError("merge: no output: give -o");
  BranchProfile All;
  std::string FirstLBR, FirstNoLBR;
  for (const std::string &Path : Inputs) {
    QualityReport Q;
    auto LP = loadProfile(Path, ProfileFormat::Fdata, nullptr, Q, {});
    if (!LP)
      return LP.takeError();
    if (LP->Sym.empty())
      continue;
    (LP->Sym.NoLBR ? FirstNoLBR : FirstLBR) = Path;
    if (!FirstLBR.empty() && !FirstNoLBR.empty())
      return inputError(Path, 0,
                        "cannot merge a no_lbr (IP sample) profile with an "
                        "LBR profile ({0} and {1})",
                        FirstNoLBR, FirstLBR);
    All.merge(LP->Sym);
  }
  return writeOutput(OutputPath, [&](raw_ostream &OS) {
    writeFdata(All, OS);
    return Error::success();
  });
}

Error runShow(const Binary *Bin) {
  if (Inputs.size() != 1)
    return usageError("show: expected one input profile, got {0}",
                      Inputs.size());
  if (!By.empty() && By != "instructions" && By != "samples")
    return inputError("--by", 0, "expected 'instructions' or 'samples'");
  QualityReport Q;
  auto LP = loadInput(Bin, Q);
  if (!LP)
    return LP.takeError();
  ShowOptions SO;
  SO.Top = Top;
  SO.By = By;
  SO.InputName = Inputs[0];
  auto S = summarizeProfile(*LP, Bin, SO, Q);
  if (!S)
    return S.takeError();
  if (Json)
    printProfileSummaryJSON(*S, *LP, SO, outs());
  else { // symbol names: never raw control or bidi characters
    std::string Text;
    raw_string_ostream TS(Text);
    printProfileSummary(*S, *LP, SO, TS);
    outs() << printableText(Text);
  }
  printQuality(Q, *LP);
  return Error::success();
}

} // namespace

/// The subcommands as --help lists them (sorted by name).
static std::string subcommandNames() {
  std::vector<std::string> Names;
  for (cl::SubCommand *S : cl::getRegisteredSubcommands())
    if (!S->getName().empty())
      Names.push_back(S->getName().str());
  llvm::sort(Names);
  return join(Names, ", ");
}

static const char *const Overview =
    "layout-profile: convert, merge and show branch profiles\n\n"
    "  layout-profile convert [--binary=B] [--to=fdata|pa] -o OUT IN\n"
    "  layout-profile merge -o OUT A.fdata B.fdata ...\n"
    "  layout-profile show [--binary=B] [--top=N] [--json] IN\n"
    "  layout-profile blocks --binary=B [--cpi=X] [--truth=T] SAMPLES\n"
    "  layout-profile timeline --binary=B [--truth=T] [--svg=F] SAMPLES\n";

int main(int argc, char **argv) {
  return runTool(
      argc, argv, {Tool, Overview, {&Cat, &lbrCategory()}},
      []() -> Expected<int> {
        auto Bin = openBinary();
        if (!Bin)
          return Bin.takeError();
        if (ConvertCmd)
          return exitStatus(runConvert(Bin->get()));
        if (MergeCmd)
          return exitStatus(runMerge());
        if (ShowCmd)
          return exitStatus(runShow(Bin->get()));
        if (lbrSubcommandActive())
          return exitStatus(runLBRSubcommand());
        if (!*Bin)
          return usageError("expected a subcommand ({0}); see --help",
                            subcommandNames());
        outs() << "build-id " << (*Bin)->buildID() << " functions "
               << (*Bin)->functions().size() << '\n';
        return ExitOK;
      });
}
