//===- EventNames.cpp - hardware event names through libpfm4 ---------------===//
//
// The generic perf names map to PERF_TYPE_HARDWARE (or _SOFTWARE for the
// clocks) directly; they work on every PMU the kernel knows, including
// hybrid and virtual ones. Anything
// else goes through libpfm4, which knows the vendor tables: Yamamoto et
// al.'s INST_RETIRED.ANY_P and CPU_CLK_UNHALTED.THREAD_P on Intel, AMD's
// RETIRED_TAKEN_BRANCH_INSTRUCTIONS for BRS. libpfm4 spells a unit mask
// "EVENT:UMASK"; Intel's documentation writes "EVENT.UMASK", so a name that
// libpfm4 does not find is retried with its dots turned into colons.
//
// libpfm4 detects the host PMU once (pfm_initialize); LIBPFM_FORCE_PMU=<pmu>
// in the environment forces a PMU model, which the unit tests use to get the
// same encodings on every machine.
//
//===----------------------------------------------------------------------===//
#include "keel/Record/EventNames.h"
#include "keel/Support/Diagnostics.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <perfmon/pfmlib_perf_event.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

using namespace llvm;

namespace keel {

namespace {

struct GenericEvent {
  const char *Name;
  uint32_t Type;
  uint64_t Config;
};

// Generic events by their perf names: hardware ones, and the two software
// clocks, which sample without a PMU (no branch stacks, no CPI) and so let
// the whole recorder run on machines without counters.
const GenericEvent GenericEvents[] = {
    {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {"cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
    {"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
    {"branch-instructions", PERF_TYPE_HARDWARE,
     PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
    {"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
    {"cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK},
    {"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
};

Error initLibpfm() {
  static int Status = pfm_initialize();
  if (Status != PFM_SUCCESS)
    return makeError("libpfm4 initialisation failed: {0}", pfm_strerror(Status));
  return Error::success();
}

// True when libpfm4 recognised a processor-core PMU on this host (or one was
// forced with LIBPFM_FORCE_PMU).
bool hasCorePMU() {
  for (int P = PFM_PMU_NONE; P < PFM_PMU_MAX; ++P) {
    pfm_pmu_info_t Info;
    std::memset(&Info, 0, sizeof(Info));
    Info.size = sizeof(Info);
    if (pfm_get_pmu_info(static_cast<pfm_pmu_t>(P), &Info) == PFM_SUCCESS &&
        Info.is_present && Info.type == PFM_PMU_TYPE_CORE)
      return true;
  }
  return false;
}

// Whether the kernel registered a processor-core PMU (perf_event's "cpu", or
// a hybrid part's "cpu_core"/"cpu_atom", or an Arm "armv*" PMU). libpfm4
// recognises a core PMU from CPUID alone, so in a virtual machine without a
// virtual PMU it still says "present"; the kernel does not register one there.
// Without the sysfs directory at all, nothing is known: assume present. A PMU
// forced on libpfm4 (LIBPFM_FORCE_PMU, as the unit tests do) is taken as given.
bool kernelHasCorePMU() {
  if (std::getenv("LIBPFM_FORCE_PMU"))
    return true;
  std::error_code EC;
  llvm::sys::fs::directory_iterator It("/sys/bus/event_source/devices", EC), End;
  if (EC)
    return true;
  for (; It != End && !EC; It.increment(EC)) {
    llvm::StringRef Name = llvm::sys::path::filename(It->path());
    if (Name == "cpu" || Name == "cpu_core" || Name == "cpu_atom" ||
        Name.starts_with("armv"))
      return true;
  }
  return false;
}

// One libpfm4 lookup; returns the pfm error code.
int pfmEncode(const std::string &Name, EventEncoding &Out) {
  perf_event_attr Attr;
  std::memset(&Attr, 0, sizeof(Attr));
  char *FStr = nullptr;
  pfm_perf_encode_arg_t Arg;
  std::memset(&Arg, 0, sizeof(Arg));
  Arg.attr = &Attr;
  Arg.fstr = &FStr;
  Arg.size = sizeof(Arg);
  // Privilege bits are set by the caller (exclude_user/exclude_kernel).
  int Ret = pfm_get_os_event_encoding(Name.c_str(), PFM_PLM0 | PFM_PLM3,
                                      PFM_OS_PERF_EVENT_EXT, &Arg);
  if (Ret != PFM_SUCCESS)
    return Ret;
  Out.Type = Attr.type;
  Out.Config = Attr.config;
  Out.Config1 = Attr.config1;
  Out.Config2 = Attr.config2;
  if (FStr) {
    Out.FullName = FStr;
    std::free(FStr);
  }
  return PFM_SUCCESS;
}

} // namespace

Expected<EventEncoding> encodeEvent(StringRef Name) {
  EventEncoding E;
  E.Name = Name.str();
  E.FullName = Name.str();
  for (const GenericEvent &G : GenericEvents)
    if (Name == G.Name) {
      E.Type = G.Type;
      E.Config = G.Config;
      return E;
    }
  if (Error Err = initLibpfm())
    return std::move(Err);
  int Ret = pfmEncode(Name.str(), E);
  if (Ret == PFM_ERR_NOTFOUND && Name.contains('.') && !Name.contains(':')) {
    std::string Colons = Name.str();
    std::replace(Colons.begin(), Colons.end(), '.', ':');
    Ret = pfmEncode(Colons, E);
  }
  if (Ret == PFM_ERR_NOTFOUND && !hasCorePMU())
    return make_error<UnavailableError>(
        formatv("no hardware PMU: libpfm4 recognises no processor-core PMU on "
                "this machine, so event '{0}' cannot be used (typical in "
                "virtual machines without a virtual PMU)",
                Name)
            .str());
  if (Ret == PFM_ERR_NOTFOUND && !kernelHasCorePMU())
    return make_error<UnavailableError>(
        formatv("no hardware PMU: the kernel registers no processor-core PMU "
                "(/sys/bus/event_source/devices has no cpu), so event '{0}' "
                "cannot be used (typical in virtual machines without a "
                "virtual PMU)",
                Name)
            .str());
  if (Ret != PFM_SUCCESS)
    return makeError("unknown event '{0}': {1} (libpfm4 names look like "
                     "INST_RETIRED.ANY_P or pmu::EVENT:UMASK)",
                     Name, pfm_strerror(Ret));
  // Zen3's branch sampling is tied to retired taken branches; Zen4 and later
  // use LbrExtV2, which works with any event.
  StringRef Full = E.FullName;
  E.IsAMDBRS = Full.starts_with("amd64_fam19h_zen3::") &&
               Full.contains("RETIRED_TAKEN_BRANCH_INSTRUCTIONS");
  return E;
}

} // namespace keel
