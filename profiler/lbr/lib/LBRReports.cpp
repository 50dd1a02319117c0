//===- LBRReports.cpp - layout-profile blocks / timeline ------------------===//
#include "keel/LBR/LBRReports.h"

#include "keel/LBR/BlockTable.h"
#include "keel/LBR/Timeline.h"
#include "keel/Profile/Binary.h"
#include "keel/Support/Input.h"
#include "keel/Support/OutputFile.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>

using namespace llvm;

namespace keel {

bool LBRReportOutputs::stdoutTaken() const {
  for (const std::string *P : {&Json, &Csv, &Svg, &Html})
    if (*P == "-")
      return true;
  return false;
}

namespace {

/// Print each of the hottest estimated blocks beside its truth.
Error compareBlocks(const BlockTable &T, StringRef Truth, unsigned Top,
                    raw_ostream &OS) {
  auto Buf = readInputFile(Truth, InputKind::Text);
  if (!Buf)
    return Buf.takeError();
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

/// Samples with no LBR record in \p B's code measure nothing: every
/// method would give "[unknown] 100%" and agree with any truth, so that is
/// an error that says why, never a report.
Error requireRecordsInBinary(const SampleSet &S, const Binary &B,
                             StringRef Input) {
  uint64_t Records = 0;
  for (const RawSample &R : S.Samples) {
    for (const LBREntry &E : R.Stack)
      if (B.functionAt(E.From) || B.functionAt(E.To))
        return Error::success();
    Records += R.Stack.size();
  }
  if (!Records)
    return inputError(Input, 0,
                      "none of its {0} samples has an LBR record (a "
                      "recording without branch stacks): nothing to measure",
                      S.Samples.size());
  return inputError(Input, 0,
                    "none of its {0} LBR records is in the code of '{1}' "
                    "({2} samples): a profile of another binary, or of a PIE "
                    "whose mappings are missing",
                    Records, B.path(), S.Samples.size());
}

Expected<SampleSet> load(const LBRReportOptions &Opts, const Binary &B,
                         QualityReport &Q) {
  Expected<SampleSet> S = loadSamples(Opts.Input, B, Q, Opts.Perf);
  if (S)
    if (Error E = requireRecordsInBinary(*S, B, Opts.Input))
      return std::move(E);
  return S;
}

} // namespace

Expected<LBRReport> runBlocksReport(const LBRReportOptions &Opts,
                                    const Binary &B, QualityReport &Q) {
  auto S = load(Opts, B, Q);
  if (!S)
    return S.takeError();
  BlockTableOptions O;
  if (Opts.CPI > 0)
    O.DefaultCPI = Opts.CPI;
  auto T = buildBlockTable(*S, B, O, Q);
  if (!T)
    return T.takeError();
  LBRReport R;
  raw_string_ostream TS(R.Text);
  printBlockTable(*T, Opts.Top, Opts.PerSample, TS);
  if (!Opts.Truth.empty())
    if (Error E = compareBlocks(*T, Opts.Truth, Opts.Top, TS))
      return std::move(E);
  if (Error E = writeOutputIfNamed(Opts.Out.Json, [&](raw_ostream &OS) {
        writeBlockTableJSON(*T, Opts.PerSample, OS);
      }))
    return std::move(E);
  if (Error E = writeOutputIfNamed(Opts.Out.Csv, [&](raw_ostream &OS) {
        writeBlockTableCSV(*T, Opts.PerSample, OS);
      }))
    return std::move(E);
  R.NumEntries = T->NumEntries;
  return std::move(R);
}

Expected<LBRReport> runTimelineReport(const LBRReportOptions &Opts,
                                      const Binary &B, QualityReport &Q) {
  auto M = parseMethod(Opts.Method);
  if (!M)
    return inputError("--method", 0,
                      "unknown method '{0}' (ip, uniform, profile, sample, "
                      "hw, hwshare, or 1, 2, 3)",
                      Opts.Method);
  auto S = load(Opts, B, Q);
  if (!S)
    return S.takeError();
  if (needsHW(*M) && !S->HasEntryCycles && !Opts.Out.Svg.empty())
    return inputError(Opts.Input, 0,
                      "no LBR entry carries cycles: --method=hw "
                      "cannot be drawn");
  auto T = buildTimeline(*S, B, Q);
  if (!T)
    return T.takeError();
  std::array<std::optional<MethodError>, NumTimeMethods> Errors;
  TimelineReport R;
  R.Top = Opts.Top;
  R.Sequence = Opts.Sequence;
  if (!Opts.Truth.empty()) {
    auto TT = readTruthTimeline(Opts.Truth);
    if (!TT)
      return TT.takeError();
    auto E = compareTimeline(*T, *TT);
    if (!E)
      return E.takeError();
    Errors = *E;
    R.Errors = &Errors;
  }
  const LBRReportOutputs &Out = Opts.Out;
  if (Error E = writeOutputIfNamed(Out.Json,
                        [&](raw_ostream &OS) { writeTimelineJSON(*T, R, OS); }))
    return std::move(E);
  if (Error E =
          writeOutputIfNamed(Out.Csv, [&](raw_ostream &OS) { writeTimelineCSV(*T, OS); }))
    return std::move(E);
  if (Error E = writeOutputIfNamed(Out.Svg, [&](raw_ostream &OS) {
        writeTimelineSVG(*T, *M, Opts.Windows, Opts.Rows, OS);
      }))
    return std::move(E);
  if (Error E = writeOutputIfNamed(Out.Html, [&](raw_ostream &OS) {
        writeTimelineHTML(*T, R, Opts.Windows, Opts.Rows, OS);
      }))
    return std::move(E);
  LBRReport Report;
  raw_string_ostream TS(Report.Text);
  printTimeline(*T, R, TS);
  Report.NumEntries = T->NumRecords;
  return std::move(Report);
}

} // namespace keel
