//===- EventGroup.cpp - perf_event_attr for LBR sampling -------------------===//
//
// One group per CPU (per-task events cannot be inherited into a ring buffer
// on cpu -1): leader = the sampling event with the branch stack, members =
// cycles and instructions counters that the kernel reads into every sample
// (PERF_SAMPLE_READ + PERF_FORMAT_GROUP|PERF_FORMAT_ID). The group starts
// disabled and is enabled by the exec of the recorded program
// (enable_on_exec), so the recorder's own fork/exec is not measured.
//
//===----------------------------------------------------------------------===//
#include "keel/Record/EventGroup.h"
#include "keel/Support/Diagnostics.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

#include <cstring>

using namespace llvm;

namespace keel {

namespace {

struct FilterWord {
  const char *Name;
  uint64_t Bits;
};

// The --lbr words, in the order branchFilterName prints them.
const FilterWord FilterWords[] = {
    {"any", PERF_SAMPLE_BRANCH_ANY},
    {"call", PERF_SAMPLE_BRANCH_ANY_CALL},
    {"return", PERF_SAMPLE_BRANCH_ANY_RETURN},
    {"ind_call", PERF_SAMPLE_BRANCH_IND_CALL},
    {"user", PERF_SAMPLE_BRANCH_USER},
    {"kernel", PERF_SAMPLE_BRANCH_KERNEL},
};

constexpr uint64_t PrivilegeBits =
    PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_KERNEL | PERF_SAMPLE_BRANCH_HV;

// Fields every counter of the group shares.
perf_event_attr baseAttr(const EventEncoding &E, const RecordOptions &Opts) {
  perf_event_attr A;
  std::memset(&A, 0, sizeof(A));
  A.size = sizeof(A);
  A.type = E.Type;
  A.config = E.Config;
  A.config1 = E.Config1;
  A.config2 = E.Config2;
  A.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
  A.exclude_kernel = !Opts.Kernel;
  A.exclude_hv = 1;
  A.inherit = Opts.Inherit;
  return A;
}

bool sameCounter(const EventEncoding &A, const EventEncoding &B) {
  return A.Type == B.Type && A.Config == B.Config && A.Config1 == B.Config1 &&
         A.Config2 == B.Config2;
}

Error checkOptions(const RecordOptions &Opts, const EventEncoding &Leader,
                   uint64_t Filter) {
  if ((Opts.Period == 0) == (Opts.Freq == 0))
    return makeError("give exactly one of --period and --freq");
  if (Opts.MmapPages == 0 || (Opts.MmapPages & (Opts.MmapPages - 1)))
    return makeError("--mmap-pages must be a power of two, not {0}",
                     Opts.MmapPages);
  if (Opts.MemorySamples && Filter)
    return makeError("memory-access sampling records no branch stack; use "
                     "--lbr=none, not --lbr={0}",
                     Opts.LBR);
  if (!Leader.IsAMDBRS)
    return Error::success();
  // AMD BRS (Zen3): the kernel rejects frequency mode and branch-type
  // filters, and shortens the period by the 16-entry depth.
  if (Opts.Freq)
    return makeError("AMD branch sampling ({0}) needs a fixed --period; the "
                     "kernel refuses --freq with BRS",
                     Leader.Name);
  if (Opts.Period <= 16)
    return makeError("AMD branch sampling needs --period above 16 (the BRS "
                     "depth), not {0}",
                     Opts.Period);
  if (Filter & ~(PrivilegeBits | PERF_SAMPLE_BRANCH_ANY))
    return makeError("AMD branch sampling records every taken branch; use "
                     "--lbr=any, not --lbr={0}",
                     Opts.LBR);
  return Error::success();
}

} // namespace

Expected<uint64_t> parseBranchFilter(StringRef Spec, bool Kernel) {
  if (Spec == "none")
    return 0;
  uint64_t Bits = 0;
  SmallVector<StringRef, 4> Words;
  Spec.split(Words, ',', -1, /*KeepEmpty=*/false);
  if (Words.empty())
    return makeError("empty --lbr filter (try any, user-callret or "
                     "call,return)");
  for (StringRef W : Words) {
    W = W.trim();
    if (W == "user-callret") {
      // User-mode calls and returns, as Yamamoto et al. and Ono et al.
      // recorded (docs/references.md).
      Bits |= PERF_SAMPLE_BRANCH_ANY_CALL | PERF_SAMPLE_BRANCH_ANY_RETURN |
              PERF_SAMPLE_BRANCH_USER;
      continue;
    }
    const FilterWord *Found = nullptr;
    for (const FilterWord &F : FilterWords)
      if (W == F.Name)
        Found = &F;
    if (!Found)
      return makeError("unknown --lbr word '{0}' (expected any, call, return, "
                       "ind_call, user, kernel, user-callret or none)",
                       W);
    Bits |= Found->Bits;
  }
  if (!(Bits & ~PrivilegeBits))
    return makeError("--lbr={0} names no branch type (add any, call, return "
                     "or ind_call)",
                     Spec);
  if (!(Bits & PrivilegeBits))
    Bits |= PERF_SAMPLE_BRANCH_USER | (Kernel ? PERF_SAMPLE_BRANCH_KERNEL : 0);
  return Bits;
}

std::string branchFilterName(uint64_t Filter) {
  if (!Filter)
    return "none";
  SmallVector<StringRef, 6> Names;
  for (const FilterWord &F : FilterWords)
    if (Filter & F.Bits)
      Names.push_back(F.Name);
  return join(Names, ",");
}

uint64_t memorySampleType() {
  return PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
         PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ |
         PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT;
}

Expected<EventGroup> buildEventGroup(const RecordOptions &Opts) {
  Expected<uint64_t> Filter = parseBranchFilter(Opts.LBR, Opts.Kernel);
  if (!Filter)
    return Filter.takeError();
  Expected<EventEncoding> Leader = encodeEvent(Opts.Event);
  if (!Leader)
    return Leader.takeError();
  if (Error E = checkOptions(Opts, *Leader, *Filter))
    return std::move(E);

  // Kernel branches need kernel-mode counting, or none would be recorded.
  RecordOptions Eff = Opts;
  Eff.Kernel = Opts.Kernel || (*Filter & PERF_SAMPLE_BRANCH_KERNEL);

  EventGroup G;
  G.BranchFilter = *Filter;
  GroupMember L{*Leader, {CounterRole::Sample}, baseAttr(*Leader, Eff)};
  perf_event_attr &A = L.Attr;
  A.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                  PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ;
  if (*Filter) {
    A.sample_type |= PERF_SAMPLE_BRANCH_STACK;
    A.branch_sample_type = *Filter;
    // Branch types (COND, CALL, ...) are decoded by the kernel on Intel
    // LBR; BRS cannot filter or classify.
    if (!Leader->IsAMDBRS)
      A.branch_sample_type |= PERF_SAMPLE_BRANCH_TYPE_SAVE;
  }
  if (Opts.MemorySamples) {
    // Data address, data source (snoop HITM etc.) and latency come from
    // the PEBS record, so the event must be precise; with precise_ip 2
    // the IP is the instruction that did the access.
    A.sample_type = memorySampleType();
    A.precise_ip = 2;
  }
  if (Opts.Freq) {
    A.freq = 1;
    A.sample_freq = Opts.Freq;
  } else {
    A.sample_period = Opts.Period;
  }
  A.disabled = 1;
  A.enable_on_exec = 1;
  // Side-band records so that PIE and shared-library addresses map back to
  // files, and pids to commands.
  A.mmap = 1;
  A.mmap2 = 1;
  A.mmap_data = Opts.DataMmaps;
  A.comm = 1;
  A.comm_exec = 1;
  A.task = 1;
  A.sample_id_all = 1;
  // Wake the reader when a quarter of the ring is full.
  A.watermark = 1;
  A.wakeup_watermark = Opts.MmapPages * 4096 / 4;
  G.Members.push_back(std::move(L));

  auto AddCounter = [&](StringRef Name, CounterRole Role) -> Error {
    if (Name.empty())
      return Error::success();
    Expected<EventEncoding> E = encodeEvent(Name);
    if (!E)
      return E.takeError();
    for (GroupMember &M : G.Members)
      if (sameCounter(M.Event, *E)) {
        M.Roles.push_back(Role);
        return Error::success();
      }
    G.Members.push_back({*E, {Role}, baseAttr(*E, Eff)});
    return Error::success();
  };
  if (Opts.MemorySamples)
    return G;
  if (Error E = AddCounter(Opts.CyclesEvent, CounterRole::Cycles))
    return std::move(E);
  if (Error E = AddCounter(Opts.InstructionsEvent, CounterRole::Instructions))
    return std::move(E);
  return G;
}

} // namespace keel
