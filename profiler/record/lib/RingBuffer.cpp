//===- RingBuffer.cpp - perf ring-buffer record parser ---------------------===//
//
// Record layouts (all little-endian u64/u32 as the kernel writes them; see
// the comments at enum perf_event_type in <linux/perf_event.h>):
//   SAMPLE      ip? pid,tid? time? addr? id? stream_id? cpu,res? period?
//               read_format? callchain? raw? branch_stack? (regs_user?
//               stack_user?: never requested) weight? data_src? ...
//   read_format (GROUP) nr, time_enabled?, time_running?,
//               { value, id?, lost? }[nr]
//   branch_stack nr, hw_idx? (PERF_SAMPLE_BRANCH_HW_INDEX),
//               { from, to, flags }[nr], counters[nr]? — newest first
//   MMAP2       pid,tid addr len pgoff {maj,min,ino,ino_gen | build id}
//               prot,flags filename[] sample_id
//   MMAP        pid,tid addr len pgoff filename[] sample_id
//   COMM        pid,tid comm[] sample_id
//   FORK/EXIT   pid,ppid,tid,ptid time sample_id
//   LOST        id lost sample_id;  LOST_SAMPLES lost sample_id
//   THROTTLE/UNTHROTTLE time id stream_id sample_id
// sample_id (with sample_id_all) is the tail pid,tid? time? id? stream_id?
// cpu,res? identifier?, so its size is known from sample_type alone.
//
//===----------------------------------------------------------------------===//
#include "keel/Record/RingBuffer.h"
#include "keel/Profile/PerfData.h"
#include "keel/Profile/PerfSampleFields.h"
#include "keel/Support/Diagnostics.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Endian.h"

#include <algorithm>
#include <cstring>

using namespace llvm;

