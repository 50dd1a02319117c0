//===- keel/Planner/HotData.h - rank the data hot code touches --*- C++ -*-===//
//
// Hot data ranking (by use frequency, docs/references.md): disassemble the
// executed ranges of the profile with LLVM MC, resolve each memory operand
// that names a fixed address (RIP-relative, or absolute in a non-PIE
// binary) to a data symbol, and weight the symbol by how often the
// instruction executed. Symbols touched by stores are "written"; the plan
// keeps them apart from read-mostly data so stores do not invalidate lines
// that only loads need.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_PLANNER_HOTDATA_H
#define KEEL_PLANNER_HOTDATA_H

#include "keel/Plan/Plan.h"
#include "keel/Profile/Binary.h"
#include "keel/Profile/BranchProfile.h"
#include "keel/Support/Diagnostics.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace keel {

/// One executed memory reference to a fixed address.
struct DataReference {
  uint64_t Target = 0; ///< the address the operand names
  uint64_t Count = 0;  ///< executions of the referencing instruction
  bool IsStore = false;
};

struct HotDatum {
  std::string Name;
  std::string File;    ///< STT_FILE of a local symbol
  std::string Section; ///< section in the profiled binary
  DataKind Kind = DataKind::Data;
  uint64_t Addr = 0, Size = 0;
  uint64_t Weight = 0; ///< executions of instructions referencing it
  bool Written = false;
};

/// Collect the fixed-address memory references of the executed ranges of
/// \p AP (fall-through ranges, with their counts).
llvm::Expected<std::vector<DataReference>>
collectDataReferences(const Binary &Bin, const AddressProfile &AP,
                      QualityReport &Quality);

/// Aggregate \p Refs per data symbol of \p Syms (sorted by address) in the
/// sections \p Sections; order by weight (heaviest first, ties by address).
/// References outside every data symbol are counted in \p Quality.
std::vector<HotDatum> rankHotData(llvm::ArrayRef<SymbolInfo> Syms,
                                  llvm::ArrayRef<SectionInfo> Sections,
                                  llvm::ArrayRef<DataReference> Refs,
                                  QualityReport &Quality);

/// The kind a section holds, or nothing for sections the planner does not
/// move (.data.rel.ro, .got, .tdata, ...).
std::optional<DataKind> dataKindOfSection(const SectionInfo &S);

} // namespace keel

#endif
