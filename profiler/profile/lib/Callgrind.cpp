//===- Callgrind.cpp - callgrind output -> exact address profile ----------===//
//
// Reads the output of
//   valgrind --tool=callgrind --collect-jumps=yes --dump-instr=yes
// (with or without --compress-strings / --compress-pos) and turns it into an
// AddressProfile of one binary: exact taken-branch counts and fall-through
// ranges rebuilt from the per-instruction execution counts and LLVM MC
// disassembly of that binary.
//
// The format (valgrind 3.19, callgrind/dump.c and docs/cl-format.xml; its
// line grammar is read by keel/Support/CallgrindReader.h) is a sequence of
// lines:
//
//   # comment                       ignored, as are blank lines
//   version: 1                      header lines "key: value": version,
//   creator: callgrind-3.19.0         creator, pid, cmd, part, thread, desc,
//   positions: instr line             positions, events, event, summary,
//   events: Ir Dr ...                 totals. "part:" starts a new dump of the
//                                     same run (more parts or threads are
//                                     summed). "positions:" must name "instr";
//                                     "events:" must name "Ir".
//   ob=(5) /path/to/prog            object (ELF file) of the following fn=
//   fl= fi= fe=                     source file (fi/fe: inlined code)
//   fn=(12) work                    function of the following cost lines
//   0x401140 3 1                    cost line: one field per "positions:"
//   +2 * 1                            entry, then one per event (trailing
//                                     zeros may be left out)
//   cob= cfi= cfl= cfn=             object/file/function of the next call
//   calls=500 0x401190 0            call: count, target position; the next
//   * 0 9500                          line is the call site and the callee's
//                                     inclusive cost (not executed here)
//   jfi= jfn=                       file/function of the next jump target
//   jump=71 +10 0                   unconditional jump taken 71 times to
//   * 0                               target; the next line is its source
//   jcnd=143/500 +45 0              conditional jump: taken 143 of 500
//   * 0                               executions; next line is its source
//
// Name compression: "(id) name" defines an id, a later "(id)" reuses it;
// objects, files and functions have separate id spaces. Position
// compression: "+N"/"-N" are relative to the previous cost line's position,
// "*" repeats it; jump/call targets and sources do not move that reference
// (dump.c updates it only in fprint_fcost). Numbers are hex (0x) or decimal.
//
// Addresses are object-relative: callgrind prints runtime address minus
// the object's load bias (dump.c get_debug_pos: addr - obj->offset), so a
// PIE's instructions appear at their link-time addresses. We check this
// instead of trusting it: a function named in fn= must start at its ELF
// symbol; a constant non-zero difference is taken as a bias and removed.
//
// With --skip-plt=yes (valgrind's default) the instructions of PLT stubs
// are charged to the call site as an extra cost line at the call's address
// right after its calls= lines; we recognise that and do not count it as
// an execution of the call (layout-record runs with --skip-plt=no).
//
//===----------------------------------------------------------------------===//
#include "keel/Profile/Binary.h"
#include "keel/Profile/Formats.h"
#include "keel/Support/CallgrindReader.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <set>

using namespace llvm;

namespace keel {
namespace {

/// A jump= or jcnd= line: Taken transfers from Src to Dst.
struct RawJump {
  uint64_t Src = 0, Dst = 0, Taken = 0;
};

/// A calls= line: Count calls from Src to Dst in object DstObj.
struct RawCall {
  uint64_t Src = 0, Dst = 0, Count = 0;
  std::string DstObj;
};

/// Everything the file says about one object (ELF file), in the addresses
/// callgrind printed.
struct ObjectData {
  std::map<uint64_t, uint64_t> Executed; ///< instruction -> executions (Ir)
  std::vector<RawJump> Jumps;
  std::vector<RawCall> Calls;
  std::map<std::string, uint64_t> FnLowest; ///< fn= name -> lowest address
  uint64_t SkippedIr = 0; ///< cost of skipped code charged to call sites
};

/// The line-level parser, on the shared callgrind reader: fills one
/// ObjectData per object name.
class Parser {
public:
  Parser(StringRef Text, StringRef FileName) : R(Text, FileName) {}
  Error parse();
  std::map<std::string, ObjectData> Objects;

private:
  Error line(StringRef T);
  Error header(StringRef Key, StringRef Value);
  Error spec(StringRef Key, StringRef Value);
  Error jumpOrCall(StringRef Key, StringRef Value);
  Error costLine(StringRef L);
  Error needPositions();
  template <typename... Ts> Error bad(const char *Fmt, Ts &&...Vals) {
    return R.error(Fmt, std::forward<Ts>(Vals)...);
  }
  ObjectData &cur() {
    if (!CurData) // std::map nodes stay put: cache the current object's
      CurData = &Objects[CurObj];
    return *CurData;
  }

