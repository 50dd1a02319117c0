//===- Slurm.cpp - a whole sweep as one Slurm job array --------------------===//
//
// measureOnSlurm() reads top to bottom: prepare the variants here, write the
// task list and the array script, sbatch once, then poll squeue and collect
// the status files the tasks write until every task has ended. The task side
// (runSlurmTask) only runs argv vectors and writes what happened; parsing the
// cachegrind output stays on this side, so a measurement is built by the
// same code whichever node ran it.
//
//===----------------------------------------------------------------------===//
#include "keel/Sweep/Slurm.h"
#include "keel/Support/Input.h"

#include "keel/Support/Diagnostics.h"
#include "keel/Support/OutputFile.h"
#include "keel/Support/Process.h"
#include "keel/Sweep/Executor.h"
#include "keel/Sweep/SimRun.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <thread>

using namespace llvm;

namespace keel {
namespace sweep {

static constexpr int TaskFileVersion = 1;
/// Slurm's default MaxArraySize is 1001 (indexes 0..1000).
static constexpr size_t MaxTasks = 1000;

/// --slurm-args as words (none when empty).
static Expected<std::vector<std::string>> slurmArgWords(StringRef Args) {
  if (Args.trim().empty())
    return std::vector<std::string>();
  Expected<std::vector<std::string>> Words = splitCommandTemplate(Args);
  if (!Words)
    return makeError("--slurm-args: {0}", toString(Words.takeError()));
  return Words;
}

Error checkSlurmOptions(const EngineOptions &O) {
  if (!isSimBackend(O.Backend))
    return makeError(
        "--executor=slurm measures with a simulating backend only (sim or "
        "cachegrind): array tasks land "
        "on whatever node the scheduler picks, and a time or perf sweep must "
        "measure every variant and its A/A copies on one quiet node; run the "
        "whole sweep inside one allocation instead (srun -N1 --exclusive "
        "layout-sweep --backend=time ...; docs/sweep.md)");
  Expected<std::vector<std::string>> Words = slurmArgWords(O.SlurmArgs);
  if (!Words)
    return Words.takeError();
  for (StringRef W : *Words)
    // -a, -a0-3 (the short option with its value attached), --array...
    if (W.starts_with("-a") || W.starts_with("--array") || W == "--wrap" ||
        W.starts_with("--wrap=") || W == "--parsable")
      return makeError("--slurm-args: {0} is layout-sweep's to set (it submits "
                       "one array of its own)",
                       W);
  return Error::success();
}

namespace {

/// One variant's command, as the task runs it.
struct TaskEntry {
  Variant V;
  std::vector<std::string> Argv, Env;
  std::string ExecFile, Stdout, Stderr, OutFile, Status;
  /// On SimLibFd and ShimFd ("" = none; nameByDescriptor).
  std::string SimLibFile, ShimFile;
};

json::Value toJSON(const TaskEntry &E) {
  return json::Object{{"argv", json::Array(E.Argv)},
                      {"env", json::Array(E.Env)},
                      {"exec_file", E.ExecFile},
                      {"stdout", E.Stdout},
                      {"stderr", E.Stderr},
                      {"out_file", E.OutFile},
                      {"status", E.Status},
                      {"sim_lib_file", E.SimLibFile},
                      {"shim_file", E.ShimFile}};
}

bool fromJSON(const json::Value &J, TaskEntry &E, json::Path P) {
  json::ObjectMapper M(J, P);
  return M && M.map("argv", E.Argv) && M.map("env", E.Env) &&
         M.map("exec_file", E.ExecFile) && M.map("stdout", E.Stdout) &&
         M.map("stderr", E.Stderr) && M.map("out_file", E.OutFile) &&
         M.map("status", E.Status) &&
         M.mapOptional("sim_lib_file", E.SimLibFile) &&
         M.mapOptional("shim_file", E.ShimFile);
}

struct CommandOutput {
  int ExitCode = 0;
  std::string Out, Err;
};

/// Run a scheduler command and capture what it prints.
Expected<CommandOutput> capture(ArrayRef<std::string> Argv, StringRef Dir) {
  RunOptions RO;
  RO.Stdin = "";
  std::string Name = sys::path::filename(Argv.front()).str();
  RO.Stdout = (Dir + "/" + Name + ".out").str();
  RO.Stderr = (Dir + "/" + Name + ".err").str();
  // runProgram opens redirections without O_TRUNC: start from empty files.
  sys::fs::remove(*RO.Stdout);
  sys::fs::remove(*RO.Stderr);
  Expected<RunResult> R = runProgram(Argv, RO);
  if (!R)
    return R.takeError();
  CommandOutput C;
  C.ExitCode = R->Crashed ? -1 : R->ExitCode;
  Expected<std::string> Out = readWholeFile(*RO.Stdout);
  Expected<std::string> Err = readWholeFile(*RO.Stderr);
  C.Out = Out ? *Out : (consumeError(Out.takeError()), "");
  C.Err = Err ? *Err : (consumeError(Err.takeError()), "");
  return C;
}

/// "sbatch: error: a\nsbatch: error: b\n" -> "sbatch: error: a; sbatch: error: b"
std::string oneLine(StringRef Text) {
  SmallVector<StringRef, 4> Lines;
  for (StringRef L : split(Text.trim(), '\n'))
    if (!L.trim().empty())
      Lines.push_back(L.trim());
  return join(Lines, "; ");
}

/// What a task's status file says, as the Measurement a local run makes.
Measurement collect(const MeasureOptions &O, const SimTools &T,
                    const TaskEntry &E, const json::Object &Status) {
  if (Status.getBoolean("failed").value_or(true))
    return failedMeasurement(E.V, Status.getString("reason").value_or("").str());
  return simOwnMeasurement(O, T, E.V, E.OutFile);
}

/// Scheduler states after which a task runs no more.
bool isFinalState(StringRef S) {
  return S == "COMPLETED" || S == "FAILED" || S == "CANCELLED" ||
         S == "TIMEOUT" || S == "NODE_FAIL" || S == "PREEMPTED" ||
         S == "OUT_OF_MEMORY" || S == "BOOT_FAIL" || S == "DEADLINE" ||
         S == "GONE" || S == "LAUNCH_FAILED";
}

struct TaskState {
  std::string State = "PENDING", Reason;
  unsigned AbsentPolls = 0; ///< squeue has not listed it this many times
  std::vector<size_t> Entries; ///< indexes into the entry list
};

/// squeue's view of the array: task index -> (state, reason). Tasks it no
/// longer lists are absent.
Expected<std::map<unsigned, std::pair<std::string, std::string>>>
queryTasks(StringRef Squeue, StringRef JobId, StringRef Dir) {
  Expected<CommandOutput> C =
      capture({Squeue.str(), "-h", "-r", "-t", "all", "-j", JobId.str(), "-o",
               "%K|%T|%r"},
              Dir);
  if (!C)
    return C.takeError();
  std::map<unsigned, std::pair<std::string, std::string>> Tasks;
  if (C->ExitCode != 0) {
    // A job purged from slurmctld's memory (MinJobAge) is "Invalid job id".
    if (StringRef(C->Err).contains("Invalid job id"))
      return Tasks;
    return makeError("squeue failed: {0}", oneLine(C->Err));
  }
  for (StringRef Line : split(C->Out, '\n')) {
    SmallVector<StringRef, 3> F;
    Line.trim().split(F, '|');
    unsigned Index;
    if (F.size() != 3 || F[0].getAsInteger(10, Index))
      continue;
    Tasks[Index] = {F[1].str(), F[2].str()};
  }
  return Tasks;
}

/// sacct's state of a task squeue no longer knows ("" when accounting is
/// off, as on a cluster without slurmdbd).
std::string accountedState(StringRef JobId, unsigned Task, StringRef Dir) {
  Expected<std::string> Sacct = findProgram("sacct");
  if (!Sacct) {
    consumeError(Sacct.takeError());
    return "";
  }
  Expected<CommandOutput> C =
      capture({*Sacct, "-n", "-P", "-X", "-j",
               formatv("{0}_{1}", JobId, Task).str(), "-o", "State,Reason"},
              Dir);
  if (!C) {
    consumeError(C.takeError());
    return "";
  }
  if (C->ExitCode != 0)
    return "";
  StringRef First = StringRef(C->Out).split('\n').first.trim();
  return First.str();
}

/// The programs a submission runs: sbatch, squeue, and layout-sweep itself
/// (what every array task execs).
struct SlurmPrograms {
  std::string Sbatch, Squeue, Self;
};

Expected<SlurmPrograms> findSlurmPrograms(const ExecutorOptions &O) {
  Expected<std::string> Sbatch = findProgram("sbatch");
  if (!Sbatch)
    return Sbatch.takeError();
  Expected<std::string> Squeue = findProgram("squeue");
  if (!Squeue)
    return Squeue.takeError();
  std::string Self = O.SlurmTaskProgram;
  if (Self.empty())
    return makeError("--executor=slurm: cannot find layout-sweep's own path");
  return SlurmPrograms{std::move(*Sbatch), std::move(*Squeue),
                       std::move(Self)};
}

/// One directory per submission, so a resumed sweep never reads the status
/// files of an earlier array.
Expected<std::string> submissionDir(StringRef WorkDir) {
  SmallString<256> Dir;
  if (std::error_code EC =
          sys::fs::createUniqueDirectory(WorkDir + "/slurm", Dir))
    return makeError("cannot create a directory in {0}: {1}", WorkDir,
                     EC.message());
  return Dir.str().str();
}

/// Prepare every variant here, in parallel (relinks need this machine's
/// tools).
std::vector<Expected<PreparedVariant>>
prepareInParallel(Perturber &P, ArrayRef<std::pair<unsigned, Variant>> Work) {
  std::vector<Expected<PreparedVariant>> Prepared;
  for (size_t I = 0; I < Work.size(); ++I)
    Prepared.emplace_back(makeError("not prepared"));
  DefaultThreadPool Pool(hardware_concurrency(0));
  for (size_t I = 0; I < Work.size(); ++I)
    Pool.async([&, I] {
      Expected<PreparedVariant> PV = P.prepare(Work[I].second, Work[I].first);
      consumeError(Prepared[I].takeError());
      Prepared[I] = std::move(PV);
    });
  Pool.wait();
  return Prepared;
}

/// The command a task runs for prepared variant \p PV, writing its status
/// to \p Status.
TaskEntry taskEntry(const EngineOptions &O, const SimTools &Sim,
                    PreparedVariant &PV, std::string Status) {
  if (execAsMode(O) == "fd" && !PV.Argv.empty()) {
    PV.ExecFile = PV.Argv[0];
    PV.Argv[0] = VariantExecPath;
  }
  TaskEntry E;
  E.V = PV.V;
  // keel-sim runs each variant's own binary here: one task, one variant
  // (docs/keel-sim.md).
  E.OutFile = PV.Dir + (Sim.KeelSim ? "/keel-sim.out" : "/cachegrind.out");
  E.Argv = simRunArgv(O, Sim, PV, E.OutFile);
  PreparedVariant Run = PV;
  Run.Env = simRunEnv(Sim, PV);
  nameByDescriptor(O, Sim, Run);
  E.Env = Run.Env;
  for (const auto &[Fd, File] : Run.MoreFds)
    (Fd == SimLibFd ? E.SimLibFile : E.ShimFile) = File;
  E.ExecFile = PV.ExecFile;
  E.Stdout = PV.Dir + "/stdout";
  E.Stderr = PV.Dir + "/stderr";
  E.Status = std::move(Status);
  return E;
}

/// The task entries of the prepared variants, in order. A variant whose
/// preparation failed goes to the sink as failed at once; an error
/// preparing one (in the order of the work) stops the sweep.
Expected<std::vector<TaskEntry>>
taskEntries(const EngineOptions &O, const SimTools &Sim, StringRef Dir,
            std::vector<Expected<PreparedVariant>> &Prepared,
            const SlurmSink &Sink) {
  std::vector<TaskEntry> Entries;
  for (size_t I = 0; I < Prepared.size(); ++I) {
    if (!Prepared[I]) {
      Error E = Prepared[I].takeError();
      for (size_t J = I + 1; J < Prepared.size(); ++J)
        consumeError(Prepared[J].takeError());
      return std::move(E);
    }
    PreparedVariant &PV = *Prepared[I];
    if (!PV.Failure.empty()) {
      Sink.Record(failedMeasurement(PV.V, PV.Failure));
      continue;
    }
    if (!PV.Argv.empty())
      Sink.BinarySeen(PV.V.Series, PV.Argv[0]);
    Entries.push_back(taskEntry(
        O, Sim, PV,
        formatv("{0}/status-{1}.json", Dir, Entries.size()).str()));
  }
  return Entries;
}

/// One submission: its directory, the variants it runs, how they are split
/// into array tasks and, once sbatch has accepted it, the job id.
struct ArrayJob {
  std::string Dir;
  std::vector<TaskEntry> Entries;
  std::vector<TaskState> Tasks;
  std::vector<bool> Collected; ///< per entry: its status file has been read
  std::string JobId;
};

/// Split \p NumEntries entries into array tasks: contiguous groups of
/// (nearly) equal size.
std::vector<TaskState> splitIntoTasks(const ExecutorOptions &O,
                                      size_t NumEntries) {
  size_t Want = O.SlurmTasks ? O.SlurmTasks : NumEntries;
  Want = std::min({Want, NumEntries, MaxTasks});
  size_t Per = (NumEntries + Want - 1) / Want;
  size_t NumTasks = (NumEntries + Per - 1) / Per;
  std::vector<TaskState> Tasks(NumTasks);
  for (size_t T = 0; T < NumTasks; ++T)
    for (size_t I = T * Per; I < std::min(NumEntries, (T + 1) * Per); ++I)
      Tasks[T].Entries.push_back(I);
  return Tasks;
}

/// Write the task list and the script every array task runs; the script's
/// path.
Expected<std::string> writeTaskFiles(const ExecutorOptions &O, StringRef Self,
                                     const ArrayJob &Job) {
  json::Array TaskList;
  for (const TaskState &T : Job.Tasks) {
    json::Array One;
    for (size_t I : T.Entries)
      One.push_back(toJSON(Job.Entries[I]));
    TaskList.push_back(std::move(One));
  }
  std::string TaskFile = Job.Dir + "/tasks.json";
  if (Error E = writeOutput(TaskFile, [&](raw_ostream &OS) {
        OS << json::Value(json::Object{{"keel_slurm_tasks", TaskFileVersion},
                                       {"timeout", O.TimeoutSeconds},
                                       {"tasks", std::move(TaskList)}})
           << "\n";
        return Error::success();
      }))
    return std::move(E);
  std::string Script = Job.Dir + "/task.sh";
  if (Error E = writeOutput(Script, [&](raw_ostream &OS) {
        OS << "#!/bin/sh\n# One task of a layout-sweep job array.\nexec "
           << shellQuote(Self) << " --slurm-task " << shellQuote(TaskFile)
           << "\n";
        return Error::success();
      }))
    return std::move(E);
  return Script;
}

/// Submit the array with sbatch, the user's words first, so the array,
/// output and name are ours; say so, and return the job id.
Expected<std::string> submitArray(const ExecutorOptions &O, StringRef Sbatch,
                                  const ArrayJob &Job, StringRef Script) {
  Expected<std::vector<std::string>> UserArgs = slurmArgWords(O.SlurmArgs);
  if (!UserArgs)
    return UserArgs.takeError();
  size_t NumTasks = Job.Tasks.size();
  std::string Array = formatv("--array=0-{0}", NumTasks - 1).str();
  if (O.Jobs)
    Array += formatv("%{0}", O.Jobs).str();
  std::vector<std::string> Submit = {Sbatch.str(), "--parsable"};
  Submit.insert(Submit.end(), UserArgs->begin(), UserArgs->end());
  Submit.insert(Submit.end(), {Array, "--job-name=layout-sweep",
                               "--output=" + Job.Dir + "/task-%a.out",
                               Script.str()});
  Expected<CommandOutput> Sub = capture(Submit, Job.Dir);
  if (!Sub)
    return Sub.takeError();
  StringRef JobId = StringRef(Sub->Out).trim().split(';').first;
  unsigned long long IdNum;
  if (Sub->ExitCode != 0 || JobId.getAsInteger(10, IdNum))
    return makeError("sbatch refused the job array (exit {0}): {1}",
                     Sub->ExitCode,
                     oneLine(Sub->Err.empty() ? Sub->Out : Sub->Err));
  size_t NumEntries = Job.Entries.size();
  errs() << formatv("layout-sweep: slurm job {0}: {1} variant{2} in {3} array "
                    "task{4} ({5})\n",
                    JobId, NumEntries, NumEntries == 1 ? "" : "s", NumTasks,
                    NumTasks == 1 ? "" : "s", Array);
  return JobId.str();
}

/// Turn every status file that has appeared since the last call into a
/// measurement for the sink.
void collectReady(const MeasureOptions &O, const SimTools &Sim, ArrayJob &Job,
                  const SlurmSink &Sink) {
  for (size_t I = 0; I < Job.Entries.size(); ++I) {
    const TaskEntry &E = Job.Entries[I];
    if (Job.Collected[I] || !sys::fs::exists(E.Status))
      continue;
    Expected<std::string> Text = readWholeFile(E.Status);
    Expected<json::Value> J = Text ? json::parse(*Text)
                                   : Expected<json::Value>(Text.takeError());
    if (!J || !J->getAsObject()) {
      consumeError(J ? Error::success() : J.takeError());
      continue; // picked up again, or reported as unmeasured
    }
    Job.Collected[I] = true;
    Sink.Record(collect(O, Sim, E, *J->getAsObject()));
  }
}

struct TaskCounts {
  unsigned Pending = 0, Running = 0, Ended = 0;
};

/// Bring every task's state up to date with squeue's view \p Q, and count
/// the tasks by what they are doing.
TaskCounts
updateTaskStates(std::vector<TaskState> &Tasks,
                 const std::map<unsigned, std::pair<std::string, std::string>>
                     &Q) {
  TaskCounts C;
  for (size_t T = 0; T < Tasks.size(); ++T) {
    TaskState &TS = Tasks[T];
    auto It = Q.find(T);
    if (It != Q.end()) {
      TS.State = It->second.first;
      TS.Reason = It->second.second;
      TS.AbsentPolls = 0;
      // slurmctld requeues a task whose launch failed and holds it: it
      // will not run unless someone releases it.
      if (TS.State == "PENDING" && StringRef(TS.Reason).contains("launch failed"))
        TS.State = "LAUNCH_FAILED";
    } else if (!isFinalState(TS.State) && ++TS.AbsentPolls >= 3) {
      // Gone for good (a pending task cancelled, or the job purged):
      // squeue can also list nothing for a moment while slurmctld
      // splits a released array, hence three polls.
      TS.State = "GONE";
    }
    StringRef S = TS.State;
    if (isFinalState(S))
      ++C.Ended;
    else if (S == "PENDING" || S == "REQUEUED" || S == "REQUEUE_HOLD")
      ++C.Pending;
    else
      ++C.Running;
  }
  return C;
}

/// Poll squeue once a second until every task has ended, collecting status
/// files as they appear and printing the task counts when they change.
Error waitForTasks(const MeasureOptions &O, const SimTools &Sim,
                   StringRef Squeue, ArrayJob &Job, const SlurmSink &Sink) {
  std::string LastLine;
  unsigned SqueueFailures = 0;
  while (true) {
    collectReady(O, Sim, Job, Sink);
    Expected<std::map<unsigned, std::pair<std::string, std::string>>> Q =
        queryTasks(Squeue, Job.JobId, Job.Dir);
    if (!Q) {
      // A scheduler that is briefly busy answers the next poll.
      if (++SqueueFailures >= 30)
        return Q.takeError();
      consumeError(Q.takeError());
      std::this_thread::sleep_for(std::chrono::seconds(1));
      continue;
    }
    SqueueFailures = 0;
    TaskCounts C = updateTaskStates(Job.Tasks, *Q);
    size_t Measured = llvm::count(Job.Collected, true);
    std::string Line =
        formatv("layout-sweep: slurm job {0}: {1} pending, {2} running, {3} "
                "done of {4} tasks; {5}/{6} variants measured",
                Job.JobId, C.Pending, C.Running, C.Ended, Job.Tasks.size(),
                Measured, Job.Entries.size())
            .str();
    if (Line != LastLine)
      errs() << Line << "\n";
    LastLine = Line;
    if (C.Ended == Job.Tasks.size())
      return Error::success();
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

/// Why task \p T ended with variants unmeasured: its state (sacct's, when
/// squeue no longer knows it) and the first line of its output.
std::string whyLost(const ArrayJob &Job, size_t T) {
  const TaskState &TS = Job.Tasks[T];
  std::string Why = TS.State;
  if (Why == "GONE") {
    std::string Acct = accountedState(Job.JobId, T, Job.Dir);
    Why = Acct.empty() ? "no longer known to the scheduler (cancelled "
                         "before it started?)"
                       : Acct;
  } else if (!TS.Reason.empty() && TS.Reason != "None") {
    Why += " (" + TS.Reason + ")";
  }
  std::string Out = formatv("{0}/task-{1}.out", Job.Dir, T).str();
  std::string First = firstLineOf(Out);
  if (!First.empty())
    Why += "; " + Out + ": " + First;
  return Why;
}

/// The error naming the tasks that ended without measuring all their
/// variants; success when there are none.
Error lostTasksError(const JournalOptions &O, const ArrayJob &Job) {
  std::vector<std::string> Lost;
  size_t Unmeasured = 0;
  for (size_t T = 0; T < Job.Tasks.size(); ++T) {
    size_t Missing = 0;
    for (size_t I : Job.Tasks[T].Entries)
      Missing += !Job.Collected[I];
    if (!Missing)
      continue;
    Unmeasured += Missing;
    Lost.push_back(formatv("task {0}: {1}", T, whyLost(Job, T)).str());
  }
  if (Lost.empty())
    return Error::success();
  size_t NumTasks = Job.Tasks.size();
  if (Lost.size() == NumTasks && !llvm::count(Job.Collected, true))
    return makeError("every task of slurm job {0} ended without measuring its "
                     "variants; {1}",
                     Job.JobId, Lost.front());
  std::string Resume =
      O.JournalPath.empty()
          ? "with a --journal (or an output file), --resume measures only them"
          : "the others are in the journal " + O.JournalPath +
                "; run the same command with --resume to measure only them";
  return makeError("{0} of {1} tasks of slurm job {2} ended without measuring "
                   "{3} variant{4} ({5}); {6}",
                   Lost.size(), NumTasks, Job.JobId, Unmeasured,
                   Unmeasured == 1 ? "" : "s", join(Lost, "; "), Resume);
}

} // namespace

Error measureOnSlurm(const EngineOptions &O, Perturber &P, const SimTools &Sim,
                     StringRef WorkDir,
                     ArrayRef<std::pair<unsigned, Variant>> Work,
                     const SlurmSink &Sink) {
  if (Work.empty())
    return Error::success();
  Expected<SlurmPrograms> Progs = findSlurmPrograms(O);
  if (!Progs)
    return Progs.takeError();
  ArrayJob Job;
  Expected<std::string> Dir = submissionDir(WorkDir);
  if (!Dir)
    return Dir.takeError();
  Job.Dir = std::move(*Dir);

  std::vector<Expected<PreparedVariant>> Prepared = prepareInParallel(P, Work);
  Expected<std::vector<TaskEntry>> Entries =
      taskEntries(O, Sim, Job.Dir, Prepared, Sink);
  if (!Entries)
    return Entries.takeError();
  if (Entries->empty())
    return Error::success();
  Job.Entries = std::move(*Entries);
  Job.Tasks = splitIntoTasks(O, Job.Entries.size());
  Job.Collected.assign(Job.Entries.size(), false);

  Expected<std::string> Script = writeTaskFiles(O, Progs->Self, Job);
  if (!Script)
    return Script.takeError();
  Expected<std::string> JobId = submitArray(O, Progs->Sbatch, Job, *Script);
  if (!JobId)
    return JobId.takeError();
  Job.JobId = std::move(*JobId);

  if (Error E = waitForTasks(O, Sim, Progs->Squeue, Job, Sink))
    return E;
  collectReady(O, Sim, Job, Sink);
  return lostTasksError(O, Job);
}

Error runSlurmTask(StringRef TaskFile) {
  const char *IdText = std::getenv("SLURM_ARRAY_TASK_ID");
  unsigned Id;
  if (!IdText || StringRef(IdText).getAsInteger(10, Id))
    return makeError("--slurm-task runs inside a Slurm job array "
                     "(SLURM_ARRAY_TASK_ID is not set)");
  Expected<json::Value> J = readJSONFile(TaskFile);
  if (!J)
    return J.takeError();
  const json::Object *Root = J->getAsObject();
  if (!Root || Root->getInteger("keel_slurm_tasks") != TaskFileVersion)
    return inputError(TaskFile, 0, "not a layout-sweep task list (version {0})",
                      TaskFileVersion);
  const json::Array *All = Root->getArray("tasks");
  if (!All || Id >= All->size())
    return inputError(TaskFile, 0, "no task {0}", Id);
  std::vector<TaskEntry> Entries;
  json::Path::Root PR("task");
  if (!fromJSON((*All)[Id], Entries, PR))
    return inputError(TaskFile, 0, "bad task {0}: {1}", Id,
                      toString(PR.getError()));
  unsigned Timeout =
      static_cast<unsigned>(Root->getInteger("timeout").value_or(0));
  for (const TaskEntry &E : Entries) {
    // As the local engine does (Executor.cpp, runVariantCommand).
    sys::fs::remove(E.OutFile);
    RunOptions RO;
    RO.Env = E.Env;
    RO.Stdin = "";
    RO.Stdout = E.Stdout;
    RO.Stderr = E.Stderr;
    RO.TimeoutSeconds = Timeout;
    if (!E.ExecFile.empty())
      RO.FdFiles = {{VariantExecFd, E.ExecFile}};
    if (!E.SimLibFile.empty())
      RO.FdFiles.push_back({SimLibFd, E.SimLibFile});
    if (!E.ShimFile.empty())
      RO.FdFiles.push_back({ShimFd, E.ShimFile});
    Expected<RunResult> R = runProgram(E.Argv, RO);
    bool Failed = true;
    std::string Reason;
    if (!R) {
      Reason = "cannot run: " + toString(R.takeError());
    } else if (R->Crashed || R->ExitCode != 0) {
      if (!R->Crashed)
        Reason = formatv("exit code {0}", R->ExitCode).str();
      else if (StringRef(R->Message).starts_with("timed out"))
        Reason = R->Message;
      else
        Reason = formatv("crashed ({0})", R->Message).str();
      std::string Line = firstLineOf(E.Stderr);
      if (!Line.empty())
        Reason += "; stderr: " + Line;
    } else {
      Failed = false;
    }
    if (Error Err = writeOutput(E.Status, [&](raw_ostream &OS) {
          OS << json::Value(json::Object{{"failed", Failed}, {"reason", Reason}})
             << "\n";
          return Error::success();
        }))
      return Err;
  }
  return Error::success();
}

} // namespace sweep
} // namespace keel
