//===- PerfSource.cpp - layout-record --source=perf (LBR sampling) ---------===//
//
// Hardware sampling with branch stacks through keelRecord: the
// program runs under a perf_event group (docs/recording.md), the samples
// can be kept in the keel-samples file (--samples) or as perf script text
// (--export=perf-script), and the part of the profile that ran in the
// program's binary becomes the address profile layout-record writes.
// --replay reads a keel-samples file instead of running the program, so the
// conversion is testable on machines without counters.
//
//===----------------------------------------------------------------------===//
#include "Sources.h"

#include "keel/Profile/Binary.h"
#include "keel/Profile/PerfData.h"
#include "keel/Record/PerfDataFile.h"
#include "keel/Record/Recorder.h"
#include "keel/Record/SampleFile.h"
#include "keel/Support/OutputFile.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"

using namespace llvm;

namespace keel {

cl::OptionCategory PerfCategory("layout-record --source=perf options");

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
                     "recorded; seed: old name, kept until 0.2) or none"),
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
static cl::opt<std::string>
    PerfReplay("replay",
               cl::desc("read a keel-samples file or a perf.data instead of "
                        "running the program (the program names the "
                        "binary)"),
               cl::value_desc("file"), cl::cat(PerfCategory));

static Expected<RecordResult> runOrReplay(const RecordRequest &Req,
                                          const RecordOptions &Opts) {
  if (PerfReplay.empty())
    return record(Req.Command, Opts);
  Expected<std::string> Text = readWholeFile(PerfReplay);
  if (!Text)
    return Text.takeError();
  Expected<PerfRecording> Rec =
      perfdata::looksLikePerfData(*Text) ? readPerfDataRecording(PerfReplay)
                                         : readSampleFile(*Text, PerfReplay);
  if (!Rec)
    return Rec.takeError();
  RecordResult R;
  R.Rec = std::move(*Rec);
  return R;
}

/// "perf: 812 samples (812 with branch stacks, 12,993 records), CPI 0.63".
static std::string summarize(const PerfRecording &Rec) {
  uint64_t WithStack = 0, Records = 0, Cycles = 0, Instructions = 0;
  for (const RecordedSample &S : Rec.Samples) {
    WithStack += !S.Sample.Stack.empty();
    Records += S.Sample.Stack.size();
    Cycles += S.Sample.Cycles;
    Instructions += S.Sample.Instructions;
  }
  std::string Out;
  raw_string_ostream OS(Out);
  OS << "perf: " << Rec.Samples.size() << " samples (" << WithStack
     << " with branch stacks, " << Records << " branch records)";
  if (Instructions)
    OS << ", CPI " << format("%.2f", double(Cycles) / double(Instructions));
  const RecordStats &S = Rec.Stats;
  if (S.LostEvents || S.LostSamples)
    OS << ", " << S.LostEvents + S.LostSamples << " events lost in "
       << S.LostRecords << " LOST records";
  if (S.Throttles)
    OS << ", throttled " << S.Throttles << " times";
  return Out;
}

Expected<Recording> recordWithPerf(const RecordRequest &Req, const Binary &Bin,
                                   QualityReport &Quality) {
  if (!PerfExport.empty() && PerfExport != "perf-script" &&
      PerfExport != "perf.data")
    return makeError("unknown --export={0} (expected perf-script or "
                     "perf.data)",
                     PerfExport);
  if (!PerfExport.empty() && PerfSamples.empty())
    return makeError("--export={0} needs --samples=FILE", PerfExport);
  std::string Export = PerfExport;
  if (Export.empty() && StringRef(PerfSamples).ends_with("perf.data"))
    Export = "perf.data";
  RecordOptions Opts;
  Opts.Event = PerfEvent;
  Opts.LBR = PerfLBR;
  Opts.Period = PerfPeriod;
  Opts.Freq = PerfFreq ? PerfFreq : (PerfPeriod ? 0 : 10000);
  Opts.CyclesEvent = PerfCyclesEvent;
  Opts.InstructionsEvent = PerfInstructionsEvent;
  Opts.Kernel = PerfKernel;
  Opts.Inherit = !PerfNoInherit;
  Opts.MmapPages = PerfMmapPages;
  Opts.DataMmaps = PerfDataMmaps;
  PerfDataWriteOptions WriteOpts;
  // Options are checked (exit 2) before anything runs.
  if (Error E = checkCompressLevel("--compress", PerfCompress))
    return E;
  WriteOpts.Compress = int(PerfCompress);
  if (Expected<EventGroup> G = buildEventGroup(Opts); !G)
    return G.takeError();
  if (Error E = checkOutputPath(PerfSamples))
    return std::move(E);

  Expected<RecordResult> R = runOrReplay(Req, Opts);
  if (!R)
    return R.takeError();
  if (!PerfSamples.empty())
    if (Error E = writeOutput(PerfSamples, [&](raw_ostream &OS) -> Error {
          if (Export == "perf-script")
            exportPerfScript(R->Rec, OS);
          else if (Export == "perf.data")
            return writePerfData(R->Rec, OS, WriteOpts);
          else
            writeSampleFile(R->Rec, OS);
          return Error::success();
        }))
      return std::move(E);

  Recording Out;
  Out.Profile = toAddressProfile(R->Rec, Bin, Quality);
  Out.ExitCode = R->ExitCode;
  Out.Crashed = R->Signal != 0;
  if (Out.Crashed)
    Out.CrashMessage = formatv("signal {0}", R->Signal).str();
  Out.Summary = summarize(R->Rec);
  auto Rec = std::make_shared<PerfRecording>(std::move(R->Rec));
  Out.WritePerfData = [Rec, WriteOpts](raw_ostream &OS) {
    return writePerfData(*Rec, OS, WriteOpts);
  };
  return Out;
}

} // namespace keel
