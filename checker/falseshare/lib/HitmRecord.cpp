//===- HitmRecord.cpp - record HITM samples into a keelfs report ----------===//
//
// The options are checked in the order the command line reads them, the
// program is found (and made absolute: the report's `exe` must name it
// from any directory), then the samples come from a live run or a replayed
// ring of perf records, and the report is written.
//
//===----------------------------------------------------------------------===//
#include "keel/FalseShare/HitmRecord.h"
#include "keel/Profile/Binary.h"
#include "keel/Record/Recorder.h"
#include "keel/Record/RingBuffer.h"
#include "keel/Support/Diagnostics.h"
#include "keel/Support/OutputFile.h"
#include "keel/Support/Process.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"

using namespace llvm;
using namespace keel;
using namespace keel::fs;

namespace {

/// The options a recording needs before anything runs.
Error checkOptions(const HitmRecordOptions &O) {
  if (O.Source != "perf")
    return usageError("unknown --source={0} (only perf: without counters, "
                      "build with -fpass-plugin=KeelFalseSharing.so, "
                      "docs/false-sharing.md)",
                      O.Source);
  if (O.Program.empty())
    return usageError("give the program to run: layout-falseshare record -- "
                      "./prog args");
  if (O.Period == 0)
    return usageError("--period must be at least 1");
  return Error::success();
}

/// The program's real path (PATH lookup, then symlinks resolved).
Expected<std::string> programPath(StringRef Program) {
  Expected<std::string> Path = findCommand(Program);
  if (!Path)
    return Path.takeError();
  SmallString<256> Abs(*Path);
  if (!sys::fs::real_path(*Path, Abs))
    *Path = Abs.str().str();
  return Path;
}

/// The perf records of --replay, laid out as this tool's attributes make
/// the kernel write them.
Expected<PerfRecording> replay(const HitmRecordOptions &O) {
  Expected<std::string> Bytes = readWholeFile(O.Replay);
  if (!Bytes)
    return Bytes.takeError();
  RecordLayout L;
  L.SampleType = memorySampleType();
  L.ReadFormat = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
  L.SampleIdAll = true;
  L.EventName = O.Event;
  RecordParser P(std::move(L));
  if (Error E = P.parse(ArrayRef<uint8_t>(
          reinterpret_cast<const uint8_t *>(Bytes->data()), Bytes->size())))
    return inputError(O.Replay, 0, "{0}", toString(std::move(E)));
  return P.take();
}

RecordOptions recordOptions(const HitmRecordOptions &O) {
  RecordOptions Opts;
  Opts.Event = O.Event;
  Opts.LBR = "none";
  Opts.Period = O.Period;
  Opts.Freq = 0;
  Opts.CyclesEvent = "";
  Opts.InstructionsEvent = "";
  Opts.DataMmaps = true;
  Opts.MemorySamples = true;
  return Opts;
}

/// The samples: replayed, or a live run of the program.
Expected<RecordResult> samples(const HitmRecordOptions &O,
                               const std::string &Path) {
  RecordResult Result;
  if (!O.Replay.empty()) {
    Expected<PerfRecording> Rec = replay(O);
    if (!Rec)
      return Rec.takeError();
    Result.Rec = std::move(*Rec);
    return std::move(Result);
  }
  RecordOptions Opts = recordOptions(O);
  // Bad options (exit 2) and a missing PMU (exit 3) before anything runs.
  if (Expected<EventGroup> G = buildEventGroup(Opts); !G)
    return G.takeError();
  std::vector<std::string> Argv{Path};
  Argv.insert(Argv.end(), O.Args.begin(), O.Args.end());
  return record(Argv, Opts);
}

} // namespace

Expected<HitmRecordResult> keel::fs::recordHitm(const HitmRecordOptions &O) {
  if (Error E = checkOptions(O))
    return std::move(E);
  Expected<std::string> Path = programPath(O.Program);
  if (!Path)
    return Path.takeError();
  auto Bin = Binary::open(*Path);
  if (!Bin)
    return Bin.takeError();
  if (Error E = checkOutputPath(O.Output))
    return std::move(E);
  Expected<RecordResult> R = samples(O, *Path);
  if (!R)
    return R.takeError();

  HitmOptions HO;
  HO.EventIsHitm = eventCountsOnlyHitm(O.Event);
  HO.PeerIsHitm = O.Peer;
  HO.AllLines = O.AllLines;
  HitmRecordResult Out;
  Expected<RawReport> Raw =
      hitmReport(R->Rec, Bin->get(), *Path, HO, Out.Stats);
  if (!Raw)
    return Raw.takeError();
  if (Error E = writeOutput(O.Output, [&](raw_ostream &OS) {
        writeRawReport(*Raw, OS);
        return Error::success();
      }))
    return std::move(E);
  Out.Lost = R->Rec.Stats.LostEvents + R->Rec.Stats.LostSamples;
  Out.ExitCode = R->ExitCode;
  Out.Signal = R->Signal;
  return Out;
}
