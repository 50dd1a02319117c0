//===- Report.cpp - parse and classify libkeelfs.so reports ---------------===//
#include "keel/FalseShare/Report.h"
#include "keel/Support/Diagnostics.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <map>

using namespace llvm;

namespace keel::fs {

StringRef sharingName(Sharing S) {
  switch (S) {
  case Sharing::None:
    return "none";
  case Sharing::True:
    return "true";
  case Sharing::False:
    return "false";
  case Sharing::Mixed:
    return "mixed";
  }
  return "none";
}

// Undo the runtime's \xNN escapes.
static std::string unescape(StringRef S) {
  if (S == "-")
    return "";
  std::string Out;
  for (size_t I = 0; I < S.size(); ++I) {
    unsigned V;
    if (S[I] == '\\' && I + 3 < S.size() && S[I + 1] == 'x' &&
        !S.substr(I + 2, 2).getAsInteger(16, V)) {
      Out += char(V);
      I += 3;
    } else {
      Out += S[I];
    }
  }
  return Out;
}

static bool number(StringRef S, uint64_t &V) {
  if (S.consume_front("0x"))
    return !S.empty() && !S.getAsInteger(16, V);
  return !S.getAsInteger(10, V);
}

namespace {

/// A keelfs report read one record (one non-empty line) at a time; errors
/// name the file and the record's line.
class RawReportParser {
public:
  explicit RawReportParser(StringRef FileName) : FileName(FileName) {}
  /// Read the record \p Text on line \p Line.
  Error record(StringRef Text, unsigned Line);
  /// The report, once every record has been read (\p LastRecord: the line
  /// of the last one, for a truncated report).
  Expected<RawReport> finish(unsigned LastRecord);

private:
  Error bad(const char *What) const {
    return inputError(FileName, LineNo, "bad '{0}' record: {1}", F[0], What);
  }
  Error header();
  Error setting(); ///< line-size, sample, threads, bias
  Error exe();
  Error dropped();
  Error access();
  Error site();
  Error alloc();

