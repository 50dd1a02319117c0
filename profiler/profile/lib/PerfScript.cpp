//===- PerfScript.cpp - `perf script -F ip,brstack` text -> AddressProfile -===//
//
// One sample per line; what perf prints for -F ip,brstack (llvm-profgen's
// input), -F pid,brstack (perf2bolt's) and richer field lists:
//
//   [comm] [pid[/tid]] [time:] [event:] [ip]  ENTRY ENTRY ...
//
// An ENTRY is one LBR record, newest first:
//
//   0xFROM/0xTO/P|M|-/X|-/A|-/CYCLES[/TYPE[/SPEC]]
//
// P/M: predicted/mispredicted ('-' when the CPU does not say), X: in a
// transaction, A: transaction abort, CYCLES: cycles since the previous
// entry (0 or '-' when not reported), TYPE: branch type (COND, CALL, RET,
// ...) on newer perf, SPEC: speculation outcome. Bare "0xFROM/0xTO" pairs
// are accepted, and an address may carry a build-id prefix
// "BUILDID:0xADDR" (it must name the binary; see below). A line with an IP
// and no entries is an IP sample (perf script -F ip without LBR). Lines of
// perf's side-band events ("... PERF_RECORD_MMAP2 pid/tid: [0xSTART(0xLEN)
// @ 0xPGOFF ...]: r-xp /path") set the load bias of the binary for that pid
// (perf script --show-mmap-events); other PERF_RECORD_ lines are skipped.
//
// Callchains (perf record -g; perf script prints the IP field as the
// callchain): the sample's line has no IP and no entries, and one line per
// frame follows it, newest first, each starting with a tab:
//
//   lua 4242  10.000100:     250000 cpu-clock:
//   	            127e leaf+0x7e (/usr/bin/lua)
//   	            1194 mid+0x24 (/usr/bin/lua)
//
// The address is relative to the DSO the frame lies in (perf's map_ip: a
// file offset, for a PIE and for a fixed-address executable alike), so a
// frame is an address of the binary only when its "(DSO)" names the
// binary's file; it then moves by its segment's vaddr - offset. Frames of
// other DSOs count as outside the binary; a frame without "(DSO)" is taken
// as an address of the binary as printed (give perf script the dso field).
// The first frame is the sample's IP; a number right after the time stamp
// and before the event name is the period (the arcs' weight); a lone
// number before the frames is the pid.
//
// What we build, as perf2bolt does:
//  - every entry is a taken branch FROM->TO (count 1, mispredict if M);
//  - between two consecutive entries the CPU ran straight from the target
//    of the older one to the source of the newer one: the fall-through
//    range [TO of entry i+1, FROM of entry i];
//  - with a binary: addresses outside its code become 0 ("external", as in
//    perf2bolt); entries external at both ends and ranges with an external
//    end are dropped and counted; ranges that run backwards are counted.
//
// Speed: the text is scanned in place with StringRef (no allocation per
// entry), counts go to flat hash maps (keel/Profile/FlatPairMap.h) and are
// moved, in key order, to the ordered maps of the model at the end.
//
//===----------------------------------------------------------------------===//
#include "keel/Profile/Formats.h"
#include "keel/Support/Input.h"

#include "BrstackAggregator.h"
#include "TextScan.h"

#include "keel/Support/Text.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Path.h"

using namespace llvm;
using namespace keel::textscan;

namespace keel {

namespace {

using Entry = BrstackEntry;

class PerfScriptParser : public BrstackAggregator {
public:
  PerfScriptParser(StringRef File, const Binary *Bin, QualityReport &Quality,
                   const PerfScriptOptions &Opts)
      : BrstackAggregator(File, Bin, Quality, Opts) {}

