//===- LBRCommands.cpp - layout-profile blocks / timeline -----------------===//
#include "LBRCommands.h"

#include "keel/Analysis/BlockTable.h"
#include "keel/Analysis/Timeline.h"
#include "keel/Profile/Binary.h"
#include "keel/Support/Diagnostics.h"
#include "keel/Support/OutputFile.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>

using namespace llvm;

namespace keel {

cl::OptionCategory &lbrCategory() {
  static cl::OptionCategory C("layout-profile blocks/timeline options");
  return C;
}

namespace {

cl::SubCommand BlocksCmd("blocks",
                         "Block table: cycles = CPI x instructions per LBR "
                         "block (Yamamoto et al.)");
cl::SubCommand TimelineCmd("timeline",
                           "Time line from LBR records, methods 1/2/3 and "
                           "hardware cycles (Ono et al.)");

#define BOTH cl::cat(lbrCategory()), cl::sub(BlocksCmd), cl::sub(TimelineCmd)

cl::opt<std::string> Bin("binary", cl::desc("The profiled binary"),
                         cl::value_desc("path"), cl::Required, BOTH);
cl::opt<std::string> Input(cl::Positional, cl::desc("<samples>"), cl::Required,
                           BOTH);
cl::opt<bool> PidField("perf-pid-field",
                       cl::desc("perf script: a single number before the "
                                "entries is the pid"),
                       BOTH);
cl::opt<unsigned> Pid("pid", cl::desc("perf script: only this process"),
                      cl::init(0), BOTH);
cl::opt<std::string> Truth("truth",
                           cl::desc("Truth file of layout-lbrgen: print each "
                                    "estimate's error against it"),
                           cl::value_desc("path"), BOTH);
// A bare --json / --csv is stdout, as in layout-sweep.
cl::opt<std::string> JsonOut("json",
                             cl::desc("Write JSON here ('-' or no value: stdout)"),
                             cl::value_desc("path"), cl::ValueOptional, BOTH);
cl::opt<std::string> CsvOut("csv",
                            cl::desc("Write CSV here ('-' or no value: stdout)"),
                            cl::value_desc("path"), cl::ValueOptional, BOTH);
cl::opt<unsigned> Top("top", cl::desc("Rows in the text report (0: all)"),
                      cl::init(10), BOTH);

cl::opt<double> CPI("cpi",
                    cl::desc("CPI to use when the samples carry no cycle and "
                             "instruction counts (perf script text)"),
                    cl::init(0), cl::cat(lbrCategory()), cl::sub(BlocksCmd));
cl::opt<bool> PerSample("per-sample",
                        cl::desc("Print every block of every sample (the "
                                 "paper's table) instead of the summary"),
                        cl::cat(lbrCategory()), cl::sub(BlocksCmd));

cl::opt<std::string> SvgOut("svg",
                            cl::desc("Write the time line of --method as SVG"),
                            cl::value_desc("path"), cl::cat(lbrCategory()),
                            cl::sub(TimelineCmd));
cl::opt<std::string> HtmlOut("html",
                             cl::desc("Write every method's time line and the "
                                      "per-sample call sequence as HTML"),
                             cl::value_desc("path"), cl::cat(lbrCategory()),
                             cl::sub(TimelineCmd));
cl::opt<std::string> Method("method",
                            cl::desc("Method of the SVG: ip, uniform (1), "
                                     "profile (2), sample (3), hw, hwshare"),
                            cl::init("sample"), cl::cat(lbrCategory()),
                            cl::sub(TimelineCmd));
cl::opt<unsigned> Windows("windows",
                          cl::desc("Sample windows drawn in SVG/HTML (0: all)"),
                          cl::init(200), cl::cat(lbrCategory()),
                          cl::sub(TimelineCmd));
cl::opt<unsigned> Sequence(
    "sequence",
    cl::desc("Print the call sequence (FROM0 newest ... oldest) of the first "
             "N samples"),
    cl::init(0), cl::cat(lbrCategory()), cl::sub(TimelineCmd));
cl::opt<unsigned> Rows("rows", cl::desc("Function rows in SVG/HTML"),
                       cl::init(12), cl::cat(lbrCategory()),
                       cl::sub(TimelineCmd));

const char *const Tool = "layout-profile";

bool stdoutTaken() {
  for (const std::string *P : {&JsonOut.getValue(), &CsvOut.getValue(),
                               &SvgOut.getValue(), &HtmlOut.getValue()})
    if (*P == "-")
      return true;
  return false;
}

Error writeTo(StringRef Path, function_ref<void(raw_ostream &)> Fn) {
  if (Path.empty())
    return Error::success();
  return writeOutput(Path, [&](raw_ostream &OS) {
    Fn(OS);
    return Error::success();
  });
}

/// Print each of the hottest estimated blocks beside its truth.
Error compareBlocks(const BlockTable &T, raw_ostream &OS) {
  auto Buf = MemoryBuffer::getFile(Truth, /*IsText=*/true);
  if (!Buf)
    return inputError(Truth, 0, "cannot read: {0}", Buf.getError().message());
  auto V = json::parse((*Buf)->getBuffer());
  if (!V)
    return inputError(Truth, 0, "not JSON: {0}", toString(V.takeError()));
  const json::Object *Root = V->getAsObject();
  const json::Array *Bs = Root ? Root->getArray("blocks") : nullptr;
  if (!Bs)
    return inputError(Truth, 0, "no \"blocks\" array");
  std::map<std::pair<uint64_t, uint64_t>, std::pair<double, double>> ByRange;
  for (const json::Value &B : *Bs) {
    const json::Object *O = B.getAsObject();
    if (!O)
      continue;
    uint64_t S = 0, E = 0;
    auto SS = O->getString("start"), ES = O->getString("end");
    if (!SS || !ES || SS->drop_front(2).getAsInteger(16, S) ||
        ES->drop_front(2).getAsInteger(16, E))
      return inputError(Truth, 0, "a block without start/end addresses");
    ByRange[{S, E}] = {O->getNumber("executions").value_or(0),
                       O->getNumber("cycles").value_or(0)};
  }
  OS << "\ntruth (" << Truth << "):\n";
  OS << format("%-10s %-10s %-16s %10s %10s %8s %12s %12s %8s %8s\n", "start",
               "end", "function", "est-execs", "true-execs", "error",
               "est-cycles", "true-cycles", "error", "hw-error");
  unsigned N = 0;
  for (const BlockSummary &B : T.Blocks) {
    if (Top && N++ >= Top)
      break;
    auto It = ByRange.find({B.Start, B.End});
    double TE = It == ByRange.end() ? 0 : It->second.first;
    double TC = It == ByRange.end() ? 0 : It->second.second;
    auto Err = [](double Est, double Tr) {
      return Tr > 0 ? formatv("{0:F2}%", 100 * (Est - Tr) / Tr).str()
                    : std::string("-");
    };
    OS << format("%-10s %-10s %-16s %10.0f %10.0f %8s %12.0f %12.0f %8s %8s\n",
                 ("0x" + utohexstr(B.Start, true)).c_str(),
                 ("0x" + utohexstr(B.End, true)).c_str(),
                 StringRef(B.Function).take_front(16).str().c_str(),
                 B.EstExecutions, TE, Err(B.EstExecutions, TE).c_str(),
                 B.EstCycles, TC, Err(B.EstCycles, TC).c_str(),
                 B.EstHWCycles > 0 ? Err(B.EstHWCycles, TC).c_str() : "-");
  }
  return Error::success();
}

Expected<SampleSet> load(const Binary &B, QualityReport &Q) {
  PerfScriptOptions PO;
  PO.FirstFieldIsPid = PidField;
  PO.Pid = Pid;
  return loadSamples(Input, B, Q, PO);
}

Error runBlocks(const Binary &B) {
  QualityReport Q;
  auto S = load(B, Q);
  if (!S)
    return S.takeError();
  BlockTableOptions O;
  if (CPI > 0)
    O.DefaultCPI = CPI;
  auto T = buildBlockTable(*S, B, O, Q);
  if (!T)
    return T.takeError();
  std::string Text;
  raw_string_ostream TS(Text);
  printBlockTable(*T, Top, PerSample, TS);
  if (!Truth.empty())
    if (Error E = compareBlocks(*T, TS))
      return E;
  if (Error E = writeTo(JsonOut, [&](raw_ostream &OS) {
        writeBlockTableJSON(*T, PerSample, OS);
      }))
    return E;
  if (Error E = writeTo(CsvOut, [&](raw_ostream &OS) {
        writeBlockTableCSV(*T, PerSample, OS);
      }))
    return E;
  if (!stdoutTaken())
    outs() << Text;
  Q.print(errs(), Tool, T->NumEntries, "LBR entries");
  return Error::success();
}

Error runTimeline(const Binary &B) {
  auto M = parseMethod(Method);
  if (!M)
    return inputError("--method", 0,
                      "unknown method '{0}' (ip, uniform, profile, sample, "
                      "hw, hwshare, or 1, 2, 3)",
                      Method);
  QualityReport Q;
  auto S = load(B, Q);
  if (!S)
    return S.takeError();
  if (needsHW(*M) && !S->HasEntryCycles && !SvgOut.empty())
    return inputError(Input, 0,
                      "no LBR entry carries cycles: --method=hw "
                      "cannot be drawn");
  auto T = buildTimeline(*S, B, Q);
  if (!T)
    return T.takeError();
  std::array<std::optional<MethodError>, NumTimeMethods> Errors;
  TimelineReport R;
  R.Top = Top;
  R.Sequence = Sequence;
  if (!Truth.empty()) {
    auto TT = readTruthTimeline(Truth);
    if (!TT)
      return TT.takeError();
    auto E = compareTimeline(*T, *TT);
    if (!E)
      return E.takeError();
    Errors = *E;
    R.Errors = &Errors;
  }
  if (Error E = writeTo(JsonOut,
                        [&](raw_ostream &OS) { writeTimelineJSON(*T, R, OS); }))
    return E;
  if (Error E =
          writeTo(CsvOut, [&](raw_ostream &OS) { writeTimelineCSV(*T, OS); }))
    return E;
  if (Error E = writeTo(SvgOut, [&](raw_ostream &OS) {
        writeTimelineSVG(*T, *M, Windows, Rows, OS);
      }))
    return E;
  if (Error E = writeTo(HtmlOut, [&](raw_ostream &OS) {
        writeTimelineHTML(*T, R, Windows, Rows, OS);
      }))
    return E;
  if (!stdoutTaken())
    printTimeline(*T, R, outs());
  Q.print(errs(), Tool, T->NumRecords, "LBR entries");
  return Error::success();
}

} // namespace

bool lbrSubcommandActive() { return BlocksCmd || TimelineCmd; }

Error runLBRSubcommand() {
  for (cl::opt<std::string> *O : {&JsonOut, &CsvOut})
    if (O->getNumOccurrences() && O->empty())
      *O = "-";
  auto B = Binary::open(Bin);
  if (!B)
    return B.takeError();
  return BlocksCmd ? runBlocks(**B) : runTimeline(**B);
}

} // namespace keel
