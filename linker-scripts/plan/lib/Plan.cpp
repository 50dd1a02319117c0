//===- Plan.cpp - read and write the layout plan (YAML) -------------------===//
#include "keel/Plan/Plan.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLTraits.h"

using namespace llvm;
using namespace keel;

LLVM_YAML_IS_SEQUENCE_VECTOR(keel::PlanFunction)
LLVM_YAML_IS_SEQUENCE_VECTOR(keel::PlanGlobal)
LLVM_YAML_IS_SEQUENCE_VECTOR(keel::FalseSharingCandidate)

namespace llvm {
namespace yaml {

template <> struct ScalarEnumerationTraits<Temperature> {
  static void enumeration(IO &Io, Temperature &T) {
    Io.enumCase(T, "hot", Temperature::Hot);
    Io.enumCase(T, "warm", Temperature::Warm);
    Io.enumCase(T, "cold", Temperature::Cold);
  }
};

template <> struct ScalarEnumerationTraits<DataKind> {
  static void enumeration(IO &Io, DataKind &K) {
    Io.enumCase(K, "data", DataKind::Data);
    Io.enumCase(K, "bss", DataKind::BSS);
    Io.enumCase(K, "rodata", DataKind::ROData);
  }
};

template <> struct MappingTraits<PlanFunction> {
  static void mapping(IO &Io, PlanFunction &F) {
    Io.mapRequired("name", F.Name);
    Io.mapOptional("file", F.File, std::string());
    Io.mapRequired("class", F.Class);
    Io.mapOptional("order", F.Order, uint64_t(0));
    Io.mapOptional("weight", F.Weight, uint64_t(0));
    Io.mapOptional("align", F.Align, uint64_t(0));
  }
  static std::string validate(IO &, PlanFunction &F) {
    if (F.Name.empty())
      return "function name is empty";
    if (F.Align & (F.Align - 1))
      return formatv("alignment {0} of '{1}' is not a power of two", F.Align,
                     F.Name)
          .str();
    return "";
  }
  static const bool flow = true;
};

template <> struct MappingTraits<PlanGlobal> {
  static void mapping(IO &Io, PlanGlobal &G) {
    Io.mapRequired("name", G.Name);
    Io.mapOptional("file", G.File, std::string());
    Io.mapRequired("kind", G.Kind);
    Io.mapOptional("order", G.Order, uint64_t(0));
    Io.mapOptional("weight", G.Weight, uint64_t(0));
    Io.mapOptional("written", G.Written, false);
  }
  static const bool flow = true;
};

template <> struct MappingTraits<FalseSharingCandidate> {
  static void mapping(IO &Io, FalseSharingCandidate &C) {
    Io.mapRequired("name", C.Name);
    Io.mapOptional("file", C.File, std::string());
    Io.mapOptional("align", C.Align, uint64_t(64));
    Io.mapOptional("reason", C.Reason, std::string());
  }
  static std::string validate(IO &, FalseSharingCandidate &C) {
    if (C.Align == 0 || (C.Align & (C.Align - 1)))
      return formatv("alignment {0} of '{1}' is not a power of two", C.Align,
                     C.Name)
          .str();
    return "";
  }
  static const bool flow = true;
};

template <> struct MappingTraits<Plan> {
  static void mapping(IO &Io, Plan &P) {
    Io.mapRequired("keel-plan", P.Version);
    Io.mapOptional("binary", P.Binary, std::string());
    Io.mapOptional("build-id", P.BuildID, std::string());
    Io.mapOptional("hot-coverage", P.HotCoverage, 0.99);
    Io.mapOptional("function-align", P.FunctionAlign, uint64_t(16));
    Io.mapOptional("hot-text-align", P.HotTextAlign, uint64_t(4096));
    Io.mapOptional("hot-data-align", P.HotDataAlign, uint64_t(4096));
    Io.mapOptional("linker-aligns-regions", P.LinkerAlignsRegions, false);
    Io.mapOptional("code-pad", P.CodePad, uint64_t(0));
    Io.mapOptional("spacers", P.Spacers, uint64_t(0));
    Io.mapOptional("functions", P.Functions);
    Io.mapOptional("globals", P.Globals);
    Io.mapOptional("false-sharing", P.FalseSharing);
  }
  static std::string validate(IO &, Plan &P) {
    if (P.Version != PlanVersion)
      return formatv("plan version {0} is not supported (this Keel reads "
                     "version {1})",
                     P.Version, PlanVersion)
          .str();
    for (uint64_t A : {P.FunctionAlign, P.HotTextAlign, P.HotDataAlign})
      if (A == 0 || (A & (A - 1)))
        return formatv("alignment {0} is not a power of two", A).str();
    if (P.Spacers && (P.Spacers < 64 || (P.Spacers & (P.Spacers - 1))))
      return formatv("spacers {0} is not a power of two >= 64", P.Spacers)
          .str();
    return "";
  }
};

} // namespace yaml
} // namespace llvm

namespace keel {

StringRef temperatureName(Temperature T) {
  switch (T) {
  case Temperature::Hot:
    return "hot";
  case Temperature::Warm:
    return "warm";
  case Temperature::Cold:
    return "cold";
  }
  return "warm";
}

StringRef dataKindName(DataKind K) {
  switch (K) {
  case DataKind::Data:
    return "data";
  case DataKind::BSS:
    return "bss";
  case DataKind::ROData:
    return "rodata";
  }
  return "data";
}

Expected<Plan> parsePlan(StringRef Text, StringRef FileName) {
  // YAML diagnostics come through the SourceMgr handler with line:column;
  // keep the first one as the error.
  std::string FirstDiag;
  auto Handler = [](const SMDiagnostic &D, void *Ctx) {
    auto &Out = *static_cast<std::string *>(Ctx);
    if (Out.empty())
      Out = formatv("{0}:{1}:{2}: {3}", D.getFilename(), D.getLineNo(),
                    D.getColumnNo() + 1, D.getMessage())
                .str();
  };
  auto MB = MemoryBuffer::getMemBuffer(Text, FileName);
  yaml::Input In(MB->getMemBufferRef(), nullptr, Handler, &FirstDiag);
  Plan P;
  In >> P;
  if (In.error() || !FirstDiag.empty()) {
    if (FirstDiag.empty())
      FirstDiag = (FileName + ": not a Keel plan").str();
    return createStringError(std::make_error_code(std::errc::invalid_argument),
                             FirstDiag);
  }
  return P;
}

Expected<Plan> readPlan(StringRef Path) {
  auto MB = MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!MB)
    return createStringError(MB.getError(), "%s: cannot read plan: %s",
                             Path.str().c_str(),
                             MB.getError().message().c_str());
  return parsePlan((*MB)->getBuffer(), Path);
}

void writePlan(const Plan &P, raw_ostream &OS) {
  Plan Copy = P;
  yaml::Output Out(OS, nullptr, /*WrapColumn=*/0);
  Out << Copy;
}

} // namespace keel
