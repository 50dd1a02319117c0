//===- Fields.cpp - name the member or element at an offset (DWARF) -------===//
#include "keel/FalseShare/Fields.h"

#include "llvm/DebugInfo/DWARF/DWARFContext.h"
#include "llvm/DebugInfo/DWARF/DWARFDie.h"
#include "llvm/DebugInfo/DWARF/DWARFFormValue.h"
#include "llvm/DebugInfo/DWARF/DWARFUnit.h"
#include "llvm/Object/ObjectFile.h"

using namespace llvm;

namespace keel::fs {

FieldNamer::FieldNamer(const object::ObjectFile &Obj)
    : Ctx(DWARFContext::create(Obj)) {}
FieldNamer::~FieldNamer() = default;

void FieldNamer::index() {
  Indexed = true;
  for (const auto &CU : Ctx->compile_units()) {
    for (const DWARFDebugInfoEntry &E : CU->dies()) {
      DWARFDie D(CU.get(), &E);
      if (D.getTag() != dwarf::DW_TAG_variable)
        continue;
      // Only definitions at file scope (or static members) have a location.
      if (!D.find(dwarf::DW_AT_location))
        continue;
      DWARFDie Decl = D;
      if (auto Spec = D.getAttributeValueAsReferencedDie(
              dwarf::DW_AT_specification))
        Decl = Spec;
      const char *Name = D.getName(DINameKind::LinkageName);
      if (!Name)
        Name = Decl.getName(DINameKind::LinkageName);
      if (!Name)
        Name = Decl.getShortName();
      DWARFDie Ty = Decl.getAttributeValueAsReferencedDie(dwarf::DW_AT_type);
      if (!Name || !Ty)
        continue;
      VarTypeOffset.emplace(Name, Ty.getOffset());
    }
  }
}

static DWARFDie strip(DWARFDie T) {
  for (int I = 0; I < 16 && T; ++I) {
    switch (T.getTag()) {
    case dwarf::DW_TAG_typedef:
    case dwarf::DW_TAG_const_type:
    case dwarf::DW_TAG_volatile_type:
    case dwarf::DW_TAG_atomic_type:
    case dwarf::DW_TAG_restrict_type:
      T = T.getAttributeValueAsReferencedDie(dwarf::DW_AT_type);
      continue;
    default:
      return T;
    }
  }
  return T;
}

static std::string walk(DWARFDie T, uint64_t Off, unsigned Depth) {
  T = strip(T);
  auto rest = [&] { return Off ? "+" + std::to_string(Off) : std::string(); };
  if (!T || Depth > 8)
    return rest();
  switch (T.getTag()) {
  case dwarf::DW_TAG_structure_type:
  case dwarf::DW_TAG_class_type:
  case dwarf::DW_TAG_union_type:
    for (DWARFDie M : T.children()) {
      if (M.getTag() != dwarf::DW_TAG_member)
        continue;
      uint64_t MOff =
          dwarf::toUnsigned(M.find(dwarf::DW_AT_data_member_location), 0);
      DWARFDie MT = M.getAttributeValueAsReferencedDie(dwarf::DW_AT_type);
      std::optional<uint64_t> MSize = MT ? MT.getTypeSize(8) : std::nullopt;
      if (!MSize || Off < MOff || Off >= MOff + *MSize)
        continue;
      const char *N = M.getShortName();
      return std::string(".") + (N ? N : "<anon>") +
             walk(MT, Off - MOff, Depth + 1);
    }
    return rest();
  case dwarf::DW_TAG_array_type: {
    DWARFDie ET = T.getAttributeValueAsReferencedDie(dwarf::DW_AT_type);
    std::optional<uint64_t> ESize = ET ? ET.getTypeSize(8) : std::nullopt;
    if (!ESize || !*ESize)
      return rest();
    return "[" + std::to_string(Off / *ESize) + "]" +
           walk(ET, Off % *ESize, Depth + 1);
  }
  default:
    return rest();
  }
}

std::optional<std::string> FieldNamer::path(StringRef Var, uint64_t Offset) {
  if (!Indexed)
    index();
  auto It = VarTypeOffset.find(Var.str());
  if (It == VarTypeOffset.end())
    return std::nullopt;
  return walk(Ctx->getDIEForOffset(It->second), Offset, 0);
}

std::optional<std::string> FieldNamer::typeName(StringRef Var) {
  if (!Indexed)
    index();
  auto It = VarTypeOffset.find(Var.str());
  if (It == VarTypeOffset.end())
    return std::nullopt;
  DWARFDie T = Ctx->getDIEForOffset(It->second);
  std::string S;
  raw_string_ostream OS(S);
  dumpTypeQualifiedName(T, OS);
  return S;
}

} // namespace keel::fs
