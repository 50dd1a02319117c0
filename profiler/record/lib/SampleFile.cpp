//===- SampleFile.cpp - the keel-samples file ------------------------------===//
//
// Format (docs/formats/keel-samples.md), one record per line, fields
// separated by one tab, free text (paths, commands) escaped as \t \n \\:
//   # keel-samples v1
//   command  ARG...
//   event    NAME
//   counters CYCLES-EVENT|-  INSTRUCTIONS-EVENT|-
//   sampling freq|period  N
//   lbr      FILTER            (e.g. any,user; none)
//   stats    lost-records=N lost-events=N lost-samples=N throttle=N
//            unthrottle=N unknown=N
//   mmap     PID TID TIME 0xSTART 0xLEN 0xPGOFF PROT BUILDID|- PATH
//   comm     PID TID TIME exec|- NAME
//   fork|exit PID PPID TID PTID TIME
//   sample   PID TID TIME CPU PERIOD 0xIP CYCLES INSTRUCTIONS BRANCH...
// BRANCH is 0xFROM/0xTO/M|P|-/X|-/A|-/CYCLES/TYPE|- (newest first), the
// perf script brstack syntax plus the branch type. Other lines starting
// with '#' are comments.
//
//===----------------------------------------------------------------------===//
#include "keel/Record/SampleFile.h"
#include "keel/Profile/MappingMatch.h"
#include "keel/Profile/Binary.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <map>

using namespace llvm;

namespace keel {

namespace {

std::string escape(StringRef S) {
  std::string Out;
  for (char C : S) {
    if (C == '\\')
      Out += "\\\\";
    else if (C == '\t')
      Out += "\\t";
    else if (C == '\n')
      Out += "\\n";
    else
      Out += C;
  }
  return Out;
}

std::string unescape(StringRef S) {
  std::string Out;
  for (size_t I = 0; I < S.size(); ++I) {
    if (S[I] == '\\' && I + 1 < S.size()) {
      char N = S[++I];
      Out += N == 't' ? '\t' : N == 'n' ? '\n' : N;
    } else {
      Out += S[I];
    }
  }
  return Out;
}

void writeBranch(raw_ostream &OS, const LBREntry &E, bool WithType) {
  OS << "0x" << utohexstr(E.From, true) << "/0x" << utohexstr(E.To, true)
     << '/' << (E.Mispred ? 'M' : E.Predicted ? 'P' : '-') << '/'
     << (E.InTx ? 'X' : '-') << '/' << (E.Abort ? 'A' : '-') << '/'
     << E.Cycles;
  if (WithType)
    OS << '/' << (E.Type.empty() ? "-" : E.Type);
}

std::string orDash(StringRef S) { return S.empty() ? "-" : S.str(); }

/// Line-by-line reader with file:line errors.
class Reader {
public:
  Reader(StringRef FileName) : FileName(FileName) {}
  Expected<PerfRecording> read(StringRef Text);

private:
  template <typename... Ts> Error fail(const char *Fmt, Ts &&...Vals) {
    return inputError(FileName, Line, Fmt, std::forward<Ts>(Vals)...);
  }
  Error need(ArrayRef<StringRef> F, size_t N) {
    if (F.size() < N)
      return fail("'{0}' needs {1} fields, found {2}", F[0], N - 1,
                  F.size() - 1);
    return Error::success();
  }
  template <typename T> Error num(StringRef S, T &V, unsigned Radix = 10) {
    StringRef Digits = S;
    if (Radix == 16 && !Digits.consume_front("0x"))
      return fail("expected a 0x-prefixed hex number, found '{0}'", S);
    unsigned long long X;
    if (Digits.getAsInteger(Radix, X) || X > std::numeric_limits<T>::max())
      return fail("bad number '{0}'", S);
    V = static_cast<T>(X);
    return Error::success();
  }
  Error branch(StringRef S, LBREntry &E);
  Error line(ArrayRef<StringRef> F, PerfRecording &R);

