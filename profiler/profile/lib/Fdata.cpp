//===- Fdata.cpp - BOLT's fdata profile: reader and writer ----------------===//
//
// The fdata format, as BOLT's DataReader parses it (llvm-bolt -data=,
// perf2bolt -o, merge-fdata). Text, one record per line, fields separated
// by one or more spaces:
//
//   [no_lbr[ EVENT...]]          optional first line: IP-sample mode
//   [boltedcollection]           optional next line: profile of a BOLTed binary
//   LBR mode, branch records:
//     K NAME OFF  K NAME OFF  MISPREDS COUNT
//   no_lbr mode, IP samples:
//     K NAME OFF  COUNT
//   then, in either mode, memory records:
//     M NAME OFF  M NAME OFF  COUNT
//
// A location is "K NAME OFF": K = 0 for an address outside every symbol
// (NAME is a DSO name or "[unknown]", OFF the address), 1 for a symbol, 2
// for a local symbol (legacy; BOLT treats 1 and 2 alike). Memory records
// use the same kinds plus 3 (so 3/4/5); the first location is the
// instruction, the second the data. OFF is hex without "0x"; MISPREDS and
// COUNT are decimal. NAME escapes space and backslash with a backslash.
// Locals are spelled "name/N" (BOLT's uniquified name) or "file/name".
//
// BOLT has no fall-through range record in fdata: perf2bolt writes the
// fall-throughs it sees as records from the last instruction of a basic
// block to the next block, mixed with the taken branches
// (see symbolizeForFdata).
//
// We accept a little more than BOLT: tabs as separators, CRLF line ends,
// blank lines, and memory records interleaved with branch records.
//
//===----------------------------------------------------------------------===//
#include "keel/Profile/Formats.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Format.h"

using namespace llvm;

namespace keel {

namespace {

/// Split a line into fields separated by spaces/tabs; a backslash escapes
/// the next character (BOLT's getEscapedName). Fields keep their escapes.
void splitFields(StringRef Line, SmallVectorImpl<StringRef> &Fields) {
  size_t I = 0, N = Line.size();
  while (I < N) {
    while (I < N && (Line[I] == ' ' || Line[I] == '\t'))
      ++I;
    if (I == N)
      break;
    size_t Start = I;
    while (I < N && Line[I] != ' ' && Line[I] != '\t')
      I += (Line[I] == '\\' && I + 1 < N) ? 2 : 1;
    Fields.push_back(Line.slice(Start, I));
  }
}

std::string unescape(StringRef S) {
  std::string Out;
  Out.reserve(S.size());
  for (size_t I = 0; I < S.size(); ++I) {
    if (S[I] == '\\' && I + 1 < S.size())
      ++I;
    Out.push_back(S[I]);
  }
  return Out;
}

void writeEscaped(raw_ostream &OS, StringRef S) {
  for (char C : S) {
    if (C == ' ' || C == '\\')
      OS << '\\';
    OS << C;
  }
}

class FdataParser {
public:
  FdataParser(StringRef File) : File(File) {}

  Expected<BranchProfile> parse(StringRef Text);

private:
  template <typename... Ts> Error error(const char *Fmt, Ts &&...Vals) {
    return inputError(File, LineNo, Fmt, std::forward<Ts>(Vals)...);
  }
  /// Parse "K NAME OFF" at Fields[I..I+2]; \p Base is 0 (branch) or 3
  /// (memory record).
  Expected<Location> location(ArrayRef<StringRef> F, unsigned Base);
  Expected<uint64_t> decimal(StringRef Tok, const char *What);
  Error record(ArrayRef<StringRef> F, BranchProfile &P);

