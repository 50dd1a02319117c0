//===- keel/Profile/Binary.h - an ELF binary seen through LLVM Object -*- C++ -*-===//
//
// The binary model every analysis shares: function and data symbols (locals
// too), sections, build-id, PIE load bias, address -> function+offset, and
// instruction-level queries answered by disassembling with LLVM MC
// (instruction counts over a range, the next instruction's address for
// fall-through edges, the branch/call kind of an instruction).
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_PROFILE_BINARY_H
#define KEEL_PROFILE_BINARY_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class MCDisassembler;
class MCInstrInfo;
class MCInstrAnalysis;
class MCSubtargetInfo;
class MCRegisterInfo;
class MCAsmInfo;
class MCContext;
class MCInst;
} // namespace llvm

namespace keel {

struct SymbolInfo {
  std::string Name;    ///< as in the symbol table (not demangled)
  uint64_t Addr = 0;   ///< link-time virtual address
  uint64_t Size = 0;
  bool IsLocal = false;    ///< STB_LOCAL: may repeat across files
  /// STB_WEAK: for C++ inline and template functions, a COMDAT whose copy
  /// in every object but one the linker discards.
  bool IsWeak = false;
  bool IsFunction = false; ///< STT_FUNC (else STT_OBJECT)
  std::string FileName; ///< STT_FILE that precedes a local symbol, if any
  std::string Section;  ///< containing section name
  /// The name BOLT gives this symbol: globals keep theirs; locals become
  /// "name/N", N counting same-named locals in symbol-table order from 1
  /// (BOLT's NameResolver::uniquify), which fdata files use.
  std::string BoltName;
};

struct SectionInfo {
  std::string Name;
  uint64_t Addr = 0, Size = 0, FileOffset = 0;
  bool IsAlloc = false, IsExec = false, IsWrite = false, IsBSS = false;
};

/// What disassembly says about one instruction.
struct InstInfo {
  uint64_t Addr = 0;
  uint8_t Size = 0;
  bool IsBranch = false, IsConditional = false, IsCall = false,
       IsReturn = false, IsIndirect = false;
  std::optional<uint64_t> Target; ///< direct branch/call target
};

class Binary {
public:
  /// Open and index an ELF executable or shared object.
  static llvm::Expected<std::unique_ptr<Binary>> open(llvm::StringRef Path);
  ~Binary();

  llvm::StringRef path() const { return Path; }
  /// Lower-case hex of NT_GNU_BUILD_ID, or "" when absent.
  llvm::StringRef buildID() const { return BuildID; }
  /// The build id of the file at \p Path, as buildID() would give it; ""
  /// when it is not a regular file, not an object file, or has none. What
  /// the readers compare a recording's mapping with when the recording
  /// carries no build id (perf record -o -, -z).
  static std::string buildIDOfFile(llvm::StringRef Path);
  bool isPIE() const { return IsPIE; }
  /// Lowest PT_LOAD p_vaddr (0 for most PIEs).
  uint64_t baseAddress() const { return BaseAddr; }
  /// Load bias of a code mapping seen at run time: runtime start of a
  /// mapping of file offset \p PgOff minus its link-time address (when
  /// several segments share that file page, the executable one).
  uint64_t loadBias(uint64_t MapStart, uint64_t PgOff) const;

  /// Function symbols sorted by address (aliases collapsed: global name
  /// first, and of a C1/C2 or D1/D2 pair the C2/D2 that owns the section,
  /// see chooseAliases in Binary.cpp), plus one synthetic symbol per PLT entry ("f@plt", BOLT name
  /// "f@PLT") so branches into the PLT symbolize as BOLT spells them.
  llvm::ArrayRef<SymbolInfo> functions() const { return Functions; }
  /// Data symbols (STT_OBJECT) sorted by address.
  llvm::ArrayRef<SymbolInfo> dataSymbols() const { return DataSymbols; }
  llvm::ArrayRef<SectionInfo> sections() const { return Sections; }

