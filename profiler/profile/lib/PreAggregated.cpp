//===- PreAggregated.cpp - BOLT's pre-aggregated profile (perf2bolt --pa) -===//
//
// The format perf2bolt reads with --pa (BOLT's DataAggregator), one record
// per line, fields separated by spaces:
//
//   E <event>                        event name of the following records
//   S <addr> <count>                 IP sample (no LBR)
//   B <from> <to> <count> <mispreds> taken branch
//   F <start> <end> <count>          fall-through range start..end
//   f <start> <end> <count>          ... whose start was reached from
//                                    outside the binary
//   r <start> <end> <count>          ... that starts at a return target
//                                    from outside the binary
//   T <from> <to> <end> <count>      taken branch from->to, then the
//                                    fall-through range to..end
//   R <ret> <to> <end> <count>       same, the branch being a return
//
// An address is [<id>:]<hex>: <hex> is the offset from the object's load
// base (the link-time address for non-PIE executables and for PIEs linked
// at 0), without "0x" (we also accept "0x"). <id> is the build-id of the
// object holding the address; it may be left out for the main binary, and
// "X" names an unknown/external object. We map every external address to
// 0, which is also what perf2bolt uses for "external".
//
// Differences from perf2bolt 22, all deliberate:
//  - perf2bolt ignores <id> entirely (a wrong build-id is silently used as
//    the main binary); we reject an <id> that is not the binary's build-id
//    ("a profile of another build"), so other objects must be spelled X:.
//  - An address without X: that lies outside the binary's code is bad input
//    (perf2bolt counts it as an out-of-range trace).
//  - f/r/F are all kept as plain ranges: the model has no "external origin"
//    flag, so writing them back yields F.
//
//===----------------------------------------------------------------------===//
#include "keel/Profile/Formats.h"

#include "TextScan.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"

using namespace llvm;
using namespace keel::textscan;

namespace keel {

namespace {

class PreAggregatedParser {
public:
  PreAggregatedParser(StringRef File, const Binary *Bin)
      : File(File), Bin(Bin), Code(Bin) {}

  Expected<AddressProfile> parse(StringRef Text);

private:
  template <typename... Ts> Error error(const char *Fmt, Ts &&...Vals) {
    return inputError(File, LineNo, Fmt, std::forward<Ts>(Vals)...);
  }
  Error address(StringRef Tok, uint64_t &Addr);
  Error count(StringRef Tok, uint64_t &N);
  Error record(StringRef Line, AddressProfile &AP);

