//===- keel/FalseShare/Fields.h - name the field at an offset ---*- C++ -*-===//
//
// Given a global variable's name and a byte offset into it, name the member
// or element there from the binary's DWARF: `counters.hits`,
// `shared_array[1]`, `grid[3].x+2` (2 bytes into x), `pair+12` (padding).
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_FALSESHARE_FIELDS_H
#define KEEL_FALSESHARE_FIELDS_H

#include "llvm/ADT/StringRef.h"

#include <map>
#include <memory>
#include <optional>
#include <string>

namespace llvm {
class DWARFContext;
namespace object {
class ObjectFile;
}
} // namespace llvm

namespace keel::fs {

class FieldNamer {
public:
  explicit FieldNamer(const llvm::object::ObjectFile &Obj);
  ~FieldNamer();
  /// The access path below \p Var at \p Offset ("" at offset 0 of a scalar),
  /// or nullopt when the binary has no DWARF for \p Var.
  std::optional<std::string> path(llvm::StringRef Var, uint64_t Offset);
  /// The type name of \p Var as written in DWARF, if known.
  std::optional<std::string> typeName(llvm::StringRef Var);

private:
  void index();
  std::unique_ptr<llvm::DWARFContext> Ctx;
  bool Indexed = false;
  std::map<std::string, uint64_t> VarTypeOffset; ///< var -> type DIE offset
};

} // namespace keel::fs

#endif
