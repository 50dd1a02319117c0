//===- keel/Optimize/Replay.h - rebuild one program from its recorded commands -*- C++ -*-===//
//
// From a command log (CommandLog.h) to one program rebuilt with a plan:
// planReplay finds the program's link (the last command that wrote it),
// the compile that made each object it links (the last one that wrote it),
// and, for each archive it links, the compile that made each member (same
// file name, same bytes). runReplay runs those compiles again in their own
// working directories with their own flags, writing the objects into a
// directory of its own (the build tree is not touched), then the archives
// with the new members, then the link -- each command with the profiling
// flags and the extra words given (a plan's @compile.rsp and @link.rsp).
// Inputs no recorded compile made are linked as they are.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_OPTIMIZE_REPLAY_H
#define KEEL_OPTIMIZE_REPLAY_H

#include "keel/Optimize/CommandLog.h"
#include "keel/Support/Process.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <string>
#include <vector>

namespace keel {
namespace optimize {

struct ReplayPlan {
  RecordedCommand Link; ///< the program's recorded link
  std::string Binary;   ///< what it wrote, absolute
  /// The compiles of its objects and archive members, in log order.
  std::vector<RecordedCommand> Compiles;
  /// Per compile, the object it wrote (absolute).
  std::vector<std::string> CompileOutputs;
  struct Archive {
    std::string Path; ///< as the link reads it, absolute
    /// Per member, in the archive's order: the compile that made it (index
    /// into Compiles), or -1 (linked as it is).
    std::vector<int> MemberCompile;
  };
  std::vector<Archive> Archives;
  /// Link inputs (objects and archive members) no recorded compile made.
  size_t Unrebuilt = 0;
};

/// The replay of \p Binary (an absolute path, or a file name matched against
/// the links' outputs; "" = the last link of the log) from \p Log, read from
/// \p LogPath (named in errors).
llvm::Expected<ReplayPlan> planReplay(llvm::ArrayRef<RecordedCommand> Log,
                                      llvm::StringRef Binary,
                                      llvm::StringRef LogPath);

/// \p C's argv for a replay: its output replaced by \p Output, dependency
/// outputs (-MD, -MF FILE, ...) dropped, then profilingFlags() and \p Extra.
std::vector<std::string> replayArgv(const RecordedCommand &C,
                                    llvm::StringRef Output,
                                    llvm::ArrayRef<std::string> Extra);

struct ReplayFlags {
  std::vector<std::string> Compile; ///< e.g. {"@PLAN/compile.rsp"}
  std::vector<std::string> Link;    ///< e.g. {"@PLAN/link.rsp"}
  unsigned Jobs = 1;                ///< compiles run in parallel
};

/// One command run by runReplay: where and what.
struct ReplayedCommand {
  std::string Cwd;
  std::vector<std::string> Argv;
};

/// Run \p P's compiles into \p ObjDir (which must exist), its archives,
/// then its link into \p Output. \p Commands gets every command run, in
/// order. A command that fails is an error naming it, its directory, its
/// exit status and the end of its output (kept in ObjDir).
llvm::Error runReplay(const ReplayPlan &P, llvm::StringRef ObjDir,
                      const ReplayFlags &F, llvm::StringRef Output,
                      std::vector<ReplayedCommand> &Commands);

/// Run \p C (one of runReplay's commands, e.g. the link) again in its
/// directory, its output in \p Log and \p Log.err; errors as runReplay's.
llvm::Error rerunCommand(const ReplayedCommand &C, llvm::StringRef Log);

/// A command as one line for display (quoted for a POSIX shell where a
/// word needs it, never run through one): keelSupport's, the sweep's
/// --dry-run printer.
using keel::displayCommand;

} // namespace optimize
} // namespace keel

#endif