  CallgrindReader R;
  // Header state.
  int InstrPos = -1;     ///< index of "instr" among the positions
  int IrEvent = -1;      ///< index of "Ir" among the events
  bool HaveEvents = false;
  // Name compression tables.
  CallgrindNames ObjNames, FileNames, FnNames;
  // Current context.
  std::string CurObj = "???", CurFn, CallObj;
  ObjectData *CurData = nullptr;
  bool HaveCallObj = false;
  /// The previous cost line's position, one field per "positions:" entry
  /// ("positions: line" by default).
  SmallVector<uint64_t, 2> Last = {0};
  // What the previous line announced for this one.
  enum { Cost, CallCost, JumpSource } Expect = Cost;
  RawJump PendingJump;
  RawCall PendingCall;
  unsigned PendingLineNo = 0;
  /// Call site of the latest call cost line, for the skipped-cost rule.
  std::optional<uint64_t> LastCallSite;
};

Error Parser::parse() {
  while (R.next())
    if (Error E = line(R.line().trim()))
      return E;
  if (Expect != Cost)
    return R.errorAt(PendingLineNo, "file ends after a calls=/jump= line "
                                    "without its source line");
  return Error::success();
}

Error Parser::line(StringRef T) {
  CallgrindLine L = classifyCallgrindLine(T);
  if (L.Kind == CallgrindLine::Blank || L.Kind == CallgrindLine::Comment)
    return Error::success();
  if (Expect != Cost || L.Kind == CallgrindLine::Cost)
    return costLine(T);
  if (L.Kind == CallgrindLine::Spec)
    return spec(L.Key, L.Value.trim());
  if (L.Kind == CallgrindLine::Header)
    return header(L.Key.trim(), L.Value.trim());
  return bad("unrecognised line '{0}'", T);
}

Error Parser::header(StringRef Key, StringRef Value) {
  if (Key == "positions") {
    SmallVector<StringRef, 16> Names = splitCallgrindFields(Value);
    InstrPos = -1;
    for (size_t I = 0; I < Names.size(); ++I) {
      if (Names[I] == "instr")
        InstrPos = I;
      else if (Names[I] != "line")
        return bad("unsupported position kind '{0}'", Names[I]);
    }
    Last.assign(Names.size(), 0);
    return Error::success();
  }
  if (Key == "events") {
    SmallVector<StringRef, 16> Names = splitCallgrindFields(Value);
    IrEvent = -1;
    for (size_t I = 0; I < Names.size(); ++I)
      if (Names[I] == "Ir")
        IrEvent = I;
    if (IrEvent < 0)
      return bad("no Ir event in 'events: {0}'", Value);
    HaveEvents = true;
    return Error::success();
  }
  if (Key == "part" || Key == "thread") {
    // A new dump: positions start afresh; names and objects carry over.
    Last.assign(Last.size(), 0);
    return Error::success();
  }
  if (is_contained({"version", "creator", "pid", "cmd", "desc", "event",
                    "summary", "totals"},
                   Key))
    return Error::success();
  return bad("unknown header line '{0}:'", Key);
}

Error Parser::needPositions() {
  if (InstrPos < 0)
    return bad("no instruction positions ('positions: instr'); record with "
               "--dump-instr=yes");
  if (!HaveEvents)
    return bad("cost data before the 'events:' line");
  return Error::success();
}

Error Parser::spec(StringRef Key, StringRef Value) {
  std::string Ignored;
  if (Key == "ob") {
    HaveCallObj = false;
    CurData = nullptr;
    return ObjNames.resolve(R, Value, CurObj);
  }
  if (Key == "fn") {
    if (Error E = FnNames.resolve(R, Value, CurFn))
      return E;
    LastCallSite.reset();
    return Error::success();
  }
  if (Key == "fl" || Key == "fi" || Key == "fe" || Key == "cfi" ||
      Key == "cfl" || Key == "jfi")
    return FileNames.resolve(R, Value, Ignored);
  if (Key == "jfn" || Key == "cfn")
    return FnNames.resolve(R, Value, Ignored);
  if (Key == "cob") {
    HaveCallObj = true;
    return ObjNames.resolve(R, Value, CallObj);
  }
  if (Key == "calls" || Key == "jump" || Key == "jcnd")
    return jumpOrCall(Key, Value);
  return bad("unknown specification '{0}='", Key);
}

/// calls=, jump= or jcnd=: the count and target; the next line is the source.
Error Parser::jumpOrCall(StringRef Key, StringRef Value) {
  if (Error E = needPositions())
    return E;
  SmallVector<StringRef, 16> Toks = splitCallgrindFields(Value);
  if (Toks.empty())
    return bad("{0}= without a count", Key);
  uint64_t Count = 0, Exec = 0;
  if (Key == "jcnd") {
    auto [Taken, Execs] = Toks[0].split('/');
    if (Execs.empty() || Taken.getAsInteger(10, Count) ||
        Execs.getAsInteger(10, Exec))
      return bad("bad jcnd count '{0}' (expected TAKEN/EXECUTED)", Toks[0]);
    if (Count > Exec)
      return bad("jcnd taken count {0} exceeds executions {1}", Count, Exec);
  } else if (Toks[0].getAsInteger(10, Count)) {
    return bad("bad {0} count '{1}'", Key, Toks[0]);
  }
  // Jump and call targets do not move the reference position (dump.c
  // updates it only in fprint_fcost).
  size_t I = 1;
  SmallVector<uint64_t, 2> Target;
  if (Error E = readCallgrindPositions(R, Toks, I, Last, Target))
    return E;
  if (I != Toks.size())
    return bad("trailing fields after the {0}= target", Key);
  PendingLineNo = R.lineNo();
  if (Key == "calls") {
    PendingCall =
        RawCall{0, Target[InstrPos], Count, HaveCallObj ? CallObj : CurObj};
    HaveCallObj = false;
    Expect = CallCost;
  } else {
    PendingJump = RawJump{0, Target[InstrPos], Count};
    Expect = JumpSource;
  }
  return Error::success();
}

Error Parser::costLine(StringRef L) {
  if (Error E = needPositions())
    return E;
  SmallVector<StringRef, 16> Toks = splitCallgrindFields(L);
  size_t I = 0;
  SmallVector<uint64_t, 2> Pos;
  if (Error E = readCallgrindPositions(R, Toks, I, Last, Pos))
    return E;
  uint64_t Addr = Pos[InstrPos];
  SmallVector<uint64_t, 16> Costs;
  if (Error E = readCallgrindCosts(R, Toks, I, Costs))
    return E;
  uint64_t Ir = IrEvent < (int)Costs.size() ? Costs[IrEvent] : 0;

  switch (Expect) {
  case JumpSource:
    if (Toks.size() != Last.size())
      return bad("a jump source line carries costs");
    PendingJump.Src = Addr;
    cur().Jumps.push_back(PendingJump);
    Expect = Cost;
    return Error::success();
  case CallCost:
    PendingCall.Src = Addr;
    cur().Calls.push_back(PendingCall);
    LastCallSite = Addr;
    Expect = Cost;
    return Error::success();
  case Cost:
    break;
  }
  ObjectData &O = cur();
  auto NextIsCallOrJump = [&] {
    StringRef Next = R.peekNonBlank();
    return Next.starts_with("c") || Next.starts_with("j");
  };
  if (LastCallSite && *LastCallSite == Addr && !NextIsCallOrJump()) {
    // --skip-plt=yes: instructions of the skipped stub, charged here.
    O.SkippedIr += Ir;
  } else if (Ir) {
    addCount(O.Executed[Addr], Ir);
    auto [It, New] = O.FnLowest.try_emplace(CurFn, Addr);
    if (!New)
      It->second = std::min(It->second, Addr);
  }
  LastCallSite.reset();
  Last = Pos;
  return Error::success();
}

//===----------------------------------------------------------------------===//
// From callgrind's counts to an AddressProfile of the binary.
//===----------------------------------------------------------------------===//

/// Is object name \p Ob the binary? Exact path or same real path.
bool samePath(StringRef Ob, StringRef BinPath) {
  if (Ob == BinPath)
    return true;
  SmallString<256> A, B;
  if (sys::fs::real_path(Ob, A) || sys::fs::real_path(BinPath, B))
    return false;
  return A == B;
}

Expected<const ObjectData *> selectObject(const Parser &P, const Binary &Bin,
                                          StringRef FileName) {
  const ObjectData *Found = nullptr;
  for (const auto &[Name, D] : P.Objects)
    if (samePath(Name, Bin.path()))
      Found = &D;
  if (!Found) // Recorded elsewhere: fall back to the file name alone.
    for (const auto &[Name, D] : P.Objects)
      if (Name != "???" &&
          sys::path::filename(Name) == sys::path::filename(Bin.path())) {
        if (Found)
          return inputError(FileName, 0,
                            "several objects are named like {0}", Bin.path());
        Found = &D;
      }
  if (!Found) {
    std::string Names;
    for (const auto &[Name, D] : P.Objects)
      if (!D.Executed.empty())
        Names += (Names.empty() ? "" : ", ") + Name;
    return inputError(FileName, 0,
                      "no object in the profile is the binary {0} (objects: "
                      "{1})",
                      Bin.path(), Names);
  }
  return Found;
}

/// The difference between callgrind's addresses and link-time addresses:
/// the most common (lowest address of a fn= block - its ELF symbol) over
/// the functions callgrind named, among page multiples. 0 when nothing
/// matches.
uint64_t findBias(const ObjectData &D, const Binary &Bin) {
  std::map<uint64_t, unsigned> Votes;
  for (const auto &[Name, Lowest] : D.FnLowest)
    if (const SymbolInfo *S = Bin.functionNamed(Name))
      if (((Lowest - S->Addr) & 0xfff) == 0) // load biases are whole pages
        ++Votes[Lowest - S->Addr];
  uint64_t Best = 0;
  unsigned BestVotes = 0;
  for (const auto &[Bias, N] : Votes)
    if (N > BestVotes || (N == BestVotes && Bias == 0)) {
      Best = Bias;
      BestVotes = N;
    }
  return Best;
}

/// valgrind maps only the sections its debug-info reader treats as the
/// executable's text to the executable; code in .init, .plt, .plt.got and
/// .fini comes out under the unnamed object "???" at run-time addresses.
/// The run-time bias of that code is what the binary's direct calls into
/// it say: callgrind's target minus the call's static target (a PLT entry).
/// A non-PIE is not moved. Instructions of "???" that then decode in the
/// binary's functions are moved over to \p Main (in \p Main's reported
/// addresses, which are \p MainBias off link time); the rest stays out.
void adoptUnnamedCode(ObjectData &Main, StringRef MainName, uint64_t MainBias,
                      const ObjectData &Unnamed, const Binary &Bin) {
  std::map<uint64_t, unsigned> Votes;
  for (const RawCall &C : Main.Calls) {
    if (C.DstObj != "???")
      continue;
    auto I = Bin.instructionAt(C.Src - MainBias);
    if (!I) {
      consumeError(I.takeError());
      continue;
    }
    if (I->Target && ((C.Dst - *I->Target) & 0xfff) == 0)
      ++Votes[C.Dst - *I->Target];
  }
  std::optional<uint64_t> Bias;
  unsigned Best = 0;
  for (const auto &[B, N] : Votes)
    if (N > Best) {
      Bias = B;
      Best = N;
    }
  if (!Bias && !Bin.isPIE())
    Bias = 0;
  if (!Bias)
    return;
  // From "???"'s run-time addresses to Main's reported ones.
  auto Move = [&](uint64_t A) { return A - *Bias + MainBias; };
  // Only code of a symbol (PLT entries, _init, _fini): the PLT header
  // belongs to no function.
  auto InBinary = [&](uint64_t A) {
    auto I = Bin.instructionAt(A - *Bias);
    if (!I)
      consumeError(I.takeError());
    return I && Bin.functionAt(A - *Bias);
  };
  for (const auto &[A, N] : Unnamed.Executed)
    if (InBinary(A))
      addCount(Main.Executed[Move(A)], N);
  for (const RawJump &J : Unnamed.Jumps)
    if (InBinary(J.Src) && InBinary(J.Dst))
      Main.Jumps.push_back({Move(J.Src), Move(J.Dst), J.Taken});
  for (const RawCall &C : Unnamed.Calls)
    if (InBinary(C.Src)) {
      RawCall M = C;
      M.Src = Move(C.Src);
      if (C.DstObj == "???" && InBinary(C.Dst)) {
        M.Dst = Move(C.Dst);
        M.DstObj = MainName.str();
      }
      Main.Calls.push_back(std::move(M));
    }
  for (RawCall &C : Main.Calls)
    if (C.DstObj == "???" && InBinary(C.Dst)) {
      C.Dst = Move(C.Dst);
      C.DstObj = MainName.str();
    }
}

class ProfileBuilder {
public:
  ProfileBuilder(const ObjectData &D, StringRef MainName,
                 const Binary &Bin, uint64_t Bias, QualityReport &Q)
      : D(D), MainName(MainName), Bin(Bin), Bias(Bias), Q(Q) {}
  AddressProfile build();

private:
  void countExecutions();
  void addJumps();
  void addCalls();
  void addRanges();
  uint64_t exits(uint64_t Addr, const InstInfo &I) const;
  const InstInfo *inst(uint64_t Addr);

