//===- keel/Support/Tool.h - what every Keel tool's main shares -*- C++ -*-===//
//
// The project version (from project(VERSION) in CMake, so `--version` and the
// .deb never disagree), one --version printer for every tool, and where a
// tool finds the plugins and runtimes installed beside it: the build tree
// puts them in <build>/lib, `cmake --install` in <prefix>/lib/keel, and a
// tool looks relative to its own executable so both work without a path.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_SUPPORT_TOOL_H
#define KEEL_SUPPORT_TOOL_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace keel {

/// This build's version, e.g. "0.1.0".
llvm::StringRef keelVersion();

/// Make --version print "<Tool> (Keel) <version>" and the LLVM version the
/// tool was built against. Call before cl::ParseCommandLineOptions.
void setToolVersionPrinter(llvm::StringRef Tool);

/// Where Keel's plugins and runtimes are: <exe>/../lib/keel/<Name>
/// (installed) if it exists, else <exe>/../lib/<Name> (build tree), else the
/// installed path (so an error names where it belongs). \p MainAddr is the
/// address of any function in the tool (llvm::sys::fs::getMainExecutable).
std::string findKeelLibFile(const char *Argv0, void *MainAddr,
                            llvm::StringRef Name);

} // namespace keel

#endif