  StringRef FileName;
  RawReport R;
  std::map<uint64_t, LineRecord> Lines;
  ThreadAccess *Cur = nullptr; ///< the last 'access' record's thread
  unsigned LineNo = 0;
  bool SawHeader = false, SawEnd = false;
  SmallVector<StringRef, 8> F; ///< the record's words
};

Error RawReportParser::record(StringRef Text, unsigned Line) {
  LineNo = Line;
  if (SawEnd)
    return inputError(FileName, LineNo, "text after 'end'");
  F.clear();
  Text.split(F, ' ', -1, false);
  if (!SawHeader)
    return header();
  StringRef K = F[0];
  if (K == "line-size" || K == "sample" || K == "threads" || K == "bias")
    return setting();
  if (K == "exe")
    return exe();
  if (K == "dropped")
    return dropped();
  if (K == "access")
    return access();
  if (K == "site")
    return site();
  if (K == "alloc")
    return alloc();
  if (K == "end") {
    SawEnd = true;
    return Error::success();
  }
  return inputError(FileName, LineNo, "unknown record '{0}'", K);
}

Error RawReportParser::header() {
  uint64_t V;
  if (F[0] != "keel-fs" || F.size() != 2 || !number(F[1], V))
    return inputError(FileName, LineNo,
                      "not a keelfs report (want 'keel-fs 1')");
  if (V != 1)
    return inputError(FileName, LineNo, "unsupported version {0}", V);
  SawHeader = true;
  return Error::success();
}

Error RawReportParser::setting() {
  uint64_t V;
  if (F.size() != 2 || !number(F[1], V))
    return bad("want one number");
  StringRef K = F[0];
  if (K == "line-size") {
    if (V != 64)
      return bad("only 64-byte lines are supported");
    R.LineSize = V;
  } else if (K == "sample") {
    if (V < 1 || V > (1u << 30))
      return bad("sampling period out of range");
    R.Sample = V;
  } else if (K == "threads") {
    R.Threads = V;
  } else {
    R.Bias = V;
  }
  return Error::success();
}

Error RawReportParser::exe() {
  if (F.size() != 2)
    return bad("want one path");
  R.Exe = unescape(F[1]);
  return Error::success();
}

Error RawReportParser::dropped() {
  uint64_t V[3];
  if (F.size() != 4 || !number(F[1], V[0]) || !number(F[2], V[1]) ||
      !number(F[3], V[2]))
    return bad("want three counts");
  R.DroppedLines = V[0];
  R.DroppedSlots = V[1];
  R.DroppedSites = V[2];
  return Error::success();
}

Error RawReportParser::access() {
  if (F.size() != 7)
    return bad("want address, thread, read mask, write mask, reads, "
               "writes");
  uint64_t V[6];
  for (unsigned I = 0; I < 6; ++I)
    if (!number(F[I + 1], V[I]))
      return bad("not a number");
  if (V[0] % R.LineSize)
    return bad("address is not at a line start");
  if (V[1] > UINT32_MAX)
    return bad("thread id out of range");
  LineRecord &LR = Lines[V[0]];
  LR.Addr = V[0];
  for (const ThreadAccess &T : LR.Threads)
    if (T.Tid == V[1])
      return bad("thread appears twice for this line");
  ThreadAccess T;
  T.Tid = V[1];
  T.RMask = V[2];
  T.WMask = V[3];
  T.Reads = V[4] * R.Sample;
  T.Writes = V[5] * R.Sample;
  LR.Threads.push_back(T);
  Cur = &LR.Threads.back();
  return Error::success();
}

Error RawReportParser::site() {
  if (!Cur)
    return bad("before any 'access' record");
  uint64_t V[3];
  if (F.size() != 6 || !number(F[1], V[0]) || !number(F[2], V[1]) ||
      !number(F[3], V[2]) || V[1] > UINT32_MAX || V[2] > UINT32_MAX)
    return bad("want count, line, column, function, file");
  SiteCount S;
  S.Count = V[0] * R.Sample;
  S.Line = V[1];
  S.Col = V[2];
  S.Function = unescape(F[4]);
  S.File = unescape(F[5]);
  Cur->Sites.push_back(std::move(S));
  return Error::success();
}

Error RawReportParser::alloc() {
  uint64_t V[4];
  if (F.size() != 7 || !number(F[1], V[0]) || !number(F[2], V[1]) ||
      !number(F[3], V[2]) || !number(F[4], V[3]) || V[2] > UINT32_MAX ||
      V[3] > UINT32_MAX)
    return bad("want address, size, line, column, function, file");
  if (V[1] == 0 || V[0] + V[1] < V[0])
    return bad("empty or wrapping allocation");
  HeapAlloc A;
  A.Start = V[0];
  A.Size = V[1];
  A.Site.Line = V[2];
  A.Site.Col = V[3];
  A.Site.Function = unescape(F[5]);
  A.Site.File = unescape(F[6]);
  R.Allocs.push_back(std::move(A));
  return Error::success();
}

Expected<RawReport> RawReportParser::finish(unsigned LastRecord) {
  if (!SawHeader)
    return inputError(FileName, 1, "empty report");
  if (!SawEnd)
    return inputError(FileName, LastRecord,
                      "report is truncated (no 'end'; did the program exit "
                      "normally?)");
  llvm::sort(R.Allocs, [](const HeapAlloc &X, const HeapAlloc &Y) {
    return X.Start < Y.Start;
  });
  for (auto &[A, LR] : Lines) {
    llvm::sort(LR.Threads, [](const ThreadAccess &X, const ThreadAccess &Y) {
      return X.Tid < Y.Tid;
    });
    for (ThreadAccess &T : LR.Threads)
      llvm::stable_sort(T.Sites, [](const SiteCount &X, const SiteCount &Y) {
        return X.Count > Y.Count;
      });
    R.Lines.push_back(std::move(LR));
  }
  return std::move(R);
}

} // namespace

Expected<RawReport> parseRawReport(StringRef Text, StringRef FileName) {
  RawReportParser P(FileName);
  unsigned LineNo = 0, LastRecord = 1;
  for (StringRef L : split(Text, '\n')) {
    ++LineNo;
    L = L.trim();
    if (L.empty())
      continue;
    LastRecord = LineNo;
    if (Error E = P.record(L, LineNo))
      return std::move(E);
  }
  return P.finish(LastRecord);
}

LineVerdict classifyLine(const LineRecord &L, uint64_t MinAccesses) {
  LineVerdict V;
  for (unsigned I = 0; I < L.Threads.size(); ++I) {
    const ThreadAccess &A = L.Threads[I];
    if (A.accesses() < MinAccesses)
      continue;
    for (unsigned J = I + 1; J < L.Threads.size(); ++J) {
      const ThreadAccess &B = L.Threads[J];
      if (B.accesses() < MinAccesses)
        continue;
      if (!A.WMask && !B.WMask)
        continue; // readers only: lines stay shared, no traffic
      uint64_t TA = A.RMask | A.WMask, TB = B.RMask | B.WMask;
      if ((A.WMask & TB) || (B.WMask & TA))
        V.TruePairs.push_back({I, J});
      else if (A.WMask && B.WMask)
        V.FalsePairs.push_back({I, J});
    }
  }
  if (!V.FalsePairs.empty())
    V.Kind = V.TruePairs.empty() ? Sharing::False : Sharing::Mixed;
  else if (!V.TruePairs.empty())
    V.Kind = Sharing::True;
  return V;
}

std::vector<WriteRun> writeRuns(const RawReport &R, uint64_t MinAccesses) {
  std::vector<WriteRun> Runs;
  for (const LineRecord &L : R.Lines)
    for (const ThreadAccess &T : L.Threads) {
      if (T.accesses() < MinAccesses || !T.WMask)
        continue;
      for (unsigned B = 0; B < 64;) {
        if (!(T.WMask >> B & 1)) {
          ++B;
          continue;
        }
        unsigned E = B;
        while (E < 64 && (T.WMask >> E & 1))
          ++E;
        Runs.push_back({L.Addr + B, L.Addr + E, T.Tid, T.Writes});
        B = E;
      }
    }
  llvm::sort(Runs, [](const WriteRun &X, const WriteRun &Y) {
    return std::tie(X.Tid, X.Start) < std::tie(Y.Tid, Y.Start);
  });
  // Merge a thread's runs that continue across a line boundary.
  std::vector<WriteRun> Merged;
  for (const WriteRun &W : Runs) {
    if (!Merged.empty() && Merged.back().Tid == W.Tid &&
        Merged.back().End == W.Start) {
      Merged.back().End = W.End;
      Merged.back().Writes = std::max(Merged.back().Writes, W.Writes);
    } else {
      Merged.push_back(W);
    }
  }
  llvm::sort(Merged, [](const WriteRun &X, const WriteRun &Y) {
    return std::tie(X.Start, X.Tid) < std::tie(Y.Start, Y.Tid);
  });
  return Merged;
}

std::vector<LatentPair> latentPairs(const std::vector<WriteRun> &Runs,
                                    unsigned LineSize) {
  std::vector<LatentPair> Out;
  for (size_t I = 0; I < Runs.size(); ++I)
    for (size_t J = I + 1; J < Runs.size(); ++J) {
      const WriteRun &A = Runs[I], &B = Runs[J];
      if (B.Start >= A.End - 1 + LineSize)
        break;
      if (A.Tid == B.Tid)
        continue;
      // Already on one line: that is actual sharing, reported as such.
      uint64_t ALast = (A.End - 1) / LineSize, BFirst = B.Start / LineSize;
      if (ALast >= BFirst)
        continue;
      Out.push_back({A, B});
    }
  return Out;
}

std::string maskRanges(uint64_t Mask) {
  std::string S;
  for (unsigned B = 0; B < 64;) {
    if (!(Mask >> B & 1)) {
      ++B;
      continue;
    }
    unsigned E = B;
    while (E + 1 < 64 && (Mask >> (E + 1) & 1))
      ++E;
    if (!S.empty())
      S += ",";
    S += E == B ? std::to_string(B)
                : std::to_string(B) + "-" + std::to_string(E);
    B = E + 1;
  }
  return S.empty() ? "-" : S;
}

} // namespace keel::fs
