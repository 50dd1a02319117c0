//===- Load.cpp - load a profile of any format ----------------------------===//
#include "keel/Profile/Load.h"

#include "keel/Profile/Binary.h"
#include "keel/Profile/PerfData.h"
#include "keel/Support/Diagnostics.h"
#include "keel/Support/Input.h"
#include "keel/Support/Text.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;

namespace keel {

Expected<ProfileFormat> parseFormatName(StringRef Name) {
  auto F = StringSwitch<std::optional<ProfileFormat>>(Name)
               .Case("auto", ProfileFormat::Auto)
               .Cases("perf", "perf-script", ProfileFormat::PerfScript)
               .Case("fdata", ProfileFormat::Fdata)
               .Cases("pa", "pre-aggregated", ProfileFormat::PreAggregated)
               .Case("callgrind", ProfileFormat::Callgrind)
               .Cases("perf.data", "perfdata", ProfileFormat::PerfData)
               .Default(std::nullopt);
  if (!F)
    return inputError("--format", 0,
                      "unknown format '{0}' (expected auto, perf, fdata, pa, "
                      "callgrind or perf.data)",
                      Name);
  return *F;
}

StringRef formatName(ProfileFormat F) {
  switch (F) {
  case ProfileFormat::Auto:
    return "auto";
  case ProfileFormat::PerfScript:
    return "perf";
  case ProfileFormat::Fdata:
    return "fdata";
  case ProfileFormat::PreAggregated:
    return "pa";
  case ProfileFormat::Callgrind:
    return "callgrind";
  case ProfileFormat::PerfData:
    return "perf.data";
  }
  return "auto";
}

ProfileFormat detectFormat(StringRef Text) {
  if (perfdata::looksLikePerfData(Text))
    return ProfileFormat::PerfData;
  // The first non-blank, non-comment line decides.
  while (!Text.empty()) {
    auto [Line, Rest] = Text.split('\n');
    Text = Rest;
    StringRef L = Line.trim();
    if (L.empty())
      continue;
    if (L.starts_with("# callgrind format") || L.starts_with("version:") ||
        L.starts_with("creator:") || L.starts_with("events:"))
      return ProfileFormat::Callgrind;
    if (L.starts_with("#"))
      continue;
    // perf script --show-mmap-events: "PID PERF_RECORD_MMAP2 ...", which
    // would otherwise look like an fdata line.
    if (L.contains("PERF_RECORD_"))
      return ProfileFormat::PerfScript;
    if (L.starts_with("no_lbr") || L == "boltedcollection")
      return ProfileFormat::Fdata;
    if (L.size() > 2 && L[1] == ' ') {
      if (L[0] >= '0' && L[0] <= '5')
        return ProfileFormat::Fdata;
      if (StringRef("BFfrTRSE").contains(L[0]))
        return ProfileFormat::PreAggregated;
    }
    return ProfileFormat::PerfScript;
  }
  return ProfileFormat::PerfScript;
}

static Expected<LoadedProfile>
loadAnyFormat(StringRef Path, ProfileFormat Want, const Binary *Bin,
              QualityReport &Quality, const PerfScriptOptions &PerfOpts) {
  // Map the file: perf-script text can be gigabytes.
  auto MB = readInputFile(Path, InputKind::Profile);
  if (!MB)
    return MB.takeError();
  StringRef Text = (*MB)->getBuffer();
  if (Text.empty())
    return inputError(Path, 0, "an empty file: no profile records");
  if (Want == ProfileFormat::PerfData ||
      (Want == ProfileFormat::Auto && perfdata::looksLikePerfData(Text))) {
    auto F = perfdata::File::fromBuffer(std::move(*MB), Path);
    if (!F)
      return F.takeError();
    auto P = readPerfData(**F, Bin, Quality, PerfOpts);
    if (!P)
      return P.takeError();
    LoadedProfile LP;
    LP.Path = Path.str();
    LP.Format = ProfileFormat::PerfData;
    LP.Addr = std::move(*P);
    LP.NumItems = LP.Addr.NumEntries;
    LP.ItemName = "brstack entries";
    if (!LP.Addr.NumEntries) { // IP samples only (no branch stacks)
      LP.NumItems = LP.Addr.NumSamples;
      LP.ItemName = "samples";
    }
    return LP;
  }
  // Every other profile format read here is text; binary data (a perf.data, an
  // executable, random bytes) would only produce a confusing parse error.
  if (std::optional<size_t> At = firstBinaryByte(Text))
    return binaryDataError(Path, Text, *At);

  LoadedProfile LP;
  LP.Path = Path.str();
  LP.Format = Want == ProfileFormat::Auto ? detectFormat(Text) : Want;
  auto needBinary = [&]() -> Error {
    if (Bin)
      return Error::success();
    return inputError(Path, 0,
                      "a {0} profile holds addresses: give the binary with "
                      "--binary",
                      formatName(LP.Format));
  };
  switch (LP.Format) {
  case ProfileFormat::Fdata: {
    auto P = readFdata(Text, Path);
    if (!P)
      return P.takeError();
    LP.Symbolic = true;
    LP.Sym = std::move(*P);
    LP.NumItems = LP.Sym.Branches.size() + LP.Sym.Samples.size() +
                  LP.Sym.MemAccesses.size();
    return LP;
  }
  case ProfileFormat::PreAggregated: {
    auto P = readPreAggregated(Text, Path, Bin, Quality);
    if (!P)
      return P.takeError();
    LP.Addr = std::move(*P);
    break;
  }
  case ProfileFormat::PerfScript: {
    // Stream real files (only the first page of the mapping was touched).
    auto P = Path == "-" ? readPerfScript(Text, Path, Bin, Quality, PerfOpts)
                         : readPerfScriptFile(Path, Bin, Quality, PerfOpts);
    if (!P)
      return P.takeError();
    LP.Addr = std::move(*P);
    break;
  }
  case ProfileFormat::Callgrind: {
    if (Error E = needBinary())
      return std::move(E);
    auto P = readCallgrind(Text, Path, *Bin, Quality);
    if (!P)
      return P.takeError();
    LP.Addr = std::move(*P);
    break;
  }
  case ProfileFormat::PerfData:
  case ProfileFormat::Auto:
    llvm_unreachable("format was resolved above");
  }
  LP.NumItems = LP.Addr.Branches.size() + LP.Addr.FallThroughs.size() +
                LP.Addr.IPSamples.size();
  if (LP.Format == ProfileFormat::PerfScript) {
    LP.NumItems = LP.Addr.NumEntries;
    LP.ItemName = "brstack entries";
    if (!LP.Addr.NumEntries) { // IP samples or callchains, as for perf.data
      LP.NumItems = LP.Addr.NumSamples;
      LP.ItemName = "samples";
    }
  }
  return LP;
}

/// Whether \p LP holds anything a tool can use.
static bool hasRecords(const LoadedProfile &LP) {
  if (LP.Symbolic)
    return !LP.Sym.Branches.empty() || !LP.Sym.Samples.empty() ||
           !LP.Sym.MemAccesses.empty();
  return !LP.Addr.Branches.empty() || !LP.Addr.FallThroughs.empty() ||
         !LP.Addr.IPSamples.empty();
}

Expected<LoadedProfile> loadProfile(StringRef Path, ProfileFormat Want,
                                    const Binary *Bin, QualityReport &Quality,
                                    const PerfScriptOptions &PerfOpts) {
  Expected<LoadedProfile> LP =
      loadAnyFormat(Path, Want, Bin, Quality, PerfOpts);
  if (!LP || hasRecords(*LP))
    return LP;
  // A profile with nothing in it must not give a report that looks like
  // success (an empty order, "0 functions").
  if (!LP->NumItems)
    return inputError(Path, 0, "no profile records (an empty {0} profile)",
                      formatName(LP->Format));
  return inputError(Path, 0,
                    "no usable profile records: none of its {0} {1} is in "
                    "the binary's code",
                    LP->NumItems, LP->ItemName);
}

Error mergeByAddress(AddressProfile &Merged, const LoadedProfile &LP,
                     const Binary &Bin, QualityReport &Quality) {
  StringRef ID = LP.Symbolic ? LP.Sym.BuildID : LP.Addr.BuildID;
  if (!ID.empty() && !Bin.buildID().empty() && ID != Bin.buildID())
    return inputError(LP.Path, 0, "profile of build-id {0}, binary has {1}",
                      ID, Bin.buildID());
  Merged.merge(LP.Symbolic ? resolve(LP.Sym, Bin, Quality) : LP.Addr);
  return Error::success();
}

Expected<AddressProfile> loadAddressProfiles(const Binary &Bin,
                                             ArrayRef<std::string> Paths,
                                             QualityReport &Quality,
                                             const PerfScriptOptions &PerfOpts) {
  AddressProfile Merged;
  for (const std::string &Path : Paths) {
    auto LP = loadProfile(Path, ProfileFormat::Auto, &Bin, Quality, PerfOpts);
    if (!LP)
      return LP.takeError();
    if (Error E = mergeByAddress(Merged, *LP, Bin, Quality))
      return std::move(E);
  }
  return Merged;
}

std::string callGraphSourceName(ArrayRef<LoadedProfile> Profiles) {
  std::vector<StringRef> Names;
  bool CallChains = false;
  for (const LoadedProfile &LP : Profiles) {
    bool Branches =
        LP.Symbolic ? !LP.Sym.Branches.empty()
                    : callEdgeSource(LP.Addr) == CallEdgeSource::Branches;
    CallChains |= LP.Symbolic ? !LP.Sym.CallChainArcs.empty()
                              : !LP.Addr.CallChainArcs.empty();
    if (!Branches)
      continue;
    StringRef Name = "LBR";
    if (LP.Format == ProfileFormat::Callgrind)
      Name = "valgrind exact calls";
    else if (LP.Format == ProfileFormat::Fdata)
      Name = "fdata branch records";
    else if (LP.Format == ProfileFormat::PreAggregated)
      Name = "pre-aggregated branch records";
    if (!is_contained(Names, Name))
      Names.push_back(Name);
  }
  if (!Names.empty())
    return join(Names, " + ");
  return CallChains ? "callchains" : "none";
}

} // namespace keel
