//===- keel-sim-map.cpp - write keel-sim's address maps for variants -------===//
//
// keel-sim-map BASE OUT NAME=VARIANT...
//
// A build-tree helper beside the keel-sim tool (lib/keel-sim, not installed):
// compares each VARIANT binary with BASE (keel/VariantMap/VariantMap.h) and writes
// keel-sim's --keel-sim-map-file to OUT (temp name, then renamed). A variant
// that is not a map of the base is left out with its reason on stderr, and
// the exit code is 1; bad usage or unreadable input is 2.
//
//===----------------------------------------------------------------------===//
#include "keel/Support/OutputFile.h"
#include "keel/VariantMap/VariantMap.h"

#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace keel::sweep;

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  if (argc < 4) {
    errs() << "usage: keel-sim-map BASE OUT NAME=VARIANT...\n";
    return 2;
  }
  StringRef Base = argv[1], Out = argv[2];
  Expected<ExeExtent> E = exeExtent(Base);
  if (!E) {
    WithColor::error(errs(), "keel-sim-map") << toString(E.takeError()) << "\n";
    return 2;
  }
  std::vector<VariantMap> Maps;
  bool Unmapped = false;
  for (int I = 3; I < argc; ++I) {
    auto [Name, Path] = StringRef(argv[I]).split('=');
    if (Name.empty() || Path.empty() || Name.contains(' ')) {
      errs() << "keel-sim-map: expected NAME=VARIANT, got '" << argv[I] << "'\n";
      return 2;
    }
    Expected<VariantMap> M = deriveVariantMap(Base, Path, Name);
    if (!M) {
      errs() << "keel-sim-map: " << Name << ": not a map of the base: "
             << toString(M.takeError()) << "\n";
      Unmapped = true;
      continue;
    }
    Maps.push_back(std::move(*M));
  }
  if (Error Err = keel::writeOutput(Out, [&](raw_ostream &OS) {
        writeKeelSimMap(OS, *E, Maps);
        return Error::success();
      })) {
    WithColor::error(errs(), "keel-sim-map") << toString(std::move(Err)) << "\n";
    return 2;
  }
  return Unmapped ? 1 : 0;
}
