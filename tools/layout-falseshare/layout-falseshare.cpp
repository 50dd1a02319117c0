//===- layout-falseshare.cpp - report false sharing found without a PMU ---===//
//
//   layout-falseshare report keelfs.out [--binary=app] [--json]
//       [--plan-out=fs.yaml] [--min-accesses=N] [-o file]
//   layout-falseshare record --source=perf [--event=E] [--period=N]
//       [-o perf-fs.out] -- program args...
//
// `record` is the path with hardware counters (perf c2c style): precise
// memory samples through keelRecord, loads that hit a line Modified in
// another core (HITM) mark the contended lines, and the samples become a
// report in libkeelfs's format for `report` (PerfHitm.h).
//
// Reads the report libkeelfs.so writes at exit (programs built with
// -fpass-plugin=KeelFalseSharing.so), classifies every cache line (false,
// true or mixed sharing), names the global and the field at each offset
// (symbol table + DWARF of the binary), lists source lines and access
// counts, predicts latent false sharing (data written by different threads
// closer than a line, in different lines only by the current placement),
// and writes plan `false-sharing:` entries for LayoutOpt.so.
//
// This main reads the options into plain structs and calls keelFalseShare:
// keel/FalseShare/Findings.h for `report`, keel/FalseShare/HitmRecord.h for
// `record`; it prints what they return and picks the exit status.
//
//===----------------------------------------------------------------------===//
#include "keel/FalseShare/Findings.h"
#include "keel/FalseShare/HitmRecord.h"
#include "keel/Support/Diagnostics.h"
#include "keel/Support/OutputFile.h"
#include "keel/Support/Tool.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;
using namespace keel;
using namespace keel::fs;

static const char *Tool = "layout-falseshare";

static cl::SubCommand ReportCmd("report",
                                "classify the cache lines of a keelfs report");
static cl::OptionCategory Cat("layout-falseshare options");
static cl::opt<std::string> Input(cl::Positional, cl::desc("<keelfs.out>"),
                                  cl::sub(ReportCmd), cl::cat(Cat));
static cl::opt<std::string>
    BinaryPath("binary",
               cl::desc("the instrumented program (default: the report's "
                        "'exe' line)"),
               cl::value_desc("file"), cl::sub(ReportCmd), cl::cat(Cat));
static cl::opt<bool> JSON("json", cl::desc("print JSON instead of text"),
                          cl::sub(ReportCmd), cl::cat(Cat));
static cl::opt<std::string> Output("o", cl::desc("write the report here"),
                                   cl::value_desc("file"), cl::init("-"),
                                   cl::sub(ReportCmd), cl::cat(Cat));
static cl::opt<std::string>
    PlanOut("plan-out",
            cl::desc("write a plan whose false-sharing: entries name the "
                     "globals to align and pad (for LayoutOpt.so)"),
            cl::value_desc("fs.yaml"), cl::sub(ReportCmd), cl::cat(Cat));
static cl::opt<uint64_t> MinAccesses(
    "min-accesses",
    cl::desc("ignore a thread on a line with fewer accesses (default 100)"),
    cl::init(100), cl::sub(ReportCmd), cl::cat(Cat));
static cl::opt<bool> NoLatent("no-latent",
                              cl::desc("do not predict latent false sharing"),
                              cl::sub(ReportCmd), cl::cat(Cat));

static cl::SubCommand
    RecordCmd("record", "sample memory accesses with the PMU (HITM, as perf "
                        "c2c) and write a report for 'report'");
static cl::OptionCategory RecCat("layout-falseshare record options");
static cl::opt<std::string>
    RecSource("source",
              cl::desc("where the accesses come from: perf (hardware "
                       "memory sampling; the PMU-free path is the "
                       "KeelFalseSharing.so plugin)"),
              cl::init("perf"), cl::sub(RecordCmd), cl::cat(RecCat));
static cl::opt<std::string> RecEvent(
    "event",
    cl::desc("precise load event (libpfm4 name): the load-latency event "
             "(data source says HITM), or one that counts only HITM loads "
             "(MEM_LOAD_L3_HIT_RETIRED.XSNP_HITM; XSNP_FWD on Ice Lake and "
             "later)"),
    cl::init("MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=30"), cl::sub(RecordCmd),
    cl::cat(RecCat));
static cl::opt<uint64_t> RecPeriod("period",
                                   cl::desc("sample every N events"),
                                   cl::init(1000), cl::sub(RecordCmd),
                                   cl::cat(RecCat));
