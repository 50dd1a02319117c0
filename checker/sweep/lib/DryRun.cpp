//===- DryRun.cpp - what a sweep would build and run ----------------------===//
#include "keel/Sweep/DryRun.h"

#include "keel/Sweep/Perturb.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace keel {
namespace sweep {

Error writeAxisDryRun(raw_ostream &OS, const EngineOptions &O) {
  std::vector<std::pair<std::string, std::string>> Binaries = {{"base", O.Binary}};
  if (O.CompareBinary)
    Binaries.push_back({"compare", *O.CompareBinary});
  if (Error E = validateGrid(O.G))
    return E;
  // --keep-dir made absolute, as the sweep makes it (relinks change
  // directory).
  SmallString<256> Work(O.WorkDir.empty() ? DryRunWorkDir : O.WorkDir);
  if (!O.WorkDir.empty())
    sys::fs::make_absolute(Work);
  Expected<std::unique_ptr<Perturber>> P =
      Perturber::create(O.Perturb, Work.str().str(), Binaries, O.Args);
  if (!P)
    return P.takeError();
  // The engine's numbering (gridVariants): every base offset, then every
  // compared one; a variant's directory is named by its number.
  unsigned Index = 0;
  for (const auto &[Series, Bin] : Binaries) {
    for (int64_t Off : O.G.offsets()) {
      Expected<Perturber::Plan> Pl =
          (*P)->describe(Variant{Series, axisName(O.Perturb.Axis).str(), Off},
                         Index++);
      if (!Pl)
        return Pl.takeError();
      OS << formatv("  {0}offset {1}:\n",
                    Binaries.size() > 1 ? Series + " " : std::string(), Off);
      if (!Pl->Relink.empty())
        OS << "    relink:   " << displayCommand(Pl->Relink) << "\n";
      if (!Pl->Bolt.empty())
        OS << "    llvm-bolt: " << displayCommand(Pl->Bolt) << "\n";
      if (Pl->Relink.empty() && Pl->Bolt.empty())
        OS << "    copy:     " << displayCommand({Bin}) << " to "
           << displayCommand({Pl->Run.Argv.front()}) << "\n";
      std::vector<std::string> Run = {"env", "-i"};
      Run.insert(Run.end(), Pl->Run.Env.begin(), Pl->Run.Env.end());
      Run.insert(Run.end(), Pl->Run.Argv.begin(), Pl->Run.Argv.end());
      OS << "    run:      " << displayCommand(Run) << "\n";
    }
  }
  return Error::success();
}

} // namespace sweep
} // namespace keel