  StringRef File;
  unsigned LineNo = 0;
};

Expected<Location> FdataParser::location(ArrayRef<StringRef> F,
                                         unsigned Base) {
  StringRef Kind = F[0];
  if (Kind.size() != 1 || Kind[0] < char('0' + Base) ||
      Kind[0] > char('2' + Base))
    return error("location kind '{0}' is not one of {1}, {2}, {3}", Kind,
                 Base, Base + 1, Base + 2);
  Location L;
  unsigned K = Kind[0] - '0' - Base;
  L.IsSymbol = K != 0;
  L.LocalKind = K == 2;
  L.Name = unescape(F[1]);
  StringRef Off = F[2];
  if (Off.starts_with_insensitive("0x"))
    Off = Off.drop_front(2);
  if (Off.empty() || Off.getAsInteger(16, L.Offset))
    return error("bad hex offset '{0}'", F[2]);
  return L;
}

Expected<uint64_t> FdataParser::decimal(StringRef Tok, const char *What) {
  uint64_t V;
  if (Tok.getAsInteger(10, V))
    return error("bad {0} '{1}' (expected a decimal number)", What, Tok);
  return V;
}

/// "truncated branch record: expected 8 fields, found 5", or for a line
/// with too many: "branch record with 10 fields, 2 more than its 8".
static std::string fieldCount(StringRef What, size_t Want, size_t Found) {
  if (Found < Want)
    return formatv("truncated {0} record: expected {1} fields, found {2}",
                   What, Want, Found)
        .str();
  return formatv("{0} record with {1} fields, {2} more than its {3}", What,
                 Found, Found - Want, Want)
      .str();
}

Error FdataParser::record(ArrayRef<StringRef> F, BranchProfile &P) {
  char K = F[0][0];
  if (F[0].size() != 1 || K < '0' || K > '5')
    return error("unknown record kind '{0}'", F[0]);
  bool IsMem = K >= '3';
  if (IsMem) {
    if (F.size() != 7)
      return error("{0}", fieldCount("memory", 7, F.size()));
    auto Inst = location(F.slice(0, 3), 3);
    if (!Inst)
      return Inst.takeError();
    auto Data = location(F.slice(3, 3), 3);
    if (!Data)
      return Data.takeError();
    auto N = decimal(F[6], "count");
    if (!N)
      return N.takeError();
    addCount(P.MemAccesses[MemAccess{*Inst, *Data}], *N);
    return Error::success();
  }
  if (P.NoLBR) {
    if (F.size() != 4)
      return error("{0}", fieldCount("no_lbr sample", 4, F.size()));
    auto L = location(F.slice(0, 3), 0);
    if (!L)
      return L.takeError();
    auto N = decimal(F[3], "count");
    if (!N)
      return N.takeError();
    addCount(P.Samples[*L], *N);
    return Error::success();
  }
  if (F.size() != 8)
    return error("{0}", fieldCount("branch", 8, F.size()));
  auto From = location(F.slice(0, 3), 0);
  if (!From)
    return From.takeError();
  auto To = location(F.slice(3, 3), 0);
  if (!To)
    return To.takeError();
  auto Mis = decimal(F[6], "mispredict count");
  if (!Mis)
    return Mis.takeError();
  auto N = decimal(F[7], "count");
  if (!N)
    return N.takeError();
  P.Branches[{*From, *To}] += BranchCount{*N, *Mis};
  return Error::success();
}

Expected<BranchProfile> FdataParser::parse(StringRef Text) {
  BranchProfile P;
  bool SeenRecord = false, SeenBolted = false;
  SmallVector<StringRef, 8> Fields;
  while (!Text.empty()) {
    auto [Line, Rest] = Text.split('\n');
    Text = Rest;
    ++LineNo;
    Line = Line.rtrim("\r");
    Fields.clear();
    splitFields(Line, Fields);
    if (Fields.empty())
      continue;
    if (Fields[0] == "no_lbr") {
      if (SeenRecord || SeenBolted || P.NoLBR)
        return error("'no_lbr' must be the first line");
      P.NoLBR = true;
      P.NoLBREvents = Line.ltrim(" \t").drop_front(6).trim(" \t").str();
      continue;
    }
    if (Fields[0] == "boltedcollection") {
      if (SeenRecord || SeenBolted || Fields.size() != 1)
        return error("'boltedcollection' must be a line of its own before "
                     "the records");
      SeenBolted = P.BoltedCollection = true;
      continue;
    }
    if (Error E = record(Fields, P))
      return std::move(E);
    SeenRecord = true;
  }
  return P;
}

void writeLocation(raw_ostream &OS, const Location &L, unsigned Base) {
  unsigned K = Base + (L.IsSymbol ? (L.LocalKind ? 2 : 1) : 0);
  OS << K << ' ';
  if (L.Name.empty())
    OS << "[unknown]";
  else
    writeEscaped(OS, L.Name);
  OS << ' ' << format_hex_no_prefix(L.Offset, 1);
}

} // namespace

Expected<BranchProfile> readFdata(StringRef Text, StringRef FileName) {
  return FdataParser(FileName).parse(Text);
}

void writeFdata(const BranchProfile &P, raw_ostream &OS) {
  if (P.NoLBR) {
    OS << "no_lbr";
    if (!P.NoLBREvents.empty())
      OS << ' ' << P.NoLBREvents;
    OS << '\n';
  }
  if (P.BoltedCollection)
    OS << "boltedcollection\n";
  if (P.NoLBR) {
    for (const auto &[L, N] : P.Samples) {
      writeLocation(OS, L, 0);
      OS << ' ' << N << '\n';
    }
  } else {
    // P.FallThroughs holds ranges, which fdata cannot express; BOLT wants
    // them as block-to-block edges among the branches (symbolizeForFdata).
    for (const auto &[K, C] : P.Branches) {
      writeLocation(OS, K.first, 0);
      OS << ' ';
      writeLocation(OS, K.second, 0);
      OS << ' ' << C.Mispreds << ' ' << C.Count << '\n';
    }
  }
  for (const auto &[M, N] : P.MemAccesses) {
    writeLocation(OS, M.Inst, 3);
    OS << ' ';
    writeLocation(OS, M.Data, 3);
    OS << ' ' << N << '\n';
  }
}

} // namespace keel