  StringRef FileName;
  unsigned Line = 0;
};

Error Reader::branch(StringRef S, LBREntry &E) {
  SmallVector<StringRef, 7> P;
  S.split(P, '/');
  if (P.size() != 7)
    return fail("bad branch record '{0}' (expected "
                "0xFROM/0xTO/M|P|-/X|-/A|-/CYCLES/TYPE)",
                S);
  if (Error Err = num(P[0], E.From, 16))
    return Err;
  if (Error Err = num(P[1], E.To, 16))
    return Err;
  if (P[2].size() != 1 || !StringRef("MP-").contains(P[2][0]) ||
      !(P[3] == "X" || P[3] == "-") || !(P[4] == "A" || P[4] == "-"))
    return fail("bad branch flags in '{0}'", S);
  E.Mispred = P[2] == "M";
  E.Predicted = P[2] == "P";
  E.InTx = P[3] == "X";
  E.Abort = P[4] == "A";
  if (Error Err = num(P[5], E.Cycles))
    return Err;
  E.Type = P[6] == "-" ? "" : P[6].str();
  return Error::success();
}

Error Reader::line(ArrayRef<StringRef> F, PerfRecording &R) {
  StringRef Kind = F[0];
  RecordInfo &I = R.Info;
  if (Kind == "sample") {
    if (Error E = need(F, 9))
      return E;
    RecordedSample S;
    RawSample &X = S.Sample;
    X.Event = I.Event;
    if (Error E = joinErrors(
            joinErrors(num(F[1], X.Pid), num(F[2], X.Tid)),
            joinErrors(
                joinErrors(num(F[3], X.Time), num(F[4], S.CPU)),
                joinErrors(joinErrors(num(F[5], S.Period), num(F[6], X.IP, 16)),
                           joinErrors(num(F[7], X.Cycles),
                                      num(F[8], X.Instructions))))))
      return E;
    for (StringRef B : F.drop_front(9)) {
      X.Stack.emplace_back();
      if (Error E = branch(B, X.Stack.back()))
        return E;
    }
    R.Samples.push_back(std::move(S));
    return Error::success();
  }
  if (Kind == "mmap") {
    if (Error E = need(F, 10))
      return E;
    Mapping M;
    if (Error E = joinErrors(
            joinErrors(joinErrors(num(F[1], M.Pid), num(F[2], M.Tid)),
                       joinErrors(num(F[3], M.Time), num(F[4], M.Start, 16))),
            joinErrors(joinErrors(num(F[5], M.Length, 16),
                                  num(F[6], M.PgOff, 16)),
                       num(F[7], M.Prot))))
      return E;
    M.BuildID = F[8] == "-" ? "" : F[8].str();
    M.Path = unescape(F[9]);
    R.Mappings.push_back(std::move(M));
    return Error::success();
  }
  if (Kind == "comm") {
    if (Error E = need(F, 6))
      return E;
    TaskEvent T;
    T.Kind = TaskEvent::Comm;
    if (Error E = joinErrors(joinErrors(num(F[1], T.Pid), num(F[2], T.Tid)),
                             num(F[3], T.Time)))
      return E;
    T.Exec = F[4] == "exec";
    T.Name = unescape(F[5]);
    R.Tasks.push_back(std::move(T));
    return Error::success();
  }
  if (Kind == "fork" || Kind == "exit") {
    if (Error E = need(F, 6))
      return E;
    TaskEvent T;
    T.Kind = Kind == "fork" ? TaskEvent::Fork : TaskEvent::Exit;
    if (Error E = joinErrors(
            joinErrors(joinErrors(num(F[1], T.Pid), num(F[2], T.PPid)),
                       joinErrors(num(F[3], T.Tid), num(F[4], T.PTid))),
            num(F[5], T.Time)))
      return E;
    R.Tasks.push_back(std::move(T));
    return Error::success();
  }
  if (Kind == "command") {
    for (StringRef A : F.drop_front())
      I.Command.push_back(unescape(A));
    return Error::success();
  }
  if (Kind == "event") {
    if (Error E = need(F, 2))
      return E;
    I.Event = unescape(F[1]);
    return Error::success();
  }
  if (Kind == "counters") {
    if (Error E = need(F, 3))
      return E;
    I.CyclesEvent = F[1] == "-" ? "" : unescape(F[1]);
    I.InstructionsEvent = F[2] == "-" ? "" : unescape(F[2]);
    return Error::success();
  }
  if (Kind == "sampling") {
    if (Error E = need(F, 3))
      return E;
    if (F[1] != "freq" && F[1] != "period")
      return fail("sampling is 'freq' or 'period', not '{0}'", F[1]);
    return num(F[2], F[1] == "freq" ? I.Freq : I.Period);
  }
  if (Kind == "lbr") {
    if (Error E = need(F, 2))
      return E;
    I.LBR = F[1].str();
    return Error::success();
  }
  if (Kind == "stats") {
    RecordStats &S = R.Stats;
    std::pair<StringRef, uint64_t *> Keys[] = {
        {"lost-records", &S.LostRecords}, {"lost-events", &S.LostEvents},
        {"lost-samples", &S.LostSamples}, {"throttle", &S.Throttles},
        {"unthrottle", &S.Unthrottles},   {"unknown", &S.Unknown}};
    for (StringRef KV : F.drop_front()) {
      StringRef K = KV.split('=').first, V = KV.split('=').second;
      auto *It = llvm::find_if(Keys, [&](auto &P) { return P.first == K; });
      if (It == std::end(Keys))
        return fail("unknown stats key '{0}'", K);
      if (Error E = num(V, *It->second))
        return E;
    }
    return Error::success();
  }
  return fail("unknown record '{0}'", Kind);
}

Expected<PerfRecording> Reader::read(StringRef Text) {
  PerfRecording R;
  bool First = true;
  while (!Text.empty()) {
    StringRef L;
    std::tie(L, Text) = Text.split('\n');
    ++Line;
    L = L.rtrim("\r");
    if (First) {
      First = false;
      if (L.starts_with("# keel-samples v") && L != SampleFileMagic)
        return fail("unsupported keel-samples version '{0}' (this tool "
                    "reads v1)",
                    L.drop_front(strlen("# keel-samples ")));
      if (L != SampleFileMagic)
        return fail("not a keel-samples file (the first line must be "
                    "'{0}')",
                    SampleFileMagic);
      continue;
    }
    if (L.empty() || L.starts_with("#"))
      continue;
    SmallVector<StringRef, 24> F;
    L.split(F, '\t');
    if (Error E = line(F, R))
      return std::move(E);
  }
  if (First)
    return inputError(FileName, 0, "empty file, not a keel-samples file");
  return R;
}

} // namespace

void writeSampleFile(const PerfRecording &R, raw_ostream &OS) {
  const RecordInfo &I = R.Info;
  OS << SampleFileMagic << '\n';
  OS << "# written by layout-record; format: docs/formats/keel-samples.md\n";
  OS << "command";
  for (const std::string &A : I.Command)
    OS << '\t' << escape(A);
  OS << "\nevent\t" << escape(orDash(I.Event)) << '\n';
  OS << "counters\t" << escape(orDash(I.CyclesEvent)) << '\t'
     << escape(orDash(I.InstructionsEvent)) << '\n';
  if (I.Freq)
    OS << "sampling\tfreq\t" << I.Freq << '\n';
  else
    OS << "sampling\tperiod\t" << I.Period << '\n';
  OS << "lbr\t" << (I.LBR.empty() ? "none" : I.LBR) << '\n';
  const RecordStats &S = R.Stats;
  OS << "stats\tlost-records=" << S.LostRecords
     << "\tlost-events=" << S.LostEvents << "\tlost-samples=" << S.LostSamples
     << "\tthrottle=" << S.Throttles << "\tunthrottle=" << S.Unthrottles
     << "\tunknown=" << S.Unknown << '\n';
  for (const Mapping &M : R.Mappings)
    OS << "mmap\t" << M.Pid << '\t' << M.Tid << '\t' << M.Time << "\t0x"
       << utohexstr(M.Start, true) << "\t0x" << utohexstr(M.Length, true)
       << "\t0x" << utohexstr(M.PgOff, true) << '\t' << M.Prot << '\t'
       << orDash(M.BuildID) << '\t' << escape(M.Path) << '\n';
  for (const TaskEvent &T : R.Tasks) {
    if (T.Kind == TaskEvent::Comm) {
      OS << "comm\t" << T.Pid << '\t' << T.Tid << '\t' << T.Time << '\t'
         << (T.Exec ? "exec" : "-") << '\t' << escape(T.Name) << '\n';
      continue;
    }
    OS << (T.Kind == TaskEvent::Fork ? "fork" : "exit") << '\t' << T.Pid
       << '\t' << T.PPid << '\t' << T.Tid << '\t' << T.PTid << '\t' << T.Time
       << '\n';
  }
  for (const RecordedSample &RS : R.Samples) {
    const RawSample &X = RS.Sample;
    OS << "sample\t" << X.Pid << '\t' << X.Tid << '\t' << X.Time << '\t'
       << RS.CPU << '\t' << RS.Period << "\t0x" << utohexstr(X.IP, true)
       << '\t' << X.Cycles << '\t' << X.Instructions;
    for (const LBREntry &E : X.Stack) {
      OS << '\t';
      writeBranch(OS, E, /*WithType=*/true);
    }
    OS << '\n';
  }
}

Expected<PerfRecording> readSampleFile(StringRef Text, StringRef FileName) {
  return Reader(FileName).read(Text);
}

void exportPerfScript(const PerfRecording &R, raw_ostream &OS) {
  // Executable mappings first, as `perf script --show-mmap-events` prints
  // them, so readers can map PIE and shared-library addresses back.
  for (const Mapping &M : R.Mappings) {
    if (M.Prot && !(M.Prot & 4 /*PROT_EXEC*/))
      continue;
    OS << format("%7u/%-7u %5llu.%09llu: PERF_RECORD_MMAP2 %u/%u: ", M.Pid,
                 M.Tid, (unsigned long long)(M.Time / 1000000000),
                 (unsigned long long)(M.Time % 1000000000), M.Pid, M.Tid)
       << "[0x" << utohexstr(M.Start, true) << "(0x"
       << utohexstr(M.Length, true) << ") @ 0x" << utohexstr(M.PgOff, true)
       << " 00:00 0 0]: " << ((M.Prot & 1) ? 'r' : '-')
       << ((M.Prot & 2) ? 'w' : '-') << 'x' << "p " << M.Path << '\n';
  }
  for (const RecordedSample &RS : R.Samples) {
    const RawSample &X = RS.Sample;
    OS << format("%7u/%-7u %5llu.%09llu: %16llx", X.Pid, X.Tid,
                 (unsigned long long)(X.Time / 1000000000),
                 (unsigned long long)(X.Time % 1000000000),
                 (unsigned long long)X.IP);
    for (const LBREntry &E : X.Stack) {
      OS << ' ';
      writeBranch(OS, E, /*WithType=*/false);
    }
    OS << '\n';
  }
}

AddressProfile toAddressProfile(const PerfRecording &R, const Binary &Bin,
                                QualityReport &Quality,
                                StringRef PathInProfile) {
  // Which mappings are Bin's (the rule of every recording reader:
  // MappingMatch.h), and their load bias.
  BinaryMappingMatcher Matcher(Bin, PathInProfile);
  std::map<const Mapping *, std::optional<uint64_t>> Bias;
  auto BiasOf = [&](const Mapping *M) -> std::optional<uint64_t> {
    if (!M)
      return std::nullopt;
    auto [It, New] = Bias.try_emplace(M);
    if (!New)
      return It->second;
    bool Match = BinaryMappingMatcher::matches(Matcher.match(M->Path, M->BuildID));
    if (Match)
      It->second = Bin.loadBias(M->Start, M->PgOff);
    return It->second;
  };

  AddressProfile AP;
  AP.BuildID = Bin.buildID().str();
  uint64_t Records = 0, OutsideSamples = 0, OutsideRecords = 0;
  // Only a record of every taken branch says what ran between two records.
  SmallVector<StringRef, 6> Words;
  StringRef(R.Info.LBR).split(Words, ',');
  const bool AllBranches = llvm::is_contained(Words, "any");
  for (const RecordedSample &RS : R.Samples) {
    RawSample X = RS.Sample;
    auto Rebase = [&](uint64_t &Addr) {
      std::optional<uint64_t> B = BiasOf(R.mappingAt(X.Pid, Addr, X.Time));
      Addr = B ? Addr - *B : 0;
      return B.has_value();
    };
    ++AP.NumSamples;
    Records += X.Stack.size();
    bool IPIn = Rebase(X.IP);
    OutsideSamples += !IPIn;
    for (LBREntry &E : X.Stack) {
      bool In = Rebase(E.From);
      In &= Rebase(E.To);
      if (!In) {
        ++OutsideRecords;
        continue;
      }
      AP.Branches[{E.From, E.To}] += BranchCount{1, E.Mispred ? 1u : 0u};
    }
    if (X.Stack.empty() && IPIn)
      ++AP.IPSamples[X.IP];
    // Newest first: the code between an older record's target and the next
    // newer record's source ran straight through.
    if (AllBranches)
      for (size_t I = 0; I + 1 < X.Stack.size(); ++I) {
        uint64_t Start = X.Stack[I + 1].To, End = X.Stack[I].From;
        if (Start && End && Start <= End)
          ++AP.FallThroughs[{Start, End}];
      }
    AP.Samples.push_back(std::move(X));
  }
  // Shares of what they are problems of, whatever total the tool prints.
  if (OutsideSamples)
    Quality.countOf("have their IP outside the binary", OutsideSamples,
                    AP.NumSamples, "samples");
  if (OutsideRecords)
    Quality.countOf("have an end outside the binary (dropped)",
                    OutsideRecords, Records, "branch records");
  return AP;
}

} // namespace keel
