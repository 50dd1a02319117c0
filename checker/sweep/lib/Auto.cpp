//===- Auto.cpp - the automatic sweep of `layout-sweep ./bin` -------------===//
#include "keel/Sweep/Auto.h"

#include "keel/Support/Diagnostics.h"
#include "keel/Support/Input.h"
#include "keel/Support/OutputFile.h"
#include "keel/Support/Text.h"
#include "keel/Sweep/Perturb.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace keel {
namespace sweep {

Expected<BinaryFacts> inspectBinary(StringRef Binary) {
  Expected<object::OwningBinary<object::ObjectFile>> O =
      object::ObjectFile::createObjectFile(Binary);
  if (!O) {
    consumeError(O.takeError());
    return inputError(Binary, 0,
                      "not an ELF executable (layout-sweep sweeps ELF programs)");
  }
  const object::ObjectFile &Obj = *O->getBinary();
  if (!Obj.isELF())
    return inputError(Binary, 0,
                      "not an ELF executable (layout-sweep sweeps ELF programs)");
  BinaryFacts F;
  if (const auto *Elf = dyn_cast<object::ELFObjectFileBase>(&Obj))
    F.LibcStart = importsLibcStartMain(*Elf);
  for (const object::SectionRef &S : Obj.sections()) {
    Expected<StringRef> Name = S.getName();
    if (!Name) {
      consumeError(Name.takeError());
      continue;
    }
    if (*Name == ".interp")
      F.Dynamic = true;
    if (Name->starts_with(".rela.text"))
      F.EmitRelocs = true;
  }
  for (const object::SymbolRef &Sym : Obj.symbols()) {
    Expected<StringRef> Name = Sym.getName();
    if (!Name) {
      consumeError(Name.takeError());
      continue;
    }
    if (*Name == "main")
      F.HasMain = true;
  }
  return F;
}

static std::string relinkExample(AxisKind Axis) {
  return formatv("link through `layout-link -- <your link command>` (CMake: "
                 "keel_layout()), or pass --axis={0} --relink='<your link "
                 "command with {{padobj} between the objects and -o {{out}>'",
                 axisName(Axis))
      .str();
}

/// The stack axis: swept through the stack shim when the binary starts
/// through a dynamically linked glibc and the shim is there.
static AutoAxis stackAxis(const BinaryFacts &F, StringRef Binary,
                          StringRef StackShim) {
  AutoAxis Stack;
  Stack.Axis = AxisKind::Stack;
  if (!F.Dynamic) {
    Stack.Why = formatv("{0} is statically linked, so the stack shim "
                        "(LD_PRELOAD) cannot start its main lower",
                        Binary)
                    .str();
    Stack.Enable = "link it dynamically (without -static) to sweep the stack "
                   "alone; the env axis moves it with the environment";
  } else if (!F.LibcStart) {
    Stack.Why = formatv("{0} does not start through glibc's "
                        "__libc_start_main, which the stack shim wraps",
                        Binary)
                    .str();
    Stack.Enable = "link it against glibc with its usual start files; the "
                   "env axis moves the stack with the environment";
  } else if (!sys::fs::exists(StackShim)) {
    Stack.Why = formatv("the stack shim '{0}' is missing", StackShim).str();
    Stack.Enable = "build libkeelstackshift.so or pass --stack-shim=FILE";
  } else {
    Stack.Swept = true;
    Stack.How = "main starts N bytes lower on the stack (LD_PRELOAD "
                "libkeelstackshift.so); the environment keeps its size";
  }
  return Stack;
}

/// The env axis: every executable can be swept along it.
static AutoAxis envAxis() {
  AutoAxis Env;
  Env.Axis = AxisKind::Env;
  Env.Swept = true;
  Env.How = "environment size: the environment grows by N bytes, which moves "
            "the initial stack and every stack frame by N";
  return Env;
}

/// The heap axis: swept through the heap shim when the binary is
/// dynamically linked and the shim is there.
static AutoAxis heapAxis(const BinaryFacts &F, StringRef Binary,
                         StringRef HeapShim) {
  AutoAxis Heap;
  Heap.Axis = AxisKind::Heap;
  if (!F.Dynamic) {
    Heap.Why = formatv("{0} is statically linked, so the heap shim "
                       "(LD_PRELOAD) cannot replace its malloc",
                       Binary)
                   .str();
    Heap.Enable = "link it dynamically (without -static) to sweep the heap";
  } else if (!sys::fs::exists(HeapShim)) {
    Heap.Why = formatv("the heap shim '{0}' is missing", HeapShim).str();
    Heap.Enable = "build libkeelheapshift.so or pass --heap-shim=FILE";
  } else {
    Heap.Swept = true;
    Heap.How = "every malloc result moves by N bytes (LD_PRELOAD "
               "libkeelheapshift.so)";
  }
  return Heap;
}

namespace {
/// The binary's link record when it can relink the binary; else why not,
/// and (when there is something to do) how to fix that.
struct RecordCheck {
  std::string Path;
  std::optional<LinkRecord> Rec;
  std::string Why, Enable;
};
} // namespace

static Expected<RecordCheck> checkLinkRecord(StringRef Binary) {
  RecordCheck RC;
  RC.Path = linkRecordPath(Binary);
  if (!sys::fs::exists(RC.Path)) {
    RC.Why = formatv("no link record ({0})", RC.Path).str();
  } else if (Expected<LinkRecord> R = readLinkRecord(RC.Path); !R) {
    RC.Why = toString(R.takeError());
    RC.Enable = "relink through `layout-link -- <your link command>` to write "
                "it again";
  } else {
    Expected<std::string> Sha = fileSHA1(Binary);
    if (!Sha)
      return Sha.takeError();
    if (*Sha != R->SHA1) {
      RC.Why = formatv("the link record {0} is stale: {1} changed since "
                       "layout-link linked it (rebuilt without layout-link?)",
                       RC.Path, Binary)
                   .str();
      RC.Enable = "relink through `layout-link -- <your link command>` (or "
                  "keel_layout()) again";
    } else if (!sys::fs::is_directory(R->Cwd)) {
      RC.Why = formatv("the link record {0} names a directory that is gone: "
                       "{1}",
                       RC.Path, R->Cwd)
                   .str();
      RC.Enable = "relink through `layout-link -- <your link command>` again";
    } else {
      RC.Rec = std::move(*R);
    }
  }
  return RC;
}

/// "relinked from RECORD with ...": how a relink command moves \p Axis.
static std::string relinkHow(const AutoAxis &A, AxisKind Axis,
                             StringRef RecPath, StringRef PadFrom) {
  bool Defsym = any_of(A.RelinkArgv, [](const std::string &W) {
    return StringRef(W).contains("--defsym=__keel_");
  });
  std::string Sym =
      Axis == AxisKind::Code ? "__keel_code_pad" : "__keel_data_pad";
  std::string With =
      !Defsym ? formatv("N bytes of {0} before {1}",
                        Axis == AxisKind::Code ? "nops" : "data",
                        padObjectPlace(A.RelinkArgv))
                    .str()
      : A.RelinkPadBase ? formatv("--defsym={0}={1}+N ({1}: {2})", Sym,
                                  A.RelinkPadBase, PadFrom)
                              .str()
                        : "--defsym=" + Sym + "=N";
  return formatv("relinked from {0} with {1}", RecPath, With).str();
}

/// The code or data axis: relinked from the link record, else (code) moved
/// by llvm-bolt when the binary keeps its relocations, else why not.
static AutoAxis relinkAxis(AxisKind Axis, const BinaryFacts &F,
                           const RecordCheck &RC, bool HaveBolt) {
  AutoAxis A;
  A.Axis = Axis;
  if (RC.Rec) {
    Expected<RecordRelink> RR = relinkFromRecord(*RC.Rec, Axis);
    if (RR) {
      A.Swept = true;
      A.RelinkArgv = std::move(RR->Argv);
      A.RelinkZeroArgv = std::move(RR->ZeroArgv);
      A.RelinkPadBase = RR->PadBase;
      A.RelinkDir = RC.Rec->Cwd;
      A.How = relinkHow(A, Axis, RC.Path, RR->PadFrom);
      return A;
    }
    A.Why = toString(RR.takeError());
    A.Enable =
        formatv("pass --axis={0} --relink='...'", axisName(Axis)).str();
  } else {
    A.Why = RC.Why;
    A.Enable = RC.Enable.empty() ? relinkExample(Axis) : RC.Enable;
  }
  if (Axis == AxisKind::Code && F.EmitRelocs && F.HasMain && HaveBolt) {
    A.Swept = true;
    A.BoltFunction = "main";
    A.How = "llvm-bolt --pad-funcs-before=main:N (the binary keeps its "
            "relocations)";
    A.Why.clear();
    A.Enable.clear();
  } else if (Axis == AxisKind::Code && !RC.Rec && RC.Enable.empty()) {
    A.Enable += ", or link with -Wl,--emit-relocs (llvm-bolt moves it)";
  }
  return A;
}

Expected<std::vector<AutoAxis>> planAutoAxes(StringRef Binary, StringRef HeapShim,
                                             StringRef StackShim, bool HaveBolt) {
  Expected<BinaryFacts> F = inspectBinary(Binary);
  if (!F)
    return F.takeError();
  std::vector<AutoAxis> Axes;
  Axes.push_back(stackAxis(*F, Binary, StackShim));
  Axes.push_back(envAxis());
  Axes.push_back(heapAxis(*F, Binary, HeapShim));
  Expected<RecordCheck> RC = checkLinkRecord(Binary);
  if (!RC)
    return RC.takeError();
  for (AxisKind Axis : {AxisKind::Code, AxisKind::Data})
    Axes.push_back(relinkAxis(Axis, *F, *RC, HaveBolt));
  return Axes;
}

} // namespace sweep
} // namespace keel
