//===- layout-record.cpp - run a program and record its branch profile ----===//
//
//   layout-record --source=valgrind -o OUT [--format=fdata|preagg] \
//                 [--keep-callgrind=FILE] -- prog args...
//
// Phases: pick the source, open the program's binary, run the program under
// the source, turn the address profile into the output format, write it
// atomically, print a summary, exit with the program's exit status.
//
//===----------------------------------------------------------------------===//
#include "keel/Profile/Binary.h"
#include "keel/Profile/Formats.h"
#include "keel/Record/Sources.h"
#include "keel/Support/OutputFile.h"
#include "keel/Support/Process.h"
#include "keel/Support/Tool.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;
using namespace keel;

static const char *Tool = "layout-record";

static cl::OptionCategory Cat("layout-record options");
static cl::opt<std::string>
    SourceName("source", cl::desc("profiling source: valgrind (exact, "
                                  "PMU-free, callgrind) or perf (LBR "
                                  "sampling, needs counters)"),
               cl::init("valgrind"), cl::cat(Cat));
static cl::opt<std::string> Output("o", cl::desc("output profile"),
                                   cl::value_desc("file"), cl::Required,
                                   cl::cat(Cat));
enum class Format { Fdata, PreAgg, PerfData };
static cl::opt<Format> OutFormat(
    "format", cl::desc("output format"), cl::init(Format::Fdata),
    cl::values(clEnumValN(Format::Fdata, "fdata",
                          "BOLT fdata (llvm-bolt -data=): taken branches and "
                          "block-to-block fall-through edges"),
               clEnumValN(Format::PreAgg, "preagg",
                          "BOLT pre-aggregated (perf2bolt --pa): B and F "
                          "records"),
               clEnumValN(Format::PreAgg, "pa",
                          "same as preagg (layout-profile's name)"),
               clEnumValN(Format::PerfData, "perf.data",
                          "Linux perf's perf.data with every sample "
                          "(--source=perf; chosen by an -o name ending "
                          "in perf.data)")),
    cl::cat(Cat));
// layout-profile convert names the output format --to.
static cl::alias OutFormatTo("to", cl::desc("alias for --format"),
                             cl::aliasopt(OutFormat), cl::cat(Cat));
static cl::opt<std::string>
    KeepCallgrind("keep-callgrind",
                  cl::desc("also keep callgrind's own output here "
                           "(--source=valgrind)"),
                  cl::value_desc("file"), cl::cat(Cat));
static cl::opt<std::string> Program(cl::Positional, cl::desc("<program>"),
                                    cl::Required, cl::cat(Cat));
static cl::list<std::string> ProgramArgs(cl::ConsumeAfter,
                                         cl::desc("<program arguments>..."),
                                         cl::cat(Cat));

// --source=perf (keel/Record/Sources.h: PerfSourceOptions).
static cl::OptionCategory PerfCategory("layout-record --source=perf options");

static cl::opt<std::string>
    PerfEvent("event",
              cl::desc("sampling event: cycles, instructions, branches, a "
                       "libpfm4 name (BR_INST_RETIRED.NEAR_TAKEN, AMD's "
                       "RETIRED_TAKEN_BRANCH_INSTRUCTIONS), or the software "
                       "clock cpu-clock (no PMU, no branch stacks)"),
              cl::init("cycles"), cl::cat(PerfCategory));
static cl::opt<std::string>
    PerfLBR("lbr",
            cl::desc("branch-stack filter: any, call, return, ind_call, user, "
                     "kernel (comma-separated), user-callret (= "
                     "call,return,user, as Yamamoto et al. and Ono et al. "
                     "recorded) or none"),
            cl::init("any"), cl::cat(PerfCategory));
static cl::opt<uint64_t>
    PerfPeriod("period", cl::desc("sample every N events (instead of --freq)"),
               cl::init(0), cl::cat(PerfCategory));
static cl::opt<uint64_t>
    PerfFreq("freq",
             cl::desc("samples per second (default 10000: the 100 us of "
                      "Ono et al.)"),
             cl::init(0), cl::cat(PerfCategory));
