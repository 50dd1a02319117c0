//===- Tool.cpp - the tool skeleton, version printer, lib lookup ----------===//
#include "keel/Support/Tool.h"
#include "keel/Support/Diagnostics.h"
#include "keel/Support/Text.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <unistd.h>

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

/// \p Line without a leading "<Prog>: " and a trailing '!'.
static StringRef clText(StringRef Line, StringRef Prog) {
  Line = Line.trim();
  if (!Prog.empty() && Line.starts_with(Prog) &&
      Line.drop_front(Prog.size()).starts_with(": "))
    Line = Line.drop_front(Prog.size() + 2);
  return Line.rtrim('!');
}

/// The text between the first two \p Q after \p From in \p S ("" if none).
static StringRef quoted(StringRef S, StringRef From = "", char Q = '\'') {
  size_t At = From.empty() ? 0 : S.find(From);
  if (At == StringRef::npos)
    return "";
  S = S.drop_front(At + From.size());
  size_t B = S.find(Q);
  if (B == StringRef::npos)
    return "";
  size_t E = S.find(Q, B + 1);
  return E == StringRef::npos ? "" : S.slice(B + 1, E);
}

/// What a number of cl's kind \p Kind ("uint", "floating point") must be.
static StringRef expectedNumber(StringRef Kind) {
  if (Kind.starts_with("u"))
    return "a non-negative integer";
  if (Kind == "floating point")
    return "a number";
  if (Kind == "char")
    return "one character";
  return "an integer";
}

/// The option as the user spelled it in \p Args when it was given the
/// value \p Value (cl names an alias by its option's name), else \p Opt.
static StringRef spelled(StringRef Opt, StringRef Value,
                         ArrayRef<const char *> Args) {
  for (size_t I = 0; I < Args.size(); ++I) {
    StringRef A = Args[I];
    if (A == "--")
      break;
    if (!A.starts_with("-"))
      continue;
    if (A.ends_with(("=" + Value).str()))
      return A.drop_back(Value.size() + 1);
    if (I + 1 < Args.size() && Args[I + 1] == Value && !A.contains('='))
      return A;
  }
  return Opt;
}

/// "for the --X option: M" reworded (\p Opt is "--X", \p M cl's message).
static std::string optionMessage(StringRef Opt, StringRef M,
                                 ArrayRef<const char *> Args) {
  if (StringRef V = quoted(M); !V.empty())
    Opt = spelled(Opt, V, Args);
  if (M.starts_with("must be specified at least once"))
    return ("missing required option " + Opt).str();
  if (M.contains("' value invalid for ")) {
    StringRef Kind = M.rsplit("value invalid for ").second;
    Kind.consume_back(" argument");
    return formatv("invalid value '{0}' for {1}: expected {2}", quoted(M), Opt,
                   expectedNumber(Kind))
        .str();
  }
  if (M.contains("is invalid value for boolean argument"))
    return formatv("invalid value '{0}' for {1}: expected true or false "
                   "(or 1 or 0)",
                   quoted(M), Opt)
        .str();
  if (M.starts_with("Cannot find option named"))
    return formatv("invalid value '{0}' for {1} (see --help for its values)",
                   quoted(M), Opt)
        .str();
  if (M.starts_with("may only occur zero or one times"))
    return (Opt + " given more than once").str();
  if (M.starts_with("requires a value"))
    return (Opt + " needs a value").str();
  if (M.starts_with("does not allow a value"))
    return formatv("{0} takes no value ('{1}' given)", Opt, quoted(M)).str();
  return (Opt + ": " + M).str();
}

/// cl's suggestion \p Near for the unknown \p Word is no help when it is an
/// option only cl has (help, version) or a one-letter option offered for a
/// longer word ("--top=1": "did you mean '--o=1'?").
static bool uselessSuggestion(StringRef Near, StringRef Word) {
  StringRef Name = Near.ltrim('-').split('=').first;
  if (Name == "h" || Name.starts_with("help") || Name.starts_with("version") ||
      Name.starts_with("print-"))
    return true;
  return Name.size() == 1 && Word.ltrim('-').split('=').first.size() > 2;
}