  const ObjectData &D;
  StringRef MainName;
  const Binary &Bin;
  uint64_t Bias;
  QualityReport &Q;
  AddressProfile AP;
  std::map<uint64_t, uint64_t> Count;     ///< link-time address -> executions
  std::map<uint64_t, uint64_t> JumpsFrom; ///< taken jump=/jcnd= per source
  std::map<uint64_t, std::optional<InstInfo>> Decoded;
};

const InstInfo *ProfileBuilder::inst(uint64_t Addr) {
  auto [It, New] = Decoded.try_emplace(Addr);
  if (New) {
    auto I = Bin.instructionAt(Addr);
    if (I)
      It->second = *I;
    else
      consumeError(I.takeError());
  }
  return It->second ? &*It->second : nullptr;
}

void ProfileBuilder::countExecutions() {
  for (const auto &[A, N] : D.Executed) {
    uint64_t Addr = A - Bias;
    if (!inst(Addr)) {
      Q.count("executed instructions are outside the binary's code", N);
      continue;
    }
    addCount(Count[Addr], N);
  }
}

void ProfileBuilder::addJumps() {
  for (const RawJump &J : D.Jumps) {
    if (!J.Taken)
      continue;
    uint64_t Src = J.Src - Bias, Dst = J.Dst - Bias;
    const InstInfo *I = inst(Src);
    if (!I || !inst(Dst)) {
      Q.count("jumps from or to outside the binary's code", J.Taken);
      continue;
    }
    if (I->IsBranch) {
      addCount(JumpsFrom[Src], J.Taken);
      AP.Branches[{Src, Dst}].Count += J.Taken;
      continue;
    }
    // Not a branch of the program. valgrind ends a block where it likes
    // (a length limit, an instruction it splits) and then reports the step
    // to the next instruction as a jump: that is a fall-through. It models
    // a rep-prefixed string instruction as a jump to itself: an exit and
    // re-entry for the runs, but no branch.
    if (Dst != Src + I->Size)
      addCount(JumpsFrom[Src], J.Taken);
  }
}

void ProfileBuilder::addCalls() {
  std::set<uint64_t> DirectDone;
  for (const RawCall &C : D.Calls) {
    uint64_t Src = C.Src - Bias;
    const InstInfo *I = inst(Src);
    if (!I || !Count.count(Src)) {
      Q.count("calls from outside the binary's code", C.Count);
      continue;
    }
    if (I->Target && !I->IsConditional) {
      // A direct call (or tail jump) always lands on its static target,
      // e.g. a PLT entry, whatever callgrind says the callee resolved to.
      if (DirectDone.insert(Src).second)
        AP.Branches[{Src, *I->Target}].Count += Count[Src];
      continue;
    }
    // Indirect calls into shared libraries (_start's call of
    // __libc_start_main) have no address in this binary: not kept, as
    // BOLT keeps them only as "[unknown]".
    if (C.DstObj == MainName && inst(C.Dst - Bias))
      AP.Branches[{Src, C.Dst - Bias}].Count += C.Count;
  }
}

/// How often control left \p Addr other than to the next instruction. A
/// call that returns counts as going on to the next instruction: BOLT keeps
/// calls inside basic blocks, so a run continues over them (one that does
/// not return shows up as fewer executions after it).
uint64_t ProfileBuilder::exits(uint64_t Addr, const InstInfo &I) const {
  auto C = Count.find(Addr);
  uint64_t N = C == Count.end() ? 0 : C->second;
  if (I.IsCall)
    return 0;
  if (I.IsReturn || (I.IsBranch && !I.IsConditional))
    return N;
  auto J = JumpsFrom.find(Addr);
  return std::min(N, J == JumpsFrom.end() ? 0 : J->second);
}

/// Cover the executed instructions with straight-line runs: a run starts
/// where control arrives other than by falling through or returning (a
/// branch target, a function entry) and ends where it leaves (a taken
/// branch, a return, a call that does not come back). Where runs from
/// different starts meet, they continue together and the oldest ends first.
/// Each instruction's executions are thus covered exactly once.
void ProfileBuilder::addRanges() {
  struct Open {
    uint64_t Start, N;
  };
  std::vector<Open> Active; // oldest first
  uint64_t Flow = 0;        // executions arriving by fall-through
  uint64_t Prev = 0;
  auto endRuns = [&](uint64_t End, uint64_t N) {
    while (N && !Active.empty()) {
      Open &O = Active.front();
      uint64_t K = std::min(N, O.N);
      addCount(AP.FallThroughs[{O.Start, End}], K);
      O.N -= K;
      N -= K;
      if (!O.N)
        Active.erase(Active.begin());
    }
  };
  for (auto It = Count.begin(); It != Count.end(); ++It) {
    auto [Addr, N] = *It;
    const InstInfo &I = *inst(Addr);
    if (Flow > N) { // fewer arrive than fell through: the program stopped
      endRuns(Prev, Flow - N);
      Flow = N;
    }
    if (N > Flow)
      Active.push_back({Addr, N - Flow});
    uint64_t Out = exits(Addr, I);
    endRuns(Addr, Out);
    Flow = N - Out;
    auto Next = std::next(It);
    bool Continues = Next != Count.end() && Next->first == Addr + I.Size &&
                     Bin.functionAt(Next->first) == Bin.functionAt(Addr);
    if (Flow && !Continues) {
      if (Next != Count.end() && Next->first == Addr + I.Size && !I.IsCall)
        Q.count("fall-throughs across a function boundary", Flow);
      endRuns(Addr, Flow);
      Flow = 0;
    }
    Prev = Addr;
  }
  endRuns(Prev, Flow);
}

AddressProfile ProfileBuilder::build() {
  AP.BuildID = Bin.buildID().str();
  countExecutions();
  addJumps();
  addCalls();
  addRanges();
  if (D.SkippedIr)
    Q.count("instructions of skipped code (PLT stubs) charged to call sites",
            D.SkippedIr);
  return std::move(AP);
}

} // namespace

Expected<AddressProfile> readCallgrind(StringRef Text, StringRef FileName,
                                       const Binary &Bin,
                                       QualityReport &Quality) {
  Parser P(Text, FileName);
  if (Error E = P.parse())
    return std::move(E);
  auto Obj = selectObject(P, Bin, FileName);
  if (!Obj)
    return Obj.takeError();
  std::string MainName;
  for (const auto &[Name, D] : P.Objects)
    if (&D == *Obj)
      MainName = Name;
  uint64_t Bias = findBias(**Obj, Bin);
  ObjectData D = **Obj;
  auto Unnamed = P.Objects.find("???");
  if (Unnamed != P.Objects.end() && &Unnamed->second != *Obj)
    adoptUnnamedCode(D, MainName, Bias, Unnamed->second, Bin);
  ProfileBuilder B(D, MainName, Bin, Bias, Quality);
  AddressProfile AP = B.build();
  if (!(*Obj)->Executed.empty() && AP.FallThroughs.empty())
    return inputError(FileName, 0,
                      "none of the {0} executed instructions of {1} is in "
                      "the binary's code (a profile of another build?)",
                      (*Obj)->Executed.size(), MainName);
  return std::move(AP);
}

} // namespace keel