static cl::opt<std::string> PerfCyclesEvent(
    "cycles-event",
    cl::desc("counter read with every sample for cycles ('' = none), e.g. "
             "CPU_CLK_UNHALTED.THREAD_P"),
    cl::init("cycles"), cl::cat(PerfCategory));
static cl::opt<std::string> PerfInstructionsEvent(
    "instructions-event",
    cl::desc("counter read with every sample for instructions ('' = none), "
             "e.g. INST_RETIRED.ANY_P"),
    cl::init("instructions"), cl::cat(PerfCategory));
static cl::opt<bool> PerfKernel("kernel",
                                cl::desc("sample kernel code too (needs "
                                         "perf_event_paranoid <= 1)"),
                                cl::cat(PerfCategory));
static cl::opt<bool> PerfNoInherit("no-inherit",
                                   cl::desc("do not follow threads and "
                                            "children"),
                                   cl::cat(PerfCategory));
static cl::opt<bool>
    PerfDataMmaps("data-mmaps",
                  cl::desc("also record mappings of data (mmap_data), for "
                           "data-layout work"),
                  cl::cat(PerfCategory));
static cl::opt<unsigned>
    PerfMmapPages("mmap-pages",
                  cl::desc("data pages per ring buffer (a power of two)"),
                  cl::init(128), cl::cat(PerfCategory));
static cl::opt<std::string>
    PerfSamples("samples",
                cl::desc("also write the samples here (keel-samples v1, "
                         "docs/formats/keel-samples.md)"),
                cl::value_desc("file"), cl::cat(PerfCategory));
static cl::opt<std::string> PerfExport(
    "export",
    cl::desc("write --samples in another format: perf-script (the text of "
             "perf script -F pid,tid,time,ip,brstack --ns "
             "--show-mmap-events) or perf.data (Linux perf's own file; "
             "also chosen by a --samples name ending in perf.data)"),
    cl::value_desc("format"), cl::cat(PerfCategory));
static cl::opt<unsigned> PerfCompress(
    "compress",
    cl::desc("perf.data output: compress the records with ZSTD at this "
             "level (1-22), as perf record -z does; 0 (the default) writes "
             "them plain"),
    cl::init(0), cl::value_desc("level"), cl::cat(PerfCategory));
static cl::opt<uint64_t> PerfRounds(
    "rounds",
    cl::desc("perf.data output: lay the records out as perf record's "
             "per-CPU buffers do, in rounds of this many nanoseconds, each "
             "round's samples CPU by CPU, then its COMM/MMAP2 records, then "
             "FINISHED_ROUND; 0 (the default): in time order"),
    cl::init(0), cl::value_desc("ns"), cl::cat(PerfCategory));
static cl::opt<std::string>
    PerfReplay("replay",
               cl::desc("read a keel-samples file or a perf.data instead of "
                        "running the program (the program names the "
                        "binary)"),
               cl::value_desc("file"), cl::cat(PerfCategory));

static const char *Overview = R"(layout-record: run a program and record its branch profile

  layout-record --source=valgrind -o prog.fdata -- ./prog args...

The output names functions and offsets of the program's binary (fdata) or
its link-time addresses (preagg). A summary line goes to stderr; the
program's own stdout and stderr are left alone.

Exit status: the program's exit status (a note on stderr when it is not 0;
the profile is written either way). 1 if the program was killed by a
signal (the profile of the part that ran is still written). 2 for bad
usage or a profile that cannot be read, 3 if the source cannot run here
(valgrind not installed).
)";

/// The sources, by --source name.
static const struct {
  const char *Name;
  RecordFn Record;
} Sources[] = {
    {"valgrind", recordWithValgrind},
    {"perf", recordWithPerf},
};

static Error writeProfile(const Recording &Rec, const Binary &Bin,
                          QualityReport &Quality) {
  const AddressProfile &AP = Rec.Profile;
  return writeOutput(Output, [&](raw_ostream &OS) -> Error {
    if (OutFormat == Format::PerfData)
      return Rec.WritePerfData(OS);
    if (OutFormat == Format::PreAgg)
      writePreAggregated(AP, OS);
    else
      writeFdata(symbolizeForFdata(AP, Bin, Quality), OS);
    return Error::success();
  });
}

