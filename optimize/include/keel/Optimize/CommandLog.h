//===- keel/Optimize/CommandLog.h - compile and link commands, as run -*- C++ -*-===//
//
// keel-cc (tools/keel-cc) runs the compiler for a build and appends each
// command it runs to a log, one JSON object a line:
//
//   {"cwd": "/abs/dir", "argv": ["clang-22", "-O2", "-c", "a.c", "-o", "a.o"]}
//
// argv is the command as the build wrote it (the compiler first), without
// the profiling flags keel-cc adds (profilingFlags()). The log is appended
// to across builds, so the last command that wrote a file is the one that
// made it: an incremental build that recompiles one file adds one line.
//
// This header also classifies a compiler command: what it compiles, what it
// writes, which objects and archives a link reads.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_OPTIMIZE_COMMANDLOG_H
#define KEEL_OPTIMIZE_COMMANDLOG_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace keel {
namespace optimize {

/// The environment variables keel-cc reads.
inline constexpr const char *LogEnv = "KEEL_CC_LOG";           ///< the log
inline constexpr const char *CompilerEnv = "KEEL_CC_COMPILER"; ///< clang-22

struct RecordedCommand {
  std::string Cwd;               ///< absolute
  std::vector<std::string> Argv; ///< compiler first
  unsigned Line = 0;             ///< in the log (1-based), for messages
};

/// The flags every command of the profiled build (and of its replay) gets
/// after the build's own: function and data sections and the basic-block
/// address map (what the planner reads), DWARF 4 (valgrind 3.19 cannot read
/// clang's DWARF 5), lld as the linker (the plan's linker script and order
/// file are lld's), and -Qunused-arguments (a compile-only command does not
/// warn about the linker flag, nor a link about the compile flags).
llvm::ArrayRef<std::string> profilingFlags();

/// Append \p C to the log at \p Path (one line, under an exclusive lock, so
/// parallel compiles never interleave).
llvm::Error appendCommand(llvm::StringRef Path, const RecordedCommand &C);

/// Read a log; a line that is not a command is an InputError naming
/// file:line.
llvm::Expected<std::vector<RecordedCommand>>
readCommandLog(llvm::StringRef Path);

/// What a compiler command does.
enum class CommandKind {
  Compile, ///< -c: sources to objects
  Link,    ///< no -c, -S, -E, -M: objects (and maybe sources) to a program
  Other,   ///< preprocess, assembly output, dependency listing, version
};
CommandKind classify(llvm::ArrayRef<std::string> Argv);

/// The source files a command compiles (words that are no option and no
/// option's value, with a source extension), as written.
std::vector<std::string> sources(llvm::ArrayRef<std::string> Argv);

/// Objects (.o, .lo, .obj) and archives (.a) a link reads, as written.
std::vector<std::string> linkInputs(llvm::ArrayRef<std::string> Argv);

/// A library a link names by option: `-lNAME`, `-l NAME`, or `-l:FILE`
/// (the file itself, searched like NAME).
struct LibraryOption {
  size_t Index = 0; ///< of the option's first word in argv
  size_t Words = 1; ///< 2 for `-l NAME`
  std::string Name; ///< NAME, or FILE for `-l:FILE`
  bool Exact = false; ///< `-l:FILE`
};
std::vector<LibraryOption> libraryOptions(llvm::ArrayRef<std::string> Argv);

/// The `-L DIR` / `-LDIR` directories of a link, in order, as written.
std::vector<std::string> librarySearchDirs(llvm::ArrayRef<std::string> Argv);

/// The files a command writes, absolute: -o's file, else (compile) each
/// source's file name with ".o" in the working directory, else (link)
/// "a.out" there.
std::vector<std::string> outputsOf(const RecordedCommand &C);

/// \p Path made absolute against \p Cwd and normalized (".." and "."
/// removed).
std::string absolutePath(llvm::StringRef Cwd, llvm::StringRef Path);

/// Whether \p W is an option whose value is the next word (-o, -I, -MF, ...).
bool takesValue(llvm::StringRef W);

} // namespace optimize
} // namespace keel

#endif