static cl::opt<bool> RecAllLines(
    "all-lines",
    cl::desc("keep every line two threads sampled, not only HITM lines"),
    cl::sub(RecordCmd), cl::cat(RecCat));
static cl::opt<bool>
    RecPeer("peer",
            cl::desc("count loads forwarded from a peer cache as HITM (Arm "
                     "SPE, AMD IBS data sources have no HITM)"),
            cl::sub(RecordCmd), cl::cat(RecCat));
static cl::opt<std::string> RecOutput("o",
                                      cl::desc("write the report here"),
                                      cl::value_desc("file"),
                                      cl::init("perf-fs.out"),
                                      cl::sub(RecordCmd), cl::cat(RecCat));
static cl::opt<std::string> RecReplay(
    "replay",
    cl::desc("parse perf records from this file (the kernel's ring-buffer "
             "layout for this tool's attributes) instead of running the "
             "program; the program names the binary"),
    cl::value_desc("file"), cl::sub(RecordCmd), cl::cat(RecCat));
static cl::opt<std::string> RecProgram(cl::Positional,
                                       cl::desc("<program>"),
                                       cl::sub(RecordCmd), cl::cat(RecCat));
static cl::list<std::string> RecArgs(cl::ConsumeAfter,
                                     cl::desc("<program arguments>..."),
                                     cl::sub(RecordCmd), cl::cat(RecCat));

/// The report options, as the command line gave them.
static ReportOptions reportOptions() {
  ReportOptions O;
  O.Input = Input;
  O.BinaryPath = BinaryPath;
  O.JSON = JSON;
  O.Output = Output;
  O.PlanOut = PlanOut;
  O.MinAccesses = MinAccesses;
  O.NoLatent = NoLatent;
  return O;
}

/// layout-falseshare report: read, analyse, write the report, then the plan.
static Error runReport() {
  ReportOptions O = reportOptions();
  Expected<ReportInput> In = readReportInput(O);
  if (!In)
    return In.takeError();
  if (In->BinaryMissing)
    WithColor::warning(errs(), Tool)
        << "binary '" << In->BinPath
        << "' not found; give --binary to name globals and fields\n";
  Findings F = findSharing(*In, O);
  if (Error E = writeOutput(O.Output, [&](raw_ostream &OS) -> Error {
        writeReport(OS, *In, F, O.JSON);
        return Error::success();
      }))
    return E;
  if (!O.PlanOut.empty())
    return writePlanFile(O.PlanOut, *In, F);
  return Error::success();
}

/// The record options, as the command line gave them.
static HitmRecordOptions recordOptions() {
  HitmRecordOptions O;
  O.Source = RecSource;
  O.Event = RecEvent;
  O.Period = RecPeriod;
  O.AllLines = RecAllLines;
  O.Peer = RecPeer;
  O.Output = RecOutput;
  O.Replay = RecReplay;
  O.Program = RecProgram;
  O.Args.assign(RecArgs.begin(), RecArgs.end());
  return O;
}

/// layout-falseshare record: returns the program's exit status on success.
static Expected<int> runRecord() {
  HitmRecordOptions O = recordOptions();
  Expected<HitmRecordResult> R = recordHitm(O);
  if (!R)
    return R.takeError();
  const HitmStats &Stats = R->Stats;
  errs() << formatv("{0}: {1} samples, {2} with a data address ({3} loads, "
                    "{4} stores), {5} HITM ({6} remote); {7} lines, {8} with "
                    "HITM; wrote {9}\n",
                    Tool, Stats.Samples, Stats.Memory, Stats.Loads,
                    Stats.Stores, Stats.Hitm, Stats.RemoteHitm, Stats.Lines,
                    Stats.HitmLines, O.Output);
  if (R->Lost)
    WithColor::warning(errs(), Tool)
        << R->Lost << " samples lost by the kernel (try a larger --period)\n";
  if (R->Signal)
    return ExitCheckFailed;
  return R->ExitCode;
}

static const char *const Overview =
    "layout-falseshare: false sharing from KeelFalseSharing.so "
    "instrumentation (no PMU needed) or from HITM memory samples\n";

int main(int argc, char **argv) {
  return runTool(argc, argv, {Tool, Overview, {&Cat, &RecCat}},
                 []() -> Expected<int> {
                   if (ReportCmd)
                     return exitStatus(runReport());
                   if (RecordCmd)
                     return runRecord();
                   return usageError("give a subcommand: report or record");
                 });
}