  /// Parse whole lines of \p Text (the last may lack its newline).
  Error consume(StringRef Text);
  Expected<AddressProfile> finish() {
    if (Error E = endHead())
      return std::move(E);
    return BrstackAggregator::finish();
  }

private:
  template <typename... Ts> Error error(const char *Fmt, Ts &&...Vals) {
    return inputError(File, LineNo, Fmt, std::forward<Ts>(Vals)...);
  }
  /// The leading fields of a sample line.
  struct Head {
    bool Valid = false; ///< a line without entries, waiting for its frames
    unsigned LineNo = 0;
    StringRef NumTok[2]; ///< numbers (views into the line, or NumText)
    std::string NumText[2]; ///< their text, for a line kept past itself
    uint64_t Dec[2] = {0, 0}, Hex[2] = {0, 0};
    bool DecOK[2] = {false, false}, HexOK[2] = {false, false};
    unsigned NumNumbers = 0;
    int PeriodTok = -1; ///< the number between time stamp and event
    uint32_t Pid = 0, Tid = 0;
    bool HavePid = false;
    std::string Event; ///< only with KeepSamples
  };
  Error sample(StringRef Line);
  Error leadingFields(StringRef Line, size_t &Pos, StringRef &Tok, Head &H,
                      StringRef &Event);
  /// The pid and IP that \p H's numbers give (no callchain).
  Error pidAndIP(const Head &H, uint32_t &Pid, bool &HavePid, uint64_t &IP,
                 bool &HaveIP);
  /// A tab-indented callchain frame line of the pending sample.
  Error frame(StringRef Line);
  /// Count the pending line without entries: its callchain, or its IP.
  Error endHead();
  Error entry(StringRef Tok, Entry &E);
  Error address(StringRef Tok, StringRef Whole, uint64_t &A);
  void mmapEvent(StringRef Line);