namespace keel {

namespace {

/// The sample_id trailer of non-sample records.
struct SampleId {
  uint32_t Pid = 0, Tid = 0, CPU = 0;
  uint64_t Time = 0;
};

SampleId readSampleId(ArrayRef<uint8_t> Trailer, uint64_t ST) {
  SampleId Id;
  ByteCursor C(Trailer);
  uint64_t Skip;
  if (ST & PERF_SAMPLE_TID)
    C.u32(Id.Pid), C.u32(Id.Tid);
  if (ST & PERF_SAMPLE_TIME)
    C.u64(Id.Time);
  if (ST & PERF_SAMPLE_ID)
    C.u64(Skip);
  if (ST & PERF_SAMPLE_STREAM_ID)
    C.u64(Skip);
  if (ST & PERF_SAMPLE_CPU) {
    uint32_t Res;
    C.u32(Id.CPU), C.u32(Res);
  }
  return Id;
}

std::string hex(ArrayRef<uint8_t> Bytes) {
  static const char Digits[] = "0123456789abcdef";
  std::string S;
  for (uint8_t B : Bytes) {
    S += Digits[B >> 4];
    S += Digits[B & 15];
  }
  return S;
}

Error truncated(const char *What) {
  return makeError("truncated {0} record in the perf ring buffer", What);
}

} // namespace

RecordLayout RecordLayout::fromGroup(const EventGroup &G) {
  RecordLayout L;
  const perf_event_attr &A = G.Members[0].Attr;
  L.SampleType = A.sample_type;
  L.ReadFormat = A.read_format;
  L.BranchSampleType = A.branch_sample_type;
  L.SampleIdAll = A.sample_id_all;
  L.EventName = G.Members[0].Event.Name;
  return L;
}

Error RecordParser::parseRing(ArrayRef<uint8_t> Ring, uint64_t Tail,
                              uint64_t Head) {
  const uint64_t Size = Ring.size();
  if (Size == 0 || (Size & (Size - 1)))
    return makeError("perf ring buffer size {0} is not a power of two", Size);
  if (Head < Tail || Head - Tail > Size)
    return makeError("perf ring buffer positions out of range (tail {0}, "
                     "head {1}, size {2})",
                     Tail, Head, Size);
  std::vector<uint8_t> Split; // a record that wraps, made contiguous
  while (Tail < Head) {
    uint64_t Off = Tail & (Size - 1);
    // The kernel keeps records 8-byte aligned, so its headers never wrap;
    // but the positions and sizes are data (a corrupt or hostile ring): a
    // header that is cut off is an error, one that wraps is read in pieces.
    if (Head - Tail < sizeof(perf_event_header))
      return makeError("truncated perf record header at ring offset {0}",
                       Tail);
    perf_event_header H;
    uint8_t HeaderBytes[sizeof(H)];
    for (size_t I = 0; I < sizeof(H); ++I)
      HeaderBytes[I] = Ring[(Off + I) & (Size - 1)];
    std::memcpy(&H, HeaderBytes, sizeof(H));
    if (H.size < sizeof(H) || H.size > Head - Tail)
      return makeError("bad perf record size {0} at ring offset {1}", H.size,
                       Tail);
    ArrayRef<uint8_t> Rec;
    if (Off + H.size <= Size) {
      Rec = Ring.slice(Off, H.size);
    } else {
      size_t First = Size - Off;
      Split.assign(Ring.begin() + Off, Ring.end());
      Split.insert(Split.end(), Ring.begin(), Ring.begin() + (H.size - First));
      Rec = Split;
    }
    if (Error E = parseRecord(Rec))
      return E;
    Tail += H.size;
  }
  return Error::success();
}

Error drainMappedRing(void *Base, size_t Length, size_t PageSize,
                      RecordParser &Parser) {
  auto *M = static_cast<perf_event_mmap_page *>(Base);
  // data_offset/data_size exist since Linux 4.1; before, the data pages
  // follow the first page.
  uint64_t Off = M->data_offset ? M->data_offset : PageSize;
  uint64_t Size = M->data_size ? M->data_size : Length - PageSize;
  if (Off + Size > Length)
    return makeError("perf ring buffer layout out of range (offset {0}, size "
                     "{1}, mapped {2})",
                     Off, Size, Length);
  uint64_t Head = __atomic_load_n(&M->data_head, __ATOMIC_ACQUIRE);
  uint64_t Tail = M->data_tail;
  Error E = Parser.parseRing(
      ArrayRef<uint8_t>(static_cast<const uint8_t *>(Base) + Off, Size), Tail,
      Head);
  __atomic_store_n(&M->data_tail, Head, __ATOMIC_RELEASE);
  return E;
}

Error RecordParser::parse(ArrayRef<uint8_t> Bytes) {
  size_t Pos = 0;
  while (Pos < Bytes.size()) {
    perf_event_header H;
    if (Bytes.size() - Pos < sizeof(H))
      return makeError("truncated perf record header at offset {0}", Pos);
    std::memcpy(&H, Bytes.data() + Pos, sizeof(H));
    if (H.size < sizeof(H) || H.size > Bytes.size() - Pos)
      return makeError("bad perf record size {0} at offset {1}", H.size, Pos);
    if (Error E = parseRecord(Bytes.slice(Pos, H.size)))
      return E;
    Pos += H.size;
  }
  return Error::success();
}

Error RecordParser::parseRecord(ArrayRef<uint8_t> Record) {
  perf_event_header H;
  if (Record.size() < sizeof(H))
    return truncated("header");
  std::memcpy(&H, Record.data(), sizeof(H));
  ArrayRef<uint8_t> Body = Record.drop_front(sizeof(H));
  if (H.type == PERF_RECORD_SAMPLE)
    return parseSample(Body, H.misc);

  size_t IdSize = Layout.SampleIdAll ? sampleIdTrailerSize(Layout.SampleType) : 0;
  if (IdSize > Body.size())
    return truncated("sample_id");
  SampleId Id = readSampleId(Body.take_back(IdSize), Layout.SampleType);
  size_t End = Body.size() - IdSize; // where the record's own fields stop
  ByteCursor C(Body);

  switch (H.type) {
  case PERF_RECORD_MMAP:
  case PERF_RECORD_MMAP2: {
    Mapping M;
    M.Time = Id.Time;
    if (!C.u32(M.Pid) || !C.u32(M.Tid) || !C.u64(M.Start) ||
        !C.u64(M.Length) || !C.u64(M.PgOff))
      return truncated("MMAP");
    if (H.type == PERF_RECORD_MMAP2) {
      if (H.misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
        ArrayRef<uint8_t> B = C.bytes(24);
        if (B.size() < 24)
          return truncated("MMAP2");
        M.BuildID = hex(B.slice(4, std::min<uint8_t>(B[0], 20)));
      }
      uint32_t Flags;
      if (!C.skip(24) || !C.u32(M.Prot) || !C.u32(Flags))
        return truncated("MMAP2");
    } else {
      // Old MMAP records are sent for executable mappings only (unless
      // PERF_RECORD_MISC_MMAP_DATA).
      M.Prot = (H.misc & PERF_RECORD_MISC_MMAP_DATA) ? 1 : 5;
    }
    StringRef Path;
    if (!C.str(Path, End))
      return truncated("MMAP");
    M.Path = Path.str();
    Out.Mappings.push_back(std::move(M));
    return Error::success();
  }
  case PERF_RECORD_COMM: {
    TaskEvent T;
    T.Kind = TaskEvent::Comm;
    T.Time = Id.Time;
    T.Exec = H.misc & PERF_RECORD_MISC_COMM_EXEC;
    StringRef Name;
    if (!C.u32(T.Pid) || !C.u32(T.Tid) || !C.str(Name, End))
      return truncated("COMM");
    T.Name = Name.str();
    Out.Tasks.push_back(std::move(T));
    return Error::success();
  }
  case PERF_RECORD_FORK:
  case PERF_RECORD_EXIT: {
    TaskEvent T;
    T.Kind = H.type == PERF_RECORD_FORK ? TaskEvent::Fork : TaskEvent::Exit;
    if (!C.u32(T.Pid) || !C.u32(T.PPid) || !C.u32(T.Tid) || !C.u32(T.PTid) ||
        !C.u64(T.Time))
      return truncated(H.type == PERF_RECORD_FORK ? "FORK" : "EXIT");
    Out.Tasks.push_back(std::move(T));
    return Error::success();
  }
  case PERF_RECORD_LOST: {
    uint64_t IdField, Lost;
    if (!C.u64(IdField) || !C.u64(Lost))
      return truncated("LOST");
    ++Out.Stats.LostRecords;
    Out.Stats.LostEvents += Lost;
    return Error::success();
  }
  case PERF_RECORD_LOST_SAMPLES: {
    uint64_t Lost;
    if (!C.u64(Lost))
      return truncated("LOST_SAMPLES");
    Out.Stats.LostSamples += Lost;
    return Error::success();
  }
  case PERF_RECORD_THROTTLE:
  case PERF_RECORD_UNTHROTTLE:
    if (Body.size() < 24)
      return truncated("THROTTLE");
    ++(H.type == PERF_RECORD_THROTTLE ? Out.Stats.Throttles
                                      : Out.Stats.Unthrottles);
    return Error::success();
  default:
    ++Out.Stats.Unknown;
    return Error::success();
  }
}

Error RecordParser::parseSample(ArrayRef<uint8_t> Body, uint16_t Misc) {
  const uint64_t ST = Layout.SampleType;
  RecordedSample S;
  RawSample &R = S.Sample;
  R.Event = Layout.EventName;
  ByteCursor C(Body);
  uint64_t Skip;
  SampleFixedFields F;
  bool OK = readSampleFixedFields(C, ST, F);
  R.IP = F.IP, R.Pid = F.Pid, R.Tid = F.Tid, R.Time = F.Time;
  S.Addr = F.Addr, S.CPU = F.CPU, S.Period = F.Period;
  if (!OK)
    return truncated("SAMPLE");

  // Group read: (id, running total) per counter.
  SmallVector<std::pair<uint64_t, uint64_t>, 4> Values;
  if (ST & PERF_SAMPLE_READ) {
    const uint64_t RF = Layout.ReadFormat;
    uint64_t N = 1;
    if ((RF & PERF_FORMAT_GROUP) && !C.u64(N))
      return truncated("SAMPLE read");
    // Non-group reads put the value before the times; group reads after.
    uint64_t First = 0;
    if (!(RF & PERF_FORMAT_GROUP) && !C.u64(First))
      return truncated("SAMPLE read");
    if (RF & PERF_FORMAT_TOTAL_TIME_ENABLED)
      OK &= C.u64(Skip);
    if (RF & PERF_FORMAT_TOTAL_TIME_RUNNING)
      OK &= C.u64(Skip);
    if (N > C.size() / 8)
      return truncated("SAMPLE read");
    for (uint64_t I = 0; I < N && OK; ++I) {
      uint64_t V = First, Id = 0;
      if (RF & PERF_FORMAT_GROUP)
        OK &= C.u64(V);
      if (RF & PERF_FORMAT_ID)
        OK &= C.u64(Id);
      if (RF & PERF_FORMAT_LOST)
        OK &= C.u64(Skip);
      Values.push_back({Id, V});
    }
    if (!OK)
      return truncated("SAMPLE read");
  }
  if (ST & PERF_SAMPLE_CALLCHAIN) {
    uint64_t N;
    if (!C.u64(N) || N > C.size() / 8 || !C.skip(N * 8))
      return truncated("SAMPLE callchain");
  }
  if (ST & PERF_SAMPLE_RAW) {
    uint32_t N;
    if (!C.u32(N) || !C.skip(N))
      return truncated("SAMPLE raw");
  }
  if (ST & PERF_SAMPLE_BRANCH_STACK) {
    uint64_t N;
    if (!C.u64(N) || N > C.size() / 24)
      return truncated("SAMPLE branch stack");
    if ((Layout.BranchSampleType & PERF_SAMPLE_BRANCH_HW_INDEX) &&
        !C.u64(Skip))
      return truncated("SAMPLE branch stack");
    R.Stack.reserve(N);
    for (uint64_t I = 0; I < N; ++I) {
      LBREntry E;
      uint64_t F;
      if (!C.u64(E.From) || !C.u64(E.To) || !C.u64(F))
        return truncated("SAMPLE branch stack");
      // struct perf_branch_entry bit-fields, low bit first.
      E.Mispred = F & 1;
      E.Predicted = (F >> 1) & 1;
      E.InTx = (F >> 2) & 1;
      E.Abort = (F >> 3) & 1;
      E.Cycles = (F >> 4) & 0xffff;
      E.Type = perfdata::branchTypeName((F >> 20) & 0xf, (F >> 26) & 0xf).str();
      R.Stack.push_back(std::move(E));
    }
    // Branch counters (PERF_SAMPLE_BRANCH_COUNTERS) are never requested.
  }
  // Registers and user stacks are never requested; they would come here,
  // before the memory fields, with sizes this layout does not know.
  const uint64_t MemFields = PERF_SAMPLE_WEIGHT_TYPE | PERF_SAMPLE_DATA_SRC;
  if ((ST & MemFields) &&
      (ST & (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)))
    return makeError("cannot parse samples with user registers or stacks "
                     "before the weight and data source");
  if (ST & PERF_SAMPLE_WEIGHT_TYPE) {
    // PERF_SAMPLE_WEIGHT: one u64; WEIGHT_STRUCT: u32 var1 (the access
    // latency), u16 var2, u16 var3 in the same 8 bytes.
    uint64_t W;
    if (!C.u64(W))
      return truncated("SAMPLE weight");
    S.Weight = (ST & PERF_SAMPLE_WEIGHT_STRUCT) ? (W & 0xffffffffu) : W;
  }
  if ((ST & PERF_SAMPLE_DATA_SRC) && !C.u64(S.DataSrc))
    return truncated("SAMPLE data_src");
  addSample(std::move(S), Values);
  return Error::success();
}

void RecordParser::addSample(
    RecordedSample S, ArrayRef<std::pair<uint64_t, uint64_t>> GroupValues) {
  if (!GroupValues.empty()) {
    uint64_t Cycles = 0, Instructions = 0;
    bool HaveCycles = false, HaveInstructions = false;
    for (auto [Id, Value] : GroupValues) {
      auto It = Layout.Roles.find(Id);
      if (It == Layout.Roles.end())
        continue;
      if (It->second == CounterRole::Cycles)
        Cycles = Value, HaveCycles = true;
      else if (It->second == CounterRole::Instructions)
        Instructions = Value, HaveInstructions = true;
    }
    // The first id of a group read is the leader's: one key per group
    // instance (per CPU) and thread.
    auto &Prev = Last[{S.Sample.Tid, GroupValues.front().first}];
    auto Delta = [](uint64_t Now, uint64_t Before) {
      return Now >= Before ? Now - Before : 0;
    };
    if (HaveCycles)
      S.Sample.Cycles = Delta(Cycles, Prev.first);
    if (HaveInstructions)
      S.Sample.Instructions = Delta(Instructions, Prev.second);
    Prev = {Cycles, Instructions};
  }
  Out.Samples.push_back(std::move(S));
}

PerfRecording RecordParser::take() {
  llvm::stable_sort(Out.Samples,
                    [](const RecordedSample &A, const RecordedSample &B) {
                      return A.Sample.Time < B.Sample.Time;
                    });
  Last.clear();
  return std::move(Out);
}

const Mapping *PerfRecording::mappingAt(uint32_t Pid, uint64_t Addr,
                                    uint64_t Time) const {
  // A forked child inherits its parent's mappings without MMAP records, so
  // look in the ancestors too (a few levels; fork loops cannot occur).
  for (unsigned Depth = 0; Depth < 16; ++Depth) {
    const Mapping *Best = nullptr;
    for (const Mapping &M : Mappings)
      if (M.Pid == Pid && M.contains(Addr) && (!Time || M.Time <= Time) &&
          (!Best || M.Time >= Best->Time))
        Best = &M;
    if (Best)
      return Best;
    auto Parent = llvm::find_if(Tasks, [&](const TaskEvent &T) {
      return T.Kind == TaskEvent::Fork && T.Pid == Pid && T.PPid != Pid;
    });
    if (Parent == Tasks.end())
      return nullptr;
    Pid = Parent->PPid;
  }
  return nullptr;
}

} // namespace keel