  StringRef File;
  const Binary *Bin;
  CodeRanges Code;
  unsigned LineNo = 0;
  std::string SeenBuildID;
  unsigned SeenBuildIDLine = 0;
};

Error PreAggregatedParser::address(StringRef Tok, uint64_t &Addr) {
  StringRef Hex = Tok;
  size_t Colon = Tok.find(':');
  if (Colon != StringRef::npos) {
    StringRef ID = Tok.take_front(Colon);
    Hex = Tok.drop_front(Colon + 1);
    if (ID == "X") {
      if (!parseHexMaybe0x(Hex, Addr))
        return error("bad hex address '{0}'", Tok);
      Addr = 0; // external
      return Error::success();
    }
    if (ID.empty() || !all_of(ID, isHexDigit))
      return error("bad build-id '{0}' in address '{1}'", ID, Tok);
    if (Bin && !Bin->buildID().empty()) {
      if (!buildIDMatches(ID, Bin->buildID()))
        return error("build-id {0} is not the build-id of {1} ({2}): the "
                     "profile is of another build (write X:<addr> for "
                     "addresses in other objects)",
                     ID, Bin->path(), Bin->buildID());
    } else if (SeenBuildID.empty()) {
      SeenBuildID = ID.lower();
      SeenBuildIDLine = LineNo;
    } else if (!StringRef(SeenBuildID).equals_insensitive(ID)) {
      return error("build-id {0} differs from build-id {1} of line {2}: "
                   "addresses of other objects must be written X:<addr>",
                   ID, SeenBuildID, SeenBuildIDLine);
    }
  }
  if (!parseHexMaybe0x(Hex, Addr))
    return error("bad hex address '{0}'", Tok);
  // 0 is perf2bolt's "external"; anything else must be code of the binary.
  if (Bin && Addr != 0 && !Code.contains(Addr))
    return error("address {0:x} is outside the code of {1} (write "
                 "X:<addr> for addresses in other objects)",
                 Addr, Bin->path());
  return Error::success();
}

Error PreAggregatedParser::count(StringRef Tok, uint64_t &N) {
  if (!parseDec(Tok, N))
    return error("bad count '{0}' (expected a decimal number)", Tok);
  return Error::success();
}

Error PreAggregatedParser::record(StringRef Line, AddressProfile &AP) {
  size_t Pos = 0;
  StringRef Kind = nextToken(Line, Pos);
  if (Kind == "E") {
    if (nextToken(Line, Pos).empty())
      return error("truncated 'E' record: missing the event name");
    if (!nextToken(Line, Pos).empty())
      return error("unexpected field after the event name");
    return Error::success();
  }
  unsigned NumAddrs, NumCounts;
  if (Kind == "S")
    NumAddrs = 1, NumCounts = 1;
  else if (Kind == "B")
    NumAddrs = 2, NumCounts = 2;
  else if (Kind == "F" || Kind == "f" || Kind == "r")
    NumAddrs = 2, NumCounts = 1;
  else if (Kind == "T" || Kind == "R")
    NumAddrs = 3, NumCounts = 1;
  else
    return error("unknown record kind '{0}' (expected one of B F f r T R S E)",
                 Kind);
  uint64_t A[3] = {0, 0, 0}, C[2] = {0, 0};
  for (unsigned I = 0; I < NumAddrs + NumCounts; ++I) {
    StringRef Tok = nextToken(Line, Pos);
    if (Tok.empty())
      return error("truncated '{0}' record: expected {1} fields, found {2}",
                   Kind, NumAddrs + NumCounts, I);
    if (Error E = I < NumAddrs ? address(Tok, A[I])
                               : count(Tok, C[I - NumAddrs]))
      return E;
  }
  if (StringRef Extra = nextToken(Line, Pos); !Extra.empty())
    return error("unexpected field '{0}' after a '{1}' record", Extra, Kind);

  switch (Kind[0]) {
  case 'S':
    if (A[0])
      addCount(AP.IPSamples[A[0]], C[0]);
    break;
  case 'B':
    AP.Branches[{A[0], A[1]}] += BranchCount{C[0], C[1]};
    break;
  case 'F':
  case 'f':
  case 'r':
    addCount(AP.FallThroughs[{A[0], A[1]}], C[0]);
    break;
  case 'T':
  case 'R':
    // A return from outside (R 0 ...) carries no branch of the binary.
    if (A[0] || Kind == "T")
      AP.Branches[{A[0], A[1]}] += BranchCount{C[0], 0};
    addCount(AP.FallThroughs[{A[1], A[2]}], C[0]);
    break;
  }
  addCount(AP.NumSamples, C[0]);
  return Error::success();
}

Expected<AddressProfile> PreAggregatedParser::parse(StringRef Text) {
  AddressProfile AP;
  while (!Text.empty()) {
    auto [Line, Rest] = Text.split('\n');
    Text = Rest;
    ++LineNo;
    if (Line.find_first_not_of(" \t\r") == StringRef::npos)
      continue;
    if (Error E = record(Line, AP))
      return std::move(E);
  }
  AP.BuildID = Bin ? Bin->buildID().str() : SeenBuildID;
  return AP;
}

void writeAddr(raw_ostream &OS, uint64_t A) {
  if (A == 0)
    OS << "X:0";
  else
    OS << format_hex_no_prefix(A, 1);
}

} // namespace

Expected<AddressProfile> readPreAggregated(StringRef Text, StringRef FileName,
                                           const Binary *Bin,
                                           QualityReport &Quality) {
  (void)Quality; // every problem this format can have is bad input
  return PreAggregatedParser(FileName, Bin).parse(Text);
}

void writePreAggregated(const AddressProfile &P, raw_ostream &OS) {
  for (const auto &[K, C] : P.Branches) {
    OS << "B ";
    writeAddr(OS, K.first);
    OS << ' ';
    writeAddr(OS, K.second);
    OS << ' ' << C.Count << ' ' << C.Mispreds << '\n';
  }
  for (const auto &[K, N] : P.FallThroughs) {
    OS << "F ";
    writeAddr(OS, K.first);
    OS << ' ';
    writeAddr(OS, K.second);
    OS << ' ' << N << '\n';
  }
  for (const auto &[A, N] : P.IPSamples) {
    OS << "S ";
    writeAddr(OS, A);
    OS << ' ' << N << '\n';
  }
}

} // namespace keel