std::string optionErrorMessage(StringRef Said, StringRef Prog,
                               ArrayRef<const char *> Args,
                               StringRef Positional) {
  SmallVector<StringRef, 8> Lines;
  Said.split(Lines, '\n', -1, /*KeepEmpty=*/false);
  std::vector<std::string> Missing;
  for (size_t I = 0; I < Lines.size(); ++I) {
    StringRef L = clText(Lines[I], Prog);
    if (L.starts_with("Unknown command line argument")) {
      StringRef Word = quoted(L);
      std::string Msg = formatv("unknown option '{0}'", Word).str();
      StringRef Next = I + 1 < Lines.size() ? clText(Lines[I + 1], Prog) : "";
      StringRef Near = quoted(Next, "Did you mean");
      // Before "--" the words are the tool's; a command's own options go
      // after it.
      auto Dashes = find_if(Args, [](const char *A) { return StringRef(A) == "--"; });
      bool BeforeCommand =
          Dashes != Args.end() &&
          std::find_if(Args.begin(), Dashes, [&](const char *A) {
            return StringRef(A).starts_with(Word);
          }) != Dashes;
      if (!Near.empty() && !uselessSuggestion(Near, Word))
        Msg += formatv("; did you mean '{0}'?", Near).str();
      else if (BeforeCommand)
        Msg += "; the command's own options go after '--'";
      else
        Msg += " (see --help)";
      return Msg;
    }
    if (L.starts_with("Not enough positional command line arguments"))
      return formatv("missing {0} (see --help)",
                     Positional.empty() ? "a required argument" : Positional)
          .str();
    if (L.starts_with("Too many positional arguments specified")) {
      StringRef Next = I + 1 < Lines.size() ? clText(Lines[I + 1], Prog) : "";
      StringRef N = Next.starts_with("Can specify at most ")
                        ? Next.drop_front(20).split(' ').first
                        : "";
      return N.empty() ? "too many arguments (see --help)"
                       : formatv("too many arguments: at most {0} (see --help)",
                                 N)
                             .str();
    }
    if (L.starts_with("for the ") && L.contains(" option: ")) {
      auto [Head, M] = L.drop_front(8).split(" option: ");
      if (M.starts_with("must be specified at least once")) {
        Missing.push_back(Head.str()); // every missing option in one line
        continue;
      }
      return optionMessage(Head, M, Args);
    }
    if (L.starts_with("Did you mean") || L.starts_with("Must specify") ||
        L.starts_with("Can specify"))
      continue;
    if (Missing.empty())
      return L.str();
  }
  if (Missing.size() == 1)
    return formatv("missing required option {0} (see --help)", Missing[0]).str();
  if (!Missing.empty())
    return formatv("missing required options {0} (see --help)",
                   join(Missing, ", "))
        .str();
  return "the command line does not parse (see --help)";
}

/// cl::ParseCommandLineOptions with what it says about errors in \p Said.
/// It writes some of them (a missing required option, a value its parser
/// rejects) to errs() whatever error stream it is given, so descriptor 2
/// goes to a temporary file while it parses. --help and --version write to
/// stdout and exit inside the parse, as before.
static bool parseCapturingErrors(int argc, char **argv, StringRef Overview,
                                 std::string &Said) {
  raw_string_ostream Own(Said);
  errs().flush();
  FILE *Tmp = std::tmpfile();
  int Saved = Tmp ? ::dup(2) : -1;
  if (Saved < 0 || ::dup2(::fileno(Tmp), 2) < 0) {
    if (Saved >= 0)
      ::close(Saved);
    if (Tmp)
      std::fclose(Tmp);
    return cl::ParseCommandLineOptions(argc, argv, Overview, &Own);
  }
  bool OK = cl::ParseCommandLineOptions(argc, argv, Overview, &Own);
  errs().flush();
  ::dup2(Saved, 2);
  ::close(Saved);
  std::rewind(Tmp);
  char Buf[4096];
  size_t N;
  std::string FromErrs;
  while ((N = std::fread(Buf, 1, sizeof(Buf), Tmp)) > 0)
    FromErrs.append(Buf, N);
  std::fclose(Tmp);
  Said = FromErrs + Said;
  return OK;
}

/// The name (its "<...>" description) of the first required positional
/// argument the parsed command line lacks, in the subcommand given (else
/// the top level); "" when there is none or it has no such name.
static std::string missingPositional() {
  cl::SubCommand *Sub = &cl::SubCommand::getTopLevel();
  for (cl::SubCommand *S : cl::getRegisteredSubcommands())
    if (*S)
      Sub = S;
  for (cl::Option *O : Sub->PositionalOpts) {
    bool Needed = O->getNumOccurrencesFlag() == cl::Required ||
                  O->getNumOccurrencesFlag() == cl::OneOrMore;
    if (Needed && !O->getNumOccurrences())
      return O->HelpStr.starts_with("<") ? O->HelpStr.str() : "";
  }
  return "";
}

int runTool(int argc, char **argv, const ToolInfo &Info,
            function_ref<Expected<int>()> Run) {
  InitLLVM X(argc, argv);
  if (Info.ParseOptions) {
    cl::HideUnrelatedOptions(Info.Categories);
    setToolVersionPrinter(Info.Name);
    // With an error stream cl reports and returns instead of exit(1): bad
    // usage is 2 in the exit-code table, and what cl said is reworded into
    // one "<tool>: error: ..." line (optionErrorMessage).
    std::string Said;
    if (!parseCapturingErrors(argc, argv, Info.Overview, Said)) {
      WithColor::error(errs(), Info.Name)
          << printableMessage(optionErrorMessage(
                 Said, sys::path::filename(argv[0]), {argv + 1, argv + argc},
                 missingPositional()))
          << '\n';
      return ExitBadInput;
    }
    // A parse that succeeds may still have said something (a warning of
    // cl's own): it reaches the user as it was written.
    if (!Said.empty())
      errs() << printableText(Said);
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
