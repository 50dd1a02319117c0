//===- Tool.cpp - the tool skeleton, version printer, lib lookup ----------===//
#include "keel/Support/Tool.h"
#include "keel/Support/Diagnostics.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

#ifndef KEEL_VERSION_STRING
#error "KEEL_VERSION_STRING comes from project(VERSION) in CMakeLists.txt"
#endif

namespace keel {

StringRef keelVersion() { return KEEL_VERSION_STRING; }

void setToolVersionPrinter(StringRef Tool) {
  cl::SetVersionPrinter([Name = Tool.str()](raw_ostream &OS) {
    OS << Name << " (Keel) " << keelVersion() << "\n"
       << "  built with LLVM " << LLVM_VERSION_STRING << "\n";
  });
}

int runTool(int argc, char **argv, const ToolInfo &Info,
            function_ref<Expected<int>()> Run) {
  InitLLVM X(argc, argv);
  if (Info.ParseOptions) {
    cl::HideUnrelatedOptions(Info.Categories);
    setToolVersionPrinter(Info.Name);
    // With an error stream cl reports and returns instead of exit(1): bad
    // usage is 2 in the exit-code table.
    if (!cl::ParseCommandLineOptions(argc, argv, Info.Overview, &errs()))
      return ExitBadInput;
  }
  Expected<int> Status = Run();
  if (!Status)
    return reportError(Info.Name, Status.takeError());
  return *Status;
}

Expected<int> exitStatus(Error E) {
  if (E)
    return std::move(E);
  return ExitOK;
}

/// <exe>/.. : the prefix (installed) or the build directory.
static SmallString<256> toolPrefix(const char *Argv0, void *MainAddr) {
  std::string Exe = sys::fs::getMainExecutable(Argv0, MainAddr);
  return SmallString<256>(sys::path::parent_path(sys::path::parent_path(Exe)));
}

std::string findKeelLibFile(const char *Argv0, void *MainAddr, StringRef Name) {
  SmallString<256> Prefix = toolPrefix(Argv0, MainAddr);
  SmallString<256> Installed = Prefix, BuildTree = Prefix;
  sys::path::append(Installed, "lib", "keel", Name);
  sys::path::append(BuildTree, "lib", Name);
  if (!sys::fs::exists(Installed) && sys::fs::exists(BuildTree))
    return std::string(BuildTree);
  return std::string(Installed);
}

} // namespace keel