  /// The function containing \p Addr (within its size; a size-0 symbol
  /// covers up to the next symbol), or nullptr.
  const SymbolInfo *functionAt(uint64_t Addr) const;
  /// The data symbol containing \p Addr, or nullptr.
  const SymbolInfo *dataAt(uint64_t Addr) const;
  /// A function by BOLT name ("name/N" for locals), then by plain name.
  const SymbolInfo *functionByBoltName(llvm::StringRef Name) const;
  /// A function by name; locals may be qualified "file.c:name" or "name/N"
  /// (BOLT's suffix) and are otherwise ambiguous (first by address).
  const SymbolInfo *functionNamed(llvm::StringRef Name) const;
  const SectionInfo *sectionAt(uint64_t Addr) const;
  bool isExecutableAddress(uint64_t Addr) const;

  /// The bytes at [Addr, Addr+Size) of an allocated, file-backed section.
  llvm::Expected<llvm::ArrayRef<uint8_t>> bytesAt(uint64_t Addr,
                                                  uint64_t Size) const;

  /// Decode the instruction at \p Addr (cached).
  llvm::Expected<InstInfo> instructionAt(uint64_t Addr) const;
  /// Address of the instruction after the one at \p Addr.
  llvm::Expected<uint64_t> nextInstruction(uint64_t Addr) const;
  /// Number of instructions from \p Start through the instruction that
  /// starts at \p Last (inclusive), decoding linearly. Error if the range
  /// leaves executable code or does not land on \p Last.
  llvm::Expected<uint64_t> countInstructions(uint64_t Start,
                                             uint64_t Last) const;
  /// Decode linearly [Start, End) and call \p Fn for each instruction.
  llvm::Error forEachInstruction(uint64_t Start, uint64_t End,
                                 llvm::function_ref<void(const InstInfo &,
                                                         const llvm::MCInst &)>
                                     Fn) const;

  const llvm::object::ObjectFile &object() const { return *Obj; }
  const llvm::MCInstrInfo &instrInfo() const { return *MII; }
  const llvm::MCRegisterInfo &registerInfo() const { return *MRI; }
  /// For operand-level questions (memory operand addresses, ...).
  const llvm::MCInstrAnalysis &instrAnalysis() const { return *MIA; }
  const llvm::MCSubtargetInfo &subtargetInfo() const { return *STI; }

private:
  Binary() = default;
  llvm::Error index();
  llvm::Error initDisassembler();
  void indexNames();
  /// Name the PLT entries "f@plt" (Name, as objdump) / "f@PLT" (BoltName,
  /// as BOLT) after the GOT slot each one jumps through.
  void addPLTEntries();

  std::string Path;
  std::string BuildID;
  bool IsPIE = false;
  uint64_t BaseAddr = 0;
  struct LoadSegment {
    uint64_t VAddr, MemSize, Offset, FileSize;
    bool Exec;
  };
  std::vector<LoadSegment> Segments;
  std::vector<SymbolInfo> Functions, DataSymbols;
  std::vector<SectionInfo> Sections;
  std::map<std::string, size_t> FunctionByName; // first by address
  std::map<std::string, size_t> FunctionByBoltName;
  /// Names (and BOLT names) of the aliases collapsed into another symbol,
  /// with their address: functionNamed finds the one kept by them.
  std::vector<std::pair<SymbolInfo, uint64_t>> Aliases;

  llvm::object::OwningBinary<llvm::object::ObjectFile> Owner;
  llvm::object::ObjectFile *Obj = nullptr;
  std::unique_ptr<llvm::MCRegisterInfo> MRI;
  std::unique_ptr<llvm::MCAsmInfo> MAI;
  std::unique_ptr<llvm::MCSubtargetInfo> STI;
  std::unique_ptr<llvm::MCInstrInfo> MII;
  std::unique_ptr<llvm::MCContext> Ctx;
  std::unique_ptr<llvm::MCDisassembler> DisAsm;
  std::unique_ptr<llvm::MCInstrAnalysis> MIA;
  mutable std::map<uint64_t, InstInfo> InstCache;
};

} // namespace keel

#endif