/// "N instructions executed in M functions, B taken branches (R records)".
static void printSummary(const Recording &Rec, const Binary &Bin,
                         QualityReport &Quality) {
  QualityReport Ignored; // functionStats re-checks what the reader counted
  uint64_t Instructions = 0, Functions = 0, Branches = 0;
  if (auto Stats = functionStats(Rec.Profile, Bin, Ignored)) {
    for (const FunctionStats &F : *Stats)
      if (F.Instructions) {
        Instructions += F.Instructions;
        ++Functions;
      }
  } else {
    consumeError(Stats.takeError());
  }
  for (const auto &[K, C] : Rec.Profile.Branches)
    Branches += C.Count;
  errs() << Tool << ": " << Rec.Summary << "; " << Instructions
         << " instructions executed in " << Functions << " functions of "
         << Bin.path() << ", " << Branches << " taken branches ("
         << Rec.Profile.Branches.size() << " records) -> " << Output << '\n';
  Quality.print(errs(), Tool, Rec.Profile.Branches.size() + Instructions,
                "branch records + instructions");
}

static PerfSourceOptions perfOptions() {
  PerfSourceOptions P;
  P.Event = PerfEvent;
  P.LBR = PerfLBR;
  P.Period = PerfPeriod;
  P.Freq = PerfFreq;
  P.CyclesEvent = PerfCyclesEvent;
  P.InstructionsEvent = PerfInstructionsEvent;
  P.Kernel = PerfKernel;
  P.NoInherit = PerfNoInherit;
  P.DataMmaps = PerfDataMmaps;
  P.MmapPages = PerfMmapPages;
  P.Samples = PerfSamples;
  P.Export = PerfExport;
  P.Compress = PerfCompress;
  P.RoundNs = PerfRounds;
  P.Replay = PerfReplay;
  return P;
}

/// Record the program with the chosen source and write the profile.
static Expected<int> recordProgram() {
  RecordFn Record = nullptr;
  for (const auto &S : Sources)
    if (SourceName == S.Name)
      Record = S.Record;
  if (!Record) {
    WithColor::error(errs(), Tool) << "unknown --source=" << SourceName << '\n';
    return ExitBadInput;
  }

  // The binary the profile is about: the program as the shell would find it.
  auto Path = findCommand(Program);
  if (!Path)
    return Path.takeError();
  auto Bin = Binary::open(*Path);
  if (!Bin)
    return Bin.takeError();

  if (OutFormat.getNumOccurrences() == 0 &&
      StringRef(Output).ends_with("perf.data"))
    OutFormat = Format::PerfData;
  if (OutFormat == Format::PerfData && SourceName != "perf") {
    WithColor::error(errs(), Tool)
        << "--format=perf.data needs --source=perf (valgrind keeps no "
           "samples)\n";
    return ExitBadInput;
  }

  // The output must be writable before the program runs (a long run must
  // not be lost to a typo, and a bad path must leave nothing behind).
  if (Error E = checkOutputPath(Output))
    return std::move(E);

  RecordRequest Req;
  Req.Command.push_back(Program);
  Req.Command.insert(Req.Command.end(), ProgramArgs.begin(), ProgramArgs.end());
  Req.KeepRaw = KeepCallgrind;
  Req.Perf = perfOptions();
  QualityReport Quality;
  auto Rec = Record(Req, **Bin, Quality);
  if (!Rec)
    return Rec.takeError();

  if (Error E = writeProfile(*Rec, **Bin, Quality))
    return std::move(E);
  printSummary(*Rec, **Bin, Quality);

  if (Rec->Crashed) {
    WithColor::note(errs(), Tool)
        << "the program was killed (" << Rec->CrashMessage
        << "); the profile covers the part that ran\n";
    return ExitCheckFailed;
  }
  if (Rec->ExitCode != 0)
    WithColor::note(errs(), Tool)
        << "the program exited with status " << Rec->ExitCode << '\n';
  return Rec->ExitCode;
}

int main(int argc, char **argv) {
  return runTool(argc, argv, {Tool, Overview, {&Cat, &PerfCategory}},
                 recordProgram);
}
