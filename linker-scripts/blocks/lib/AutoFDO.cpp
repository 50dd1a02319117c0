//===- AutoFDO.cpp - branch profile -> text sample profile -----------------===//
#include "keel/Blocks/AutoFDO.h"
#include "keel/Profile/Binary.h"
#include "keel/Support/Diagnostics.h"

#include "llvm/DebugInfo/Symbolize/Symbolize.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>
#include <set>
#include <tuple>

using namespace llvm;

namespace keel {

namespace {

/// (line offset, discriminator)
using LineLoc = std::pair<uint32_t, uint32_t>;

struct SampleNode {
  uint64_t Head = 0;
  std::map<LineLoc, uint64_t> Body;
  std::map<LineLoc, std::map<std::string, uint64_t>> Calls;
  std::map<std::pair<LineLoc, std::string>, SampleNode> Inlined;

  uint64_t total() const {
    uint64_t T = 0;
    for (const auto &[L, N] : Body)
      T += N;
    for (const auto &[K, Child] : Inlined)
      T += Child.total();
    return T;
  }
};

LineLoc lineLoc(const DILineInfo &F) {
  uint32_t Off = F.Line >= F.StartLine ? F.Line - F.StartLine : 0;
  return {Off, F.Discriminator};
}

class Builder {
public:
  explicit Builder(const Binary &Bin) : Bin(Bin) {
    symbolize::LLVMSymbolizer::Options Opts;
    Opts.Demangle = false;
    Opts.UseSymbolTable = true;
    // With FileLineInfoKind::None DWARFContext fills in no line at all.
    Opts.PathStyle = DILineInfoSpecifier::FileLineInfoKind::RawValue;
    Sym = std::make_unique<symbolize::LLVMSymbolizer>(Opts);
  }

  /// The node of the innermost frame at \p Addr, and that frame's line.
  SampleNode *nodeAt(uint64_t Addr, LineLoc &Loc) {
    auto Frames = Sym->symbolizeInlinedCode(
        Bin.object(), {Addr, object::SectionedAddress::UndefSection});
    if (!Frames) {
      consumeError(Frames.takeError());
      ++NoLines;
      return nullptr;
    }
    unsigned N = Frames->getNumberOfFrames();
    if (N == 0 || Frames->getFrame(N - 1).Line == 0 ||
        Frames->getFrame(N - 1).FunctionName == DILineInfo::BadString) {
      ++NoLines;
      return nullptr;
    }
    SampleNode *Node = &Top[Frames->getFrame(N - 1).FunctionName];
    for (unsigned I = N - 1; I > 0; --I) {
      const DILineInfo &Caller = Frames->getFrame(I);
      const DILineInfo &Callee = Frames->getFrame(I - 1);
      Node = &Node->Inlined[{lineLoc(Caller), Callee.FunctionName}];
    }
    Loc = lineLoc(Frames->getFrame(0));
    return Node;
  }

  void addBody(uint64_t Addr, uint64_t Count) {
    LineLoc Loc;
    if (SampleNode *Node = nodeAt(Addr, Loc)) {
      uint64_t &C = Node->Body[Loc];
      C = std::max(C, Count);
    }
  }

  void addCall(uint64_t From, StringRef Callee, uint64_t Count) {
    LineLoc Loc;
    if (SampleNode *Node = nodeAt(From, Loc))
      Node->Calls[Loc][Callee.str()] += Count;
  }

  uint64_t NoLines = 0; ///< executed addresses without line information
  /// No function has a sampled line (call heads alone are not a profile).
  bool empty() const {
    for (const auto &[Name, Node] : Top)
      if (Node.total())
        return false;
    return true;
  }

  void addHead(StringRef Fn, uint64_t Count) { Top[Fn.str()].Head += Count; }

  void write(raw_ostream &OS) const {
    // Hottest first, then by name, so the file reads like llvm-profdata's.
    std::vector<std::pair<uint64_t, std::string>> Order;
    for (const auto &[Name, Node] : Top)
      if (uint64_t T = Node.total())
        Order.push_back({T, Name});
    llvm::stable_sort(Order, [](const auto &A, const auto &B) {
      return std::tie(B.first, A.second) < std::tie(A.first, B.second);
    });
    for (const auto &[T, Name] : Order) {
      const SampleNode &Node = Top.at(Name);
      OS << Name << ':' << T << ':' << Node.Head << '\n';
      writeBody(Node, 1, OS);
    }
  }

private:
  static void writeLoc(const LineLoc &L, raw_ostream &OS) {
    OS << L.first;
    if (L.second)
      OS << '.' << L.second;
  }

