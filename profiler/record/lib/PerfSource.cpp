//===- PerfSource.cpp - layout-record --source=perf (LBR sampling) --------===//
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
#include "keel/Record/Sources.h"

#include "keel/Profile/Binary.h"
#include "keel/Profile/PerfData.h"
#include "keel/Record/PerfDataFile.h"
#include "keel/Record/Recorder.h"
#include "keel/Record/SampleFile.h"
#include "keel/Support/OutputFile.h"

#include "llvm/Support/Format.h"

using namespace llvm;

namespace keel {

static Expected<RecordResult> runOrReplay(const RecordRequest &Req,
                                          const RecordOptions &Opts) {
  const std::string &Replay = Req.Perf.Replay;
  if (Replay.empty())
    return record(Req.Command, Opts);
  Expected<std::string> Text = readWholeFile(Replay);
  if (!Text)
    return Text.takeError();
  Expected<PerfRecording> Rec =
      perfdata::looksLikePerfData(*Text) ? readPerfDataRecording(Replay)
                                         : readSampleFile(*Text, Replay);
  if (!Rec)
    return Rec.takeError();
  RecordResult R;
  R.Rec = std::move(*Rec);
  return R;
}

std::string summarizePerfRecording(const PerfRecording &Rec) {
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

/// The recorder's options from --source=perf's.
static RecordOptions recorderOptions(const PerfSourceOptions &P) {
  RecordOptions Opts;
  Opts.Event = P.Event;
  Opts.LBR = P.LBR;
  Opts.Period = P.Period;
  Opts.Freq = P.Freq ? P.Freq : (P.Period ? 0 : 10000);
  Opts.CyclesEvent = P.CyclesEvent;
  Opts.InstructionsEvent = P.InstructionsEvent;
  Opts.Kernel = P.Kernel;
  Opts.Inherit = !P.NoInherit;
  Opts.MmapPages = P.MmapPages;
  Opts.DataMmaps = P.DataMmaps;
  return Opts;
}

Expected<Recording> recordWithPerf(const RecordRequest &Req, const Binary &Bin,
                                   QualityReport &Quality) {
  const PerfSourceOptions &P = Req.Perf;
  const std::string &PerfExport = P.Export, &PerfSamples = P.Samples;
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
  RecordOptions Opts = recorderOptions(P);
  PerfDataWriteOptions WriteOpts;
  // Options are checked (exit 2) before anything runs.
  if (Error E = checkCompressLevel("--compress", P.Compress))
    return E;
  WriteOpts.Compress = int(P.Compress);
  WriteOpts.RoundNs = P.RoundNs;
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
  Out.Summary = summarizePerfRecording(R->Rec);
  auto Rec = std::make_shared<PerfRecording>(std::move(R->Rec));
  Out.WritePerfData = [Rec, WriteOpts](raw_ostream &OS) {
    return writePerfData(*Rec, OS, WriteOpts);
  };
  return Out;
}

} // namespace keel