  unsigned LineNo = 0;
  Head Pending;
  SmallVector<uint64_t, 64> Frames; ///< the pending sample's, link-time
};

Error PerfScriptParser::address(StringRef Tok, StringRef Whole, uint64_t &A) {
  size_t Colon = Tok.find(':');
  if (Colon != StringRef::npos) {
    StringRef ID = Tok.take_front(Colon);
    Tok = Tok.drop_front(Colon + 1);
    if (ID.empty() || !all_of(ID, isHexDigit))
      return error("bad build-id '{0}' in brstack entry '{1}'", ID, Whole);
    if (Bin && !Bin->buildID().empty() &&
        !buildIDMatches(ID, Bin->buildID()))
      return error("build-id {0} is not the build-id of {1} ({2}): the "
                   "profile is of another build",
                   ID, Bin->path(), Bin->buildID());
  }
  if (!parseHexMaybe0x(Tok, A))
    return error("bad hex address '{0}' in brstack entry '{1}'", Tok, Whole);
  return Error::success();
}

/// Hex digit values, -1 for anything else.
struct HexTable {
  int8_t V[256];
  constexpr HexTable() : V() {
    for (int I = 0; I < 256; ++I)
      V[I] = -1;
    for (int I = 0; I < 10; ++I)
      V['0' + I] = int8_t(I);
    for (int I = 0; I < 6; ++I)
      V['a' + I] = V['A' + I] = int8_t(10 + I);
  }
};
constexpr HexTable Hex;

/// "0x" and up to 16 hex digits at P.
inline bool fastHex(const char *&P, const char *End, uint64_t &V) {
  if (End - P < 3 || P[0] != '0' || P[1] != 'x')
    return false;
  P += 2;
  const char *Start = P;
  uint64_t R = 0;
  int8_t D;
  while (P < End && (D = Hex.V[uint8_t(*P)]) >= 0) {
    R = (R << 4) | uint64_t(D);
    ++P;
  }
  V = R;
  return P != Start && P - Start <= 16;
}

inline bool fastChar(const char *&P, const char *End, char C) {
  if (P == End || *P != C)
    return false;
  ++P;
  return true;
}

/// The usual spelling of an entry, "0xFROM/0xTO[/P/-/-/CYC[/TYPE[/SPEC]]]",
/// scanned in one pass. False for anything else (build-id prefixes, bad
/// input): the careful parser then takes the token.
inline bool fastEntry(const char *&P, const char *End, Entry &E) {
  auto AtEnd = [&] { return P == End || isBlank(*P); };
  E = Entry{0, 0, false, false, false, false, 0, StringRef()};
  if (!fastHex(P, End, E.From) || !fastChar(P, End, '/') ||
      !fastHex(P, End, E.To))
    return false;
  if (AtEnd())
    return true;
  if (!fastChar(P, End, '/') || P == End)
    return false;
  char F = *P++;
  if (F != 'P' && F != 'M' && F != '-')
    return false;
  E.Mispred = F == 'M';
  E.Predicted = F == 'P';
  if (!fastChar(P, End, '/') || P == End)
    return false;
  F = *P++;
  if (F != 'X' && F != '-')
    return false;
  E.InTx = F == 'X';
  if (!fastChar(P, End, '/') || P == End)
    return false;
  F = *P++;
  if (F != 'A' && F != '-')
    return false;
  E.Abort = F == 'A';
  if (!fastChar(P, End, '/') || P == End)
    return false;
  if (*P == '-') {
    ++P;
  } else {
    uint64_t C = 0;
    const char *Start = P;
    unsigned D;
    while (P < End && (D = unsigned(uint8_t(*P) - '0')) < 10) {
      C = C * 10 + D;
      ++P;
    }
    if (P == Start || P - Start > 10 || C > UINT32_MAX)
      return false;
    E.Cycles = uint32_t(C);
  }
  if (AtEnd())
    return true;
  if (!fastChar(P, End, '/'))
    return false;
  const char *T = P;
  while (P < End && *P != '/' && !isBlank(*P))
    ++P;
  if (!(P - T == 1 && *T == '-'))
    E.Type = StringRef(T, P - T);
  if (AtEnd())
    return true;
  ++P; // the '/' before the speculation field
  while (P < End && *P != '/' && !isBlank(*P))
    ++P;
  return AtEnd();
}

Error PerfScriptParser::entry(StringRef Tok, Entry &E) {
  E = Entry{0, 0, false, false, false, false, 0, StringRef()};
  size_t S1 = Tok.find('/');
  if (S1 == StringRef::npos || S1 + 1 >= Tok.size())
    return error("truncated brstack entry '{0}' (expected 0xFROM/0xTO...)",
                 Tok);
  size_t S2 = Tok.find('/', S1 + 1);
  StringRef ToTok = Tok.slice(S1 + 1, S2);
  if (Error Err = address(Tok.take_front(S1), Tok, E.From))
    return Err;
  if (Error Err = address(ToTok, Tok, E.To))
    return Err;
  if (S2 == StringRef::npos)
    return Error::success(); // bare FROM/TO pair
  // Optional fields: flags, tx, abort, cycles, type, spec.
  StringRef Rest = Tok.drop_front(S2 + 1);
  for (unsigned Field = 0;; ++Field) {
    auto [F, Tail] = Rest.split('/');
    switch (Field) {
    case 0: // P, M, '-' (SPE adds N: not taken)
      if (F.empty() || F.size() > 2 ||
          (F[0] != 'P' && F[0] != 'M' && F[0] != '-'))
        return error("bad prediction flag '{0}' in brstack entry '{1}' "
                     "(expected P, M or -)",
                     F, Tok);
      E.Mispred = F[0] == 'M';
      E.Predicted = F[0] == 'P';
      break;
    case 1:
      if (F != "X" && F != "-")
        return error("bad transaction flag '{0}' in brstack entry '{1}'", F,
                     Tok);
      E.InTx = F == "X";
      break;
    case 2:
      if (F != "A" && F != "-")
        return error("bad abort flag '{0}' in brstack entry '{1}'", F, Tok);
      E.Abort = F == "A";
      break;
    case 3: {
      uint64_t C = 0;
      if (F != "-" && (!parseDec(F, C) || C > UINT32_MAX))
        return error("bad cycle count '{0}' in brstack entry '{1}'", F, Tok);
      E.Cycles = uint32_t(C);
      break;
    }
    case 4:
      E.Type = F == "-" ? StringRef() : F;
      break;
    case 5:
      break; // speculation outcome: not used
    default:
      return error("too many fields in brstack entry '{0}'", Tok);
    }
    if (F.size() == Rest.size()) // no further '/'
      break;
    Rest = Tail;
  }
  return Error::success();
}

void PerfScriptParser::mmapEvent(StringRef Line) {
  // ... PERF_RECORD_MMAP2 1234/1234: [0x400000(0x1000) @ 0 fd:01 1 2]: r-xp /bin/prog
  size_t P = Line.find("PERF_RECORD_MMAP");
  if (P == StringRef::npos || !Bin)
    return;
  StringRef L = Line.drop_front(P);
  StringRef Path = L.rsplit(' ').second;
  if (!Opts.BinaryPathInProfile.empty()
          ? Path != Opts.BinaryPathInProfile
          : sys::path::filename(Path) != sys::path::filename(Bin->path()))
    return;
  StringRef Perm = L.rsplit(']').second.ltrim(": ").split(' ').first;
  if (!Perm.empty() && !Perm.contains('x'))
    return;
  uint64_t Pid = 0, Start = 0, PgOff = 0;
  parseDec(L.split(' ').second.split('/').first, Pid);
  StringRef Map = L.split('[').second;
  if (!parseHexMaybe0x(Map.split('(').first, Start))
    return;
  StringRef Off = Map.split('@').second.ltrim().split(' ').first;
  if (!parseHexMaybe0x(Off, PgOff) && !parseDec(Off, PgOff))
    return;
  setBias(uint32_t(Pid), Bin->loadBias(Start, PgOff));
}

Error PerfScriptParser::leadingFields(StringRef Line, size_t &Pos,
                                      StringRef &Tok, Head &H,
                                      StringRef &Event) {
  bool First = true, AfterTime = false;
  int Candidate = -1; // a number right after the time stamp
  // Leading fields, up to the first brstack entry.
  while (!(Tok = nextToken(Line, Pos)).empty()) {
    bool IsEntry = Tok.contains('/') &&
                   (Tok.starts_with("0x") || Tok.contains(":0x"));
    if (IsEntry)
      break;
    uint64_t V;
    bool WasTime = AfterTime;
    int WasCandidate = Candidate;
    AfterTime = false;
    Candidate = -1;
    if (Tok.back() == ':') {
      StringRef T = Tok.drop_back();
      if (!(T.contains('.') && parseDec(T.split('.').first, V))) {
        Event = T; // else a time stamp
        // perf prints the period between the time and the event.
        if (WasCandidate >= 0)
          H.PeriodTok = WasCandidate;
      } else {
        AfterTime = true;
      }
    } else if (Tok.contains('/')) { // pid/tid
      uint64_t P, T;
      if (!parseDec(Tok.split('/').first, P) ||
          !parseDec(Tok.split('/').second, T))
        return error("unknown field '{0}' before the brstack entries", Tok);
      H.Pid = uint32_t(P), H.Tid = uint32_t(T), H.HavePid = true;
    } else if (H.NumNumbers < 2 && parseHexMaybe0x(Tok, V)) {
      unsigned I = H.NumNumbers++;
      H.NumTok[I] = Tok;
      H.HexOK[I] = true, H.Hex[I] = V;
      H.DecOK[I] = parseDec(Tok, H.Dec[I]);
      if (WasTime)
        Candidate = int(I);
    } else if (!First) {
      return error("unknown field '{0}' before the brstack entries", Tok);
    } // else: the command name
    First = false;
  }
  return Error::success();
}

Error PerfScriptParser::pidAndIP(const Head &H, uint32_t &Pid, bool &HavePid,
                                 uint64_t &IP, bool &HaveIP) {
  // Two numbers: pid (decimal) then IP (hex); one: the IP unless told
  // otherwise.
  IP = 0;
  HaveIP = false;
  if (H.NumNumbers == 2 || (H.NumNumbers == 1 && Opts.FirstFieldIsPid)) {
    if (!H.DecOK[0])
      return error("bad pid '{0}'", H.NumTok[0]);
    Pid = uint32_t(H.Dec[0]), HavePid = true;
    if (H.NumNumbers == 2)
      HaveIP = H.HexOK[1], IP = H.Hex[1];
  } else if (H.NumNumbers == 1) {
    HaveIP = H.HexOK[0], IP = H.Hex[0];
  }
  return Error::success();
}

Error PerfScriptParser::sample(StringRef Line) {
  size_t Pos = 0;
  Head H;
  StringRef Event;
  Stack.clear();
  StringRef Tok;
  if (Error E = leadingFields(Line, Pos, Tok, H, Event))
    return E;
  if (Tok.empty()) {
    // No entries: an IP sample, or the header of a callchain whose frames
    // follow. The next line tells.
    H.Valid = true;
    H.LineNo = LineNo;
    for (unsigned I = 0; I < 2; ++I) { // the line goes away
      H.NumText[I] = H.NumTok[I].str();
      H.NumTok[I] = StringRef();
    }
    if (Opts.KeepSamples)
      H.Event = Event.str();
    Pending = std::move(H);
    Frames.clear();
    return Error::success();
  }
  uint32_t Pid = H.Pid, Tid = H.Tid;
  bool HavePid = H.HavePid, HaveIP;
  uint64_t IP;
  if (Error E = pidAndIP(H, Pid, HavePid, IP, HaveIP))
    return E;
  if (Opts.Pid && HavePid && Pid != Opts.Pid)
    return Error::success();
  uint64_t Bias = biasFor(Pid, HavePid);
  // The entries, aggregated as they are read: one pass over the usual
  // spelling, the careful parser (which also words the errors) for anything
  // else.
  const char *P = Tok.data(), *End = Line.data() + Line.size();
  Chain C;
  uint64_t N = 0;
  while (!Tok.empty()) {
    while (P < End && isBlank(*P))
      ++P;
    if (P == End)
      break;
    Entry E;
    const char *Q = P;
    if (!fastEntry(Q, End, E)) {
      Q = P;
      while (Q < End && !isBlank(*Q))
        ++Q;
      if (Error Err = entry(StringRef(P, Q - P), E))
        return Err;
    }
    aggregate(E, Bias, C);
    ++N;
    if (Opts.KeepSamples)
      Stack.push_back(E);
    P = Q;
  }
  endSample(N, IP, HaveIP, Pid, Tid, Event, Bias);
  return Error::success();
}

/// The link-time address of file offset \p Off of \p Bin: loadBias of a
/// mapping at 0 is minus the offset's segment's vaddr - offset, minus Off.
static uint64_t addressOfFileOffset(const Binary &Bin, uint64_t Off) {
  return uint64_t(0) - Bin.loadBias(0, Off);
}

Error PerfScriptParser::frame(StringRef Line) {
  size_t Pos = 0;
  StringRef AddrTok = nextToken(Line, Pos);
  uint64_t A;
  if (!parseHexMaybe0x(AddrTok, A))
    return error("bad callchain frame address '{0}'", AddrTok);
  StringRef Rest = Line.drop_front(Pos).rtrim(" \t\r");
  if (Bin && Rest.ends_with(")")) {
    size_t Open = Rest.rfind('(');
    StringRef DSO = Rest.slice(Open + 1, Rest.size() - 1);
    // The binary's frames: by the recorded path --binary-path-in-profile
    // names, else by file name, as the mmap events are matched.
    bool Other = Open == StringRef::npos ||
                 (!Opts.BinaryPathInProfile.empty()
                      ? DSO != Opts.BinaryPathInProfile
                      : sys::path::filename(DSO) !=
                            sys::path::filename(Bin->path()));
    if (Other)
      A = 0; // another DSO, the kernel or [unknown]
    else
      A = addressOfFileOffset(*Bin, A);
  }
  Frames.push_back(A);
  return Error::success();
}

Error PerfScriptParser::endHead() {
  if (!Pending.Valid)
    return Error::success();
  Head H = std::move(Pending);
  Pending.Valid = false;
  for (unsigned I = 0; I < 2; ++I)
    H.NumTok[I] = H.NumText[I];
  unsigned Here = LineNo;
  LineNo = H.LineNo; // errors name the sample's line
  auto Restore = make_scope_exit([&] { LineNo = Here; });
  CurPos = H.LineNo;
  uint32_t Pid = H.Pid, Tid = H.Tid;
  bool HavePid = H.HavePid, HaveIP;
  uint64_t IP;
  if (Frames.empty()) {
    if (Error E = pidAndIP(H, Pid, HavePid, IP, HaveIP))
      return E;
    if (Opts.Pid && HavePid && Pid != Opts.Pid)
      return Error::success();
    if (!HaveIP)
      return error("no brstack entries and no IP in this line");
    uint64_t Bias = biasFor(Pid, HavePid);
    endSample(0, IP, HaveIP, Pid, Tid, H.Event, Bias);
    return Error::success();
  }
  // A callchain: the IP is its first frame; of the numbers, the period is
  // the one before the event name, the pid the first other one.
  uint64_t Period = 0;
  for (unsigned I = 0; I < H.NumNumbers; ++I) {
    if (int(I) == H.PeriodTok) {
      Period = H.DecOK[I] ? H.Dec[I] : 0;
    } else if (!HavePid) {
      if (!H.DecOK[I])
        return error("bad pid '{0}' before a callchain", H.NumTok[I]);
      Pid = uint32_t(H.Dec[I]), HavePid = true;
    }
  }
  if (Opts.Pid && HavePid && Pid != Opts.Pid)
    return Error::success();
  // The frames are link-time addresses already (or 0).
  callChain(Frames, Period, [&](uint64_t A) { return map(A, 0); });
  endSample(0, Frames.front(), true, Pid, Tid, H.Event, 0);
  return Error::success();
}

Error PerfScriptParser::consume(StringRef Text) {
  const char *P = Text.data(), *End = P + Text.size();
  while (P < End) {
    const char *NL = static_cast<const char *>(memchr(P, '\n', End - P));
    const char *LineEnd = NL ? NL : End;
    StringRef Line(P, LineEnd - P);
    P = NL ? NL + 1 : End;
    ++LineNo;
    CurPos = LineNo;
    size_t F = Line.find_first_not_of(" \t\r");
    if (F == StringRef::npos || Line[F] == '#')
      continue;
    // perf indents callchain frames with a tab, sample lines with spaces.
    if (Pending.Valid && Line[0] == '\t') {
      if (Error E = frame(Line.drop_front(F)))
        return E;
      continue;
    }
    if (Error E = endHead())
      return E;
    if (Line.contains("PERF_RECORD_")) {
      mmapEvent(Line);
      continue;
    }
    if (Error E = sample(Line.drop_front(F)))
      return E;
  }
  return Error::success();
}

} // namespace

std::string BrstackAggregator::whereOutside() const {
  // Most first, as perf report sorts DSOs; at most six named.
  std::vector<std::pair<uint64_t, std::string>> By;
  for (const auto &[Where, N] : OutsideIPsIn)
    By.push_back({N, Where});
  llvm::stable_sort(By, [](const auto &A, const auto &B) {
    return A.first > B.first;
  });
  std::string S;
  const size_t Shown = 6;
  uint64_t Rest = 0;
  for (size_t I = 0; I < By.size(); ++I) {
    if (I >= Shown) {
      Rest += By[I].first;
      continue;
    }
    S += I ? ", " : ": ";
    S += By[I].second.empty()
             ? formatv("{0} unmapped", By[I].first).str()
             : formatv("{0} in {1}", By[I].first, printableMessage(By[I].second))
                   .str();
  }
  if (Rest)
    S += formatv(", {0} in {1} other mappings", Rest, By.size() - Shown).str();
  return S;
}

Expected<AddressProfile> BrstackAggregator::finish() {
  if (Bin && NumAddrs && !InsideAddrs) {
    std::string Msg =
        formatv("no address of this profile lies in the code of {0} (first "
                "one: {1:x}): a profile of another binary, or a PIE without "
                "its PERF_RECORD_MMAP2 event",
                Bin->path(), FirstAddr)
            .str();
    if (PosIsByte)
      return inputError(File, 0, "byte {0}: {1}", FirstAddrPos - 1,
                        Msg);
    return inputError(File, unsigned(FirstAddrPos), "{0}", Msg);
  }
  // Problems of entries are shares of the entries, of IP-only samples
  // shares of the samples.
  if (OneExternal)
    Quality.countOf("have one end outside the binary's code (kept, that end "
                    "as external)",
                    OneExternal, NumEntries, "brstack entries");
  if (BothExternal)
    Quality.countOf("lie wholly outside the binary's code (dropped)",
                    BothExternal, NumEntries, "brstack entries");
  if (Backwards)
    Quality.countOf("are followed by a fall-through range that runs "
                    "backwards (range dropped)",
                    Backwards, NumEntries, "brstack entries");
  if (Bin && OutsideIPs)
    Quality.countOf("are IP-only samples outside the binary's code (dropped)" +
                        whereOutside(),
                    OutsideIPs, NumSamples, "samples");

  AddressProfile AP;
  AP.BuildID = Bin ? Bin->buildID().str() : "";
  // In key order, so that every insertion is at the end (no search).
  for (const auto &[K, V] : Branches.sorted())
    AP.Branches.emplace_hint(AP.Branches.end(), K, V);
  for (const auto &[K, V] : FallThroughs.sorted())
    AP.FallThroughs.emplace_hint(AP.FallThroughs.end(), K, V);
  for (const auto &[K, V] : IPSamples.sorted())
    AP.IPSamples.emplace_hint(AP.IPSamples.end(), K.first, V);
  for (const auto &[K, V] : ChainArcs.sorted())
    AP.CallChainArcs.emplace_hint(AP.CallChainArcs.end(), K, V);
  AP.NumCallChains = NumCallChains;
  AP.Samples = std::move(Raw);
  AP.NumSamples = NumSamples;
  AP.NumEntries = NumEntries;
  return AP;
}


Expected<AddressProfile> readPerfScript(StringRef Text, StringRef FileName,
                                        const Binary *Bin,
                                        QualityReport &Quality,
                                        const PerfScriptOptions &Opts) {
  PerfScriptParser Parser(FileName, Bin, Quality, Opts);
  if (Error E = Parser.consume(Text))
    return std::move(E);
  return Parser.finish();
}

Expected<AddressProfile> readPerfScriptFile(StringRef Path, const Binary *Bin,
                                            QualityReport &Quality,
                                            const PerfScriptOptions &Opts) {
  // Read in chunks: perf script text runs to gigabytes, and neither a copy
  // nor a mapping of it all should count against our memory.
  Expected<int> FD = openInputFile(Path); // a regular file, never a FIFO
  if (!FD)
    return FD.takeError();
  auto Close = make_scope_exit([&] { sys::fs::closeFile(*FD); });
  PerfScriptParser Parser(Path, Bin, Quality, Opts);
  std::vector<char> Buf(4 << 20);
  size_t Have = 0;
  while (true) {
    Expected<size_t> N = sys::fs::readNativeFile(
        *FD, MutableArrayRef<char>(Buf.data() + Have, Buf.size() - Have));
    if (!N)
      return inputError(Path, 0, "cannot read: {0}", toString(N.takeError()));
    Have += *N;
    if (*N == 0) { // end of file: the last line may lack its newline
      if (Error E = Parser.consume(StringRef(Buf.data(), Have)))
        return std::move(E);
      break;
    }
    StringRef Data(Buf.data(), Have);
    size_t LastNL = Data.rfind('\n');
    if (LastNL == StringRef::npos) {
      if (Have == Buf.size())
        Buf.resize(Buf.size() * 2); // a line longer than the buffer
      continue;
    }
    if (Error E = Parser.consume(Data.take_front(LastNL + 1)))
      return std::move(E);
    Have -= LastNL + 1;
    memmove(Buf.data(), Buf.data() + LastNL + 1, Have);
  }
  return Parser.finish();
}

} // namespace keel
