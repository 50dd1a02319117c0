//===- Recorder.cpp - run a program under LBR sampling ---------------------===//
//
// The steps of record(), in order:
//  1. build the attributes (EventGroup.cpp);
//  2. fork; the child blocks on a pipe, so nothing it does before exec is
//     measured and the events can be attached to its pid;
//  3. open one group per CPU (or one group on cpu -1 without inherit) and
//     map a ring buffer for each leader; on failure, probe once more to
//     tell "no PMU" from "no branch stacks" and report;
//  4. release the child: it execs, which enables the groups;
//  5. poll and drain the rings until the child exits, then drain once more.
// The ring protocol (drainMappedRing in RingBuffer.cpp): read data_head
// with acquire semantics, parse [data_tail, data_head), then store
// data_tail with release semantics so the kernel may reuse the space (see
// the comment at perf_event_mmap_page in <linux/perf_event.h>).
//
//===----------------------------------------------------------------------===//
#include "keel/Record/Recorder.h"
#include "keel/Record/RingBuffer.h"
#include "keel/Support/Diagnostics.h"
#include "keel/Support/Process.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace llvm;

namespace keel {

namespace {

int perfEventOpen(const perf_event_attr &A, pid_t Pid, int CPU, int GroupFd) {
  perf_event_attr Copy = A;
  return static_cast<int>(syscall(SYS_perf_event_open, &Copy, Pid, CPU,
                                  GroupFd, PERF_FLAG_FD_CLOEXEC));
}

int readParanoid() {
  ErrorOr<std::unique_ptr<MemoryBuffer>> B =
      MemoryBuffer::getFileAsStream("/proc/sys/kernel/perf_event_paranoid");
  int V;
  if (!B || StringRef((*B)->getBuffer()).trim().getAsInteger(10, V))
    return -1;
  return V;
}

/// One mapped ring buffer: the metadata page, then 2^n data pages.
struct Ring {
  void *Base = nullptr;
  size_t Length = 0, PageSize = 0;
  Error drain(RecordParser &P) {
    return drainMappedRing(Base, Length, PageSize, P);
  }
};

/// Everything that must be released, whatever happens.
struct LiveRecording {
  std::vector<int> Fds;      ///< every counter
  std::vector<int> Leaders;  ///< one per ring
  std::vector<Ring> Rings;
  pid_t Child = -1;
  int GoFd = -1, ExecErrFd = -1;
  bool IgnoringInt = false;
  bool Released = false; ///< the child was let go to exec
  struct sigaction OldInt;
  /// Ctrl-C reaches the whole foreground process group: let it stop the
  /// program, and keep the recorder alive to write what was recorded (as
  /// perf record does).
  void ignoreInterrupts() {
    struct sigaction Ignore;
    std::memset(&Ignore, 0, sizeof(Ignore));
    Ignore.sa_handler = SIG_IGN;
    IgnoringInt = sigaction(SIGINT, &Ignore, &OldInt) == 0;
  }
  ~LiveRecording() {
    if (IgnoringInt)
      sigaction(SIGINT, &OldInt, nullptr);
    for (Ring &R : Rings)
      if (R.Base)
        munmap(R.Base, R.Length);
    for (int Fd : Fds)
      close(Fd);
    if (GoFd >= 0)
      close(GoFd); // an unreleased child reads EOF and exits
    if (ExecErrFd >= 0)
      close(ExecErrFd);
    if (Child > 0) {
      // Still running after a failure: the recording is lost, so do not
      // wait for the program to finish on its own.
      if (Released)
        kill(Child, SIGKILL);
      int Status;
      while (waitpid(Child, &Status, 0) < 0 && errno == EINTR) {
      }
    }
  }
};

/// Fork a child that waits for one byte on a pipe and then execs \p Path.
/// The exec error (errno), if any, arrives on LiveRecording::ExecErrFd.
Error forkWaitingChild(const std::string &Path, ArrayRef<std::string> Argv,
                       LiveRecording &S) {
  int Go[2], ExecErr[2];
  if (pipe2(Go, O_CLOEXEC) || pipe2(ExecErr, O_CLOEXEC))
    return makeError("pipe: {0}", strerror(errno));
  // Everything the child needs, prepared before fork (no allocation after).
  std::vector<char *> CArgv;
  for (const std::string &A : Argv)
    CArgv.push_back(const_cast<char *>(A.c_str()));
  CArgv.push_back(nullptr);
  pid_t Pid = fork();
  if (Pid < 0)
    return makeError("fork: {0}", strerror(errno));
  if (Pid == 0) {
    close(Go[1]);
    close(ExecErr[0]);
    char C;
    if (read(Go[0], &C, 1) != 1)
      _exit(127); // the recorder gave up
    execv(Path.c_str(), CArgv.data());
    int E = errno;
    (void)!write(ExecErr[1], &E, sizeof(E));
    _exit(127);
  }
  close(Go[0]);
  close(ExecErr[1]);
  S.Child = Pid;
  S.GoFd = Go[1];
  S.ExecErrFd = ExecErr[0];
  return Error::success();
}

Error openFailure(int Errno, const GroupMember &M, const EventGroup &G,
                  const RecordOptions &Opts, pid_t Pid, int CPU) {
  OpenFailure F;
  F.Errno = Errno;
  F.Event = M.Event.Name;
  F.BranchFilter = M.Attr.branch_sample_type ? G.BranchFilter : 0;
  F.Kernel = !M.Attr.exclude_kernel;
  F.Paranoid = readParanoid();
  auto Works = [&](perf_event_attr A) {
    int Fd = perfEventOpen(A, Pid, CPU, -1);
    if (Fd >= 0)
      close(Fd);
    return Fd >= 0;
  };
  if (Errno != EACCES && Errno != EPERM && F.BranchFilter) {
    perf_event_attr A = M.Attr;
    A.sample_type &= ~uint64_t(PERF_SAMPLE_BRANCH_STACK);
    A.branch_sample_type = 0;
    F.WorksWithoutBranchStack = Works(A);
  }
  if ((Errno == EINVAL || Errno == EOPNOTSUPP) && M.Attr.precise_ip) {
    perf_event_attr A = M.Attr;
    A.precise_ip = 0;
    A.sample_type &= ~uint64_t(PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC |
                               PERF_SAMPLE_WEIGHT_TYPE);
    F.WorksWithoutPrecise = Works(A);
  }
  if (Errno == EINVAL && M.Attr.inherit) {
    perf_event_attr A = M.Attr;
    A.inherit = 0;
    F.WorksWithoutInherit = Works(A);
  }
  return openFailureError(F);
}

/// Open the group on (\p Pid, \p CPU); map the leader's ring.
Error openGroup(const EventGroup &G, const RecordOptions &Opts, pid_t Pid,
                int CPU, RecordLayout &Layout, LiveRecording &S) {
  int LeaderFd = -1;
  for (const GroupMember &M : G.Members) {
    int Fd = perfEventOpen(M.Attr, Pid, CPU, LeaderFd);
    if (Fd < 0)
      return openFailure(errno, M, G, Opts, Pid, CPU);
    S.Fds.push_back(Fd);
    if (LeaderFd < 0)
      LeaderFd = Fd;
    uint64_t Id;
    if (ioctl(Fd, PERF_EVENT_IOC_ID, &Id) < 0)
      return makeError("PERF_EVENT_IOC_ID: {0}", strerror(errno));
    // A counter with several roles (cycles leads) gets its first non-sample
    // role; the parser only needs cycles and instructions.
    for (CounterRole R : M.Roles)
      if (R != CounterRole::Sample)
        Layout.Roles[Id] = R;
  }
  Ring R;
  R.PageSize = sysconf(_SC_PAGESIZE);
  R.Length = (Opts.MmapPages + 1) * R.PageSize;
  R.Base = mmap(nullptr, R.Length, PROT_READ | PROT_WRITE, MAP_SHARED,
                LeaderFd, 0);
  if (R.Base == MAP_FAILED)
    return make_error<UnavailableError>(
        formatv("cannot map a {0}-page perf ring buffer: {1}; use a smaller "
                "--mmap-pages or raise kernel.perf_event_mlock_kb",
                Opts.MmapPages, strerror(errno))
            .str());
  S.Rings.push_back(R);
  S.Leaders.push_back(LeaderFd);
  return Error::success();
}

Error drainAll(LiveRecording &S, RecordParser &P) {
  for (Ring &R : S.Rings)
    if (Error E = R.drain(P))
      return E;
  return Error::success();
}

} // namespace

Error openFailureError(const OpenFailure &F) {
  const char *Why = strerror(F.Errno);
  if (F.Errno == EACCES || F.Errno == EPERM) {
    // Debian's 3 forbids everything unprivileged; 2 allows user-mode
    // measurement of one's own processes; 1 adds kernel mode.
    int Needed = F.Kernel ? 1 : 2;
    if (F.Paranoid > Needed)
      return make_error<UnavailableError>(
          formatv("perf_event_paranoid is {0}, but {1} needs at most {2}: run "
                  "'sudo sysctl -w kernel.perf_event_paranoid={2}' (or give "
                  "this tool CAP_PERFMON)",
                  F.Paranoid,
                  F.Kernel ? "sampling kernel code" : "sampling user code",
                  Needed)
              .str());
    return make_error<UnavailableError>(
        formatv("perf_event_open for '{0}' was denied ({1}) although "
                "perf_event_paranoid is {2}; a security policy (seccomp, "
                "container, LSM) forbids it",
                F.Event, Why, F.Paranoid)
            .str());
  }
  if (F.WorksWithoutInherit)
    return make_error<UnavailableError>(
        "this kernel cannot read the counter group in every sample of "
        "inherited events (Linux 6.12 or later can); record with "
        "--no-inherit");
  if (F.WorksWithoutPrecise)
    return make_error<UnavailableError>(
        formatv("no precise memory sampling: '{0}' opens, but not as a "
                "PEBS event with data address and data source ({1}); "
                "memory-access sampling needs an Intel PMU with PEBS and a "
                "load/store event (e.g. MEM_TRANS_RETIRED.LOAD_LATENCY)",
                F.Event, Why)
            .str());
  bool Missing = F.Errno == ENOENT || F.Errno == ENODEV ||
                 F.Errno == EOPNOTSUPP || F.Errno == EINVAL;
  if (Missing && F.BranchFilter && F.WorksWithoutBranchStack)
    return make_error<UnavailableError>(
        formatv("no branch stacks: this PMU cannot sample '{0}' with "
                "--lbr={1} ({2}); use a machine with Intel LBR or AMD "
                "BRS/LbrExtV2, or --lbr=none for samples without branches",
                F.Event, branchFilterName(F.BranchFilter), Why)
            .str());
  if (F.Errno == ENOENT || F.Errno == ENODEV || F.Errno == EOPNOTSUPP)
    return make_error<UnavailableError>(
        formatv("no hardware performance counters: perf_event_open for '{0}' "
                "failed ({1}); virtual machines often have no PMU",
                F.Event, Why)
            .str());
  return makeError("perf_event_open for '{0}' failed: {1}", F.Event, Why);
}

Expected<RecordResult> record(ArrayRef<std::string> Argv,
                              const RecordOptions &Opts) {
  if (Argv.empty())
    return makeError("no command to record");
  Expected<EventGroup> G = buildEventGroup(Opts);
  if (!G)
    return G.takeError();
  Expected<std::string> Path = findCommand(Argv[0]);
  if (!Path)
    return Path.takeError();

  RecordLayout Layout = RecordLayout::fromGroup(*G);
  LiveRecording S;
  if (Error E = forkWaitingChild(*Path, Argv, S))
    return std::move(E);

  std::vector<int> CPUs;
  if (Opts.Inherit)
    for (long C = 0, N = sysconf(_SC_NPROCESSORS_ONLN); C < N; ++C)
      CPUs.push_back(int(C));
  else
    CPUs.push_back(-1);
  for (int CPU : CPUs)
    if (Error E = openGroup(*G, Opts, S.Child, CPU, Layout, S))
      return std::move(E);

  // Release the child; its exec enables the groups.
  char Go = 'g';
  if (write(S.GoFd, &Go, 1) != 1)
    return makeError("cannot start the recorded program: {0}", strerror(errno));
  close(S.GoFd);
  S.GoFd = -1;
  S.Released = true;
  int ExecErrno = 0;
  ssize_t N;
  while ((N = read(S.ExecErrFd, &ExecErrno, sizeof(ExecErrno))) < 0 &&
         errno == EINTR) {
  }
  if (N == sizeof(ExecErrno))
    return makeError("cannot run '{0}': {1}", *Path, strerror(ExecErrno));

  S.ignoreInterrupts();
  RecordParser Parser(Layout);
  std::vector<pollfd> Polls;
  for (int Fd : S.Leaders)
    Polls.push_back({Fd, POLLIN, 0});
  int Status = 0;
  for (;;) {
    poll(Polls.data(), Polls.size(), 100);
    if (Error E = drainAll(S, Parser))
      return std::move(E);
    pid_t W = waitpid(S.Child, &Status, WNOHANG);
    if (W == S.Child)
      break;
    if (W < 0 && errno != EINTR)
      return makeError("waitpid: {0}", strerror(errno));
  }
  S.Child = -1;
  if (Error E = drainAll(S, Parser))
    return std::move(E);

  RecordResult Result;
  Result.Rec = Parser.take();
  RecordInfo &I = Result.Rec.Info;
  I.Command.assign(Argv.begin(), Argv.end());
  I.Event = Opts.Event;
  I.CyclesEvent = Opts.CyclesEvent;
  I.InstructionsEvent = Opts.InstructionsEvent;
  I.Period = Opts.Period;
  I.Freq = Opts.Freq;
  I.LBR = branchFilterName(G->BranchFilter);
  Result.ExitCode = WIFEXITED(Status) ? WEXITSTATUS(Status)
                                      : 128 + WTERMSIG(Status);
  Result.Signal = WIFSIGNALED(Status) ? WTERMSIG(Status) : 0;
  return Result;
}

} // namespace keel