  static void writeBody(const SampleNode &Node, unsigned Depth,
                        raw_ostream &OS) {
    for (const auto &[Loc, N] : Node.Body) {
      OS.indent(Depth);
      writeLoc(Loc, OS);
      OS << ": " << N;
      auto It = Node.Calls.find(Loc);
      if (It != Node.Calls.end())
        for (const auto &[Callee, C] : It->second)
          OS << ' ' << Callee << ':' << C;
      OS << '\n';
    }
    for (const auto &[Key, Child] : Node.Inlined) {
      uint64_t T = Child.total();
      if (!T)
        continue;
      OS.indent(Depth);
      writeLoc(Key.first, OS);
      OS << ": " << Key.second << ':' << T << '\n';
      writeBody(Child, Depth + 1, OS);
    }
  }

  const Binary &Bin;
  std::unique_ptr<symbolize::LLVMSymbolizer> Sym;
  std::map<std::string, SampleNode> Top;
};

/// Profiles without ranges (fdata keeps fall-throughs as block-to-block
/// edges): every record entering an address T starts a straight run that
/// ends at the next address that is the source of some record, or at a
/// return or unconditional jump, decoding forward from T.
std::map<std::pair<uint64_t, uint64_t>, uint64_t>
rangesFromBranches(const AddressProfile &AP, const Binary &Bin) {
  std::set<uint64_t> Sources;
  std::map<uint64_t, uint64_t> Entered;
  for (const auto &[Br, C] : AP.Branches) {
    Sources.insert(Br.first);
    Entered[Br.second] += C.Count;
  }
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> Ranges;
  for (const auto &[Start, N] : Entered) {
    const SymbolInfo *F = Bin.functionAt(Start);
    if (!F || !N)
      continue;
    uint64_t End = F->Size ? F->Addr + F->Size : UINT64_MAX;
    uint64_t Addr = Start;
    while (Addr < End) {
      auto I = Bin.instructionAt(Addr);
      if (!I) {
        consumeError(I.takeError());
        break;
      }
      if (Sources.count(Addr) || I->IsReturn ||
          (I->IsBranch && !I->IsConditional)) {
        Ranges[{Start, Addr}] += N;
        break;
      }
      Addr += I->Size;
    }
  }
  return Ranges;
}

} // namespace

Error writeAutoFDOProfile(const Binary &Bin, const AddressProfile &AP,
                          raw_ostream &OS, QualityReport &Quality) {
  // Execution count of every instruction, from the fall-through ranges.
  std::map<uint64_t, uint64_t> InstCounts;
  auto Ranges = AP.FallThroughs.empty() ? rangesFromBranches(AP, Bin)
                                        : AP.FallThroughs;
  for (const auto &[Range, N] : Ranges) {
    auto End = Bin.nextInstruction(Range.second);
    if (!End) {
      consumeError(End.takeError());
      Quality.count("fall-through ranges do not decode");
      continue;
    }
    uint64_t Count = N;
    if (Error E = Bin.forEachInstruction(
            Range.first, *End,
            [&](const InstInfo &I, const MCInst &) { InstCounts[I.Addr] += Count; })) {
      consumeError(std::move(E));
      Quality.count("fall-through ranges do not decode");
    }
  }
  if (InstCounts.empty() && AP.IPSamples.empty())
    return makeError("the profile has no executed ranges to export");
  for (const auto &[Addr, N] : AP.IPSamples)
    InstCounts[Addr] += N;

  Builder B(Bin);
  for (const auto &[Addr, N] : InstCounts)
    B.addBody(Addr, N);
  for (const auto &[Br, C] : AP.Branches) {
    const SymbolInfo *Callee = Bin.functionAt(Br.second);
    if (!Callee || Callee->Addr != Br.second)
      continue;
    auto I = Bin.instructionAt(Br.first);
    if (!I) {
      consumeError(I.takeError());
      continue;
    }
    if (!I->IsCall)
      continue;
    // A call through the PLT is a call of the function itself.
    StringRef Name = Callee->Name;
    Name.consume_back("@plt");
    B.addCall(Br.first, Name, C.Count);
    B.addHead(Name, C.Count);
  }
  if (B.NoLines)
    Quality.count("executed instruction addresses without line information "
                  "(not exported)",
                  B.NoLines);
  if (B.empty())
    return inputError(Bin.path(), 0,
                      "no executed address has line information: build with "
                      "-g (DWARF 4 for valgrind) to export an AutoFDO profile");
  B.write(OS);
  return Error::success();
}

} // namespace keel
