//===- BuildFlags.cpp - the compile and link flags that apply a plan ------===//
#include "keel/Planner/BuildFlags.h"

#include "keel/Planner/Emit.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace keel {

static std::string planFile(const BuildFlagOptions &O, StringRef Name) {
  SmallString<256> P(O.PlanDir);
  sys::path::append(P, Name);
  return std::string(P);
}

/// Linker arguments as one -Wl, flag, or as -Xlinker pairs when one of
/// them holds a comma (-Wl, would split it there).
static void addLinkerArgs(std::vector<std::string> &Out,
                          ArrayRef<std::string> Args) {
  bool Comma = any_of(Args, [](const std::string &A) {
    return StringRef(A).contains(',');
  });
  if (!Comma) {
    Out.push_back("-Wl," + join(Args, ","));
    return;
  }
  for (const std::string &A : Args) {
    Out.push_back("-Xlinker");
    Out.push_back(A);
  }
}

BuildFlags planBuildFlags(const BuildFlagOptions &O) {
  BuildFlags F;
  F.Compile = {"-ffunction-sections", "-fdata-sections"};
  if (O.Blocks) {
    F.Compile.push_back("-fbasic-block-address-map");
    F.Compile.push_back("-fbasic-block-sections=list=" +
                        planFile(O, "bbsections.txt"));
    if (O.WarmParts)
      F.Compile.push_back("-funique-basic-block-section-names");
    if (O.AlignLoops)
      F.Compile.push_back("-falign-loops=" + utostr(O.AlignLoops));
  }
  F.Link = {"-fuse-ld=lld"};
  addLinkerArgs(F.Link,
                {"--symbol-ordering-file=" + planFile(O, "order.txt")});
  addLinkerArgs(F.Link, {"-T", planFile(O, "layout.ld")});
  // Blocks: as the measured recipe links (bench/recommended.json).
  if (O.Blocks)
    addLinkerArgs(F.Link, {"-z", "keep-text-section-prefix"});
  // The writable data keeps its page offset when code grows
  // (docs/planner.md, "Data that moves with the code").
  addLinkerArgs(F.Link, {"-z", "separate-code"});
  if (O.DataPad)
    addLinkerArgs(F.Link, {std::string("--defsym=") + DataPadSymbol + "=" +
                           utostr(O.DataPad)});
  return F;
}

std::string quoteResponseFileArg(StringRef Arg) {
  auto Plain = [](char C) {
    return isAlnum(C) || StringRef("_-+=,.:/%").contains(C);
  };
  if (!Arg.empty() && all_of(Arg, Plain))
    return Arg.str();
  // The reader takes a backslash as an escape inside quotes as well.
  std::string Q = "'";
  for (char C : Arg) {
    if (C == '\'' || C == '\\')
      Q += '\\';
    Q += C;
  }
  return Q + "'";
}

void writeResponseFile(ArrayRef<std::string> Args, raw_ostream &OS) {
  for (const std::string &A : Args)
    OS << quoteResponseFileArg(A) << '\n';
}

} // namespace keel
