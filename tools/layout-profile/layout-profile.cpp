//===- layout-profile.cpp - convert, merge and show profiles --------------===//
// Placeholder main: subcommands are added by the profile readers.
#include "keel/Profile/Binary.h"
#include "keel/Support/Diagnostics.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

using namespace llvm;

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  cl::opt<std::string> BinaryPath("binary", cl::desc("binary to describe"),
                                  cl::Required);
  cl::ParseCommandLineOptions(argc, argv, "layout-profile\n");
  auto B = keel::Binary::open(BinaryPath);
  if (!B)
    return keel::reportError("layout-profile", B.takeError());
  outs() << "build-id " << (*B)->buildID() << " functions "
         << (*B)->functions().size() << '\n';
  return 0;
}
