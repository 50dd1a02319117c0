//===- PerfDataFile.cpp - PerfRecording <-> perf.data ---------------------===//
//
// The writer lays the file out as perf record does (file mode):
//   header (104 bytes) | attrs: perf_event_attr (128 bytes, VER7) + ids
//   section, per event | the ids | data: records in time order |
//   feature section table | HEADER_BUILD_ID | HEADER_EVENT_DESC
// Every event samples IP, TID, TIME, ID, CPU, PERIOD (and BRANCH_STACK,
// READ, CALLCHAIN when there is something to put there) with
// sample_id_all, so perf can tell the events of a group apart in every
// record. Pipe mode writes
// the 16-byte pipe header and the attrs and build ids as records. With
// Compress, the data section holds PERF_RECORD_COMPRESSED records instead,
// as perf record -z writes them: the records, cut into chunks of
// CompressChunk bytes, go through one zstd stream that is flushed at the
// end of every chunk, each chunk's output one COMPRESSED record (so records
// straddle them), and HEADER_COMPRESSED says how.
//
// The reader is a visitor over keel/Profile/PerfData.h.
//
//===----------------------------------------------------------------------===//
#include "keel/Record/PerfDataFile.h"

#include "keel/Profile/PerfData.h"
#include "keel/Record/EventGroup.h"
#include "keel/Support/Diagnostics.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/Format.h"

#include <linux/perf_event.h>

#include <array>
#include <cstring>
#include <map>
#include <zstd.h>

using namespace llvm;

namespace keel {

namespace {

//===-- Writing -----------------------------------------------------------===//

/// Little-endian bytes, appended.
class Bytes {
public:
  void u64(uint64_t V) { put(V); }
  void u32(uint32_t V) { put(V); }
  void u16(uint16_t V) { put(V); }
  void u8(uint8_t V) { B.push_back(char(V)); }
  void raw(const void *P, size_t N) { B.append(static_cast<const char *>(P), N); }
  void zeros(size_t N) { B.append(N, '\0'); }
  /// A NUL-terminated string padded with zeros to a multiple of \p Align.
  void str(StringRef S, size_t Align) {
    size_t N = alignTo(S.size() + 1, Align);
    B.append(S.data(), S.size());
    zeros(N - S.size());
  }
  size_t size() const { return B.size(); }
  void patch16(size_t At, uint16_t V) {
    support::endian::write16le(&B[At], V);
  }
  void patch64(size_t At, uint64_t V) {
    support::endian::write64le(&B[At], V);
  }
  const std::string &str() const { return B; }

private:
  template <typename T> void put(T V) {
    char Tmp[sizeof(T)];
    support::endian::write<T, llvm::endianness::little>(Tmp, V);
    B.append(Tmp, sizeof(T));
  }
  std::string B;
};

/// A generic event name -> (type, config); anything else is a raw event
/// whose name only HEADER_EVENT_DESC carries.
std::pair<uint32_t, uint64_t> genericEvent(StringRef Name) {
  StringRef N = Name.split(':').first;
  if (N == "cycles" || N == "cpu-cycles")
    return {PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES};
  if (N == "instructions")
    return {PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS};
  if (N == "branches" || N == "branch-instructions")
    return {PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS};
  if (N == "branch-misses")
    return {PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES};
  if (N == "cpu-clock")
    return {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK};
  if (N == "task-clock")
    return {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK};
  return {PERF_TYPE_RAW, 0};
}

/// perf's PERF_BR_* number of a branch type name (0: unknown).
unsigned branchTypeNumber(StringRef Name) {
  if (Name.empty())
    return 0;
  for (unsigned T = 1; T < 15; ++T)
    if (perfdata::branchTypeName(T, 0) == Name)
      return T;
  return 0;
}

struct WEvent {
  std::string Name;
  perf_event_attr Attr;
  enum { Sampler, Cycles, Instructions } Role;
};

void buildIdBytes(StringRef Hex, uint8_t Out[24], unsigned &Len) {
  std::memset(Out, 0, 24);
  std::string Raw = fromHex(Hex);
  Len = std::min<size_t>(Raw.size(), 20);
  std::memcpy(Out, Raw.data(), Len);
}

class Writer {
public:
  Writer(const PerfRecording &R, const PerfDataWriteOptions &Opts)
      : R(R), Opts(Opts) {}
  Error write(raw_ostream &OS);

private:
  /// The events, the options checked, one group instance per process.
  Error prepare();
  Error events();
  /// One mapping per path that has a build id.
  std::vector<const Mapping *> buildIdMappings() const;
  /// Pipe mode: the pipe header, the attrs and build ids as records, data.
  Bytes pipeFile(ArrayRef<const Mapping *> WithIds);
  /// File mode: header, attrs, ids, data (compressed with
  /// Opts.Compress), feature sections.
  Expected<Bytes> file(ArrayRef<const Mapping *> WithIds);
  void fileHeader(Bytes &Out, uint64_t DataSize, bool WithIds) const;
  void featureSections(Bytes &Out, ArrayRef<const Mapping *> WithIds,
                       uint32_t Ratio);
  Bytes eventDescSection() const;
  void trailer(Bytes &B, uint32_t Pid, uint32_t Tid, uint64_t Time,
               uint32_t CPU);
  void header(Bytes &B, uint32_t Type, uint16_t Misc, size_t &SizeAt);
  void finish(Bytes &B, size_t Start, size_t SizeAt);
  /// The data section: every record in time order, then the losses.
  void data(Bytes &B);
  struct TimedItem {
    uint64_t Time;
    enum { TaskItem, MappingItem, SampleItem } Kind;
    size_t Index;
  };
  std::vector<TimedItem> timeOrder() const;
  void taskRecord(Bytes &B, const TaskEvent &T);
  void mmapRecord(Bytes &B, const Mapping &M);
  void sampleRecord(Bytes &B, const RecordedSample &RS,
                    std::array<uint64_t, 3> &Totals);
  /// PERF_SAMPLE_READ of a group: each event's running total for the
  /// sample's thread, in \p Totals.
  void groupRead(Bytes &B, const RecordedSample &RS, unsigned Inst,
                 std::array<uint64_t, 3> &Totals);
  void branchStack(Bytes &B, const RawSample &S);
  /// LOST, LOST_SAMPLES, THROTTLE and UNTHROTTLE records at time \p End.
  void lossRecords(Bytes &B, uint64_t End);
  void buildIdEntry(Bytes &B, const Mapping &M, uint16_t Type);
  Expected<Bytes> compress(const Bytes &Data) const;
  /// Uncompressed bytes per COMPRESSED record: their compressed form
  /// always fits a record (ZSTD_compressBound(32 KiB) < 64 KiB - 8).
  static constexpr size_t CompressChunk = 32 << 10;

  const PerfRecording &R;
  const PerfDataWriteOptions &Opts;
  std::vector<WEvent> Events;
  /// One instance of the group per process (as perf record has one per
  /// CPU), so that every instance has its own ids: perf tracks a group
  /// read's counts per id.
  std::map<uint32_t, unsigned> Instance;
  unsigned NumInstances = 1;
  uint64_t id(size_t Event, unsigned Inst) const {
    return 1 + uint64_t(Inst) * Events.size() + Event;
  }
  unsigned instanceOf(uint32_t Pid) const {
    auto It = Instance.find(Pid);
    return It == Instance.end() ? 0 : It->second;
  }
  uint64_t SampleType = 0, ReadFormat = 0;
  bool Group = false;
};

Error Writer::events() {
  const RecordInfo &I = R.Info;
  uint64_t Filter = 0;
  bool AnyStack = llvm::any_of(
      R.Samples, [](const RecordedSample &S) { return !S.Sample.Stack.empty(); });
  if (!I.LBR.empty() && I.LBR != "none") {
    auto F = parseBranchFilter(I.LBR, /*Kernel=*/false);
    if (!F)
      return F.takeError();
    Filter = *F;
  } else if (AnyStack) {
    Filter = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER;
  }
  if (Filter && Opts.HwIndex)
    Filter |= PERF_SAMPLE_BRANCH_HW_INDEX;
  // Counters: only when the samples carry them.
  bool HaveCycles = false, HaveInstructions = false;
  for (const RecordedSample &S : R.Samples) {
    HaveCycles |= S.Sample.Cycles != 0;
    HaveInstructions |= S.Sample.Instructions != 0;
  }
  std::string Sampling = I.Event.empty() ? "cycles" : I.Event;
  std::string CyclesName = I.CyclesEvent.empty() ? "cycles" : I.CyclesEvent;
  std::string InstrName =
      I.InstructionsEvent.empty() ? "instructions" : I.InstructionsEvent;
  Group = Opts.GroupRead && (HaveCycles || HaveInstructions);
  SampleType = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
               PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
  if (Filter)
    SampleType |= PERF_SAMPLE_BRANCH_STACK;
  if (llvm::any_of(R.Samples, [](const RecordedSample &S) {
        return !S.CallChain.empty();
      }))
    SampleType |= PERF_SAMPLE_CALLCHAIN;
  if (Group) {
    SampleType |= PERF_SAMPLE_READ;
    ReadFormat = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
  }
  auto Make = [&](StringRef Name, bool Leader) {
    perf_event_attr A;
    std::memset(&A, 0, sizeof(A));
    A.size = sizeof(A);
    auto [Type, Config] = genericEvent(Name);
    A.type = Type;
    A.config = Config;
    A.sample_type = SampleType;
    A.read_format = ReadFormat;
    A.branch_sample_type = Filter;
    A.sample_id_all = 1;
    A.exclude_kernel = !(Filter & PERF_SAMPLE_BRANCH_KERNEL);
    A.exclude_hv = 1;
    A.inherit = 1;
    A.disabled = Leader;
    A.enable_on_exec = Leader;
    if (Leader) {
      A.mmap = A.comm = A.mmap2 = A.task = 1;
      A.comm_exec = 1;
      if (I.Freq) {
        A.freq = 1;
        A.sample_freq = I.Freq;
      } else {
        A.sample_period = I.Period ? I.Period : 1;
      }
    }
    return A;
  };
  auto SameCounter = [](StringRef A, StringRef B) {
    auto EA = genericEvent(A), EB = genericEvent(B);
    return EA.first != PERF_TYPE_RAW ? EA == EB : A == B;
  };
  Events.push_back({Sampling, Make(Sampling, true), WEvent::Sampler});
  if (Group) {
    if (HaveCycles && !SameCounter(CyclesName, Sampling))
      Events.push_back({CyclesName, Make(CyclesName, false), WEvent::Cycles});
    if (HaveInstructions && !SameCounter(InstrName, Sampling))
      Events.push_back(
          {InstrName, Make(InstrName, false), WEvent::Instructions});
  }
  return Error::success();
}

void Writer::header(Bytes &B, uint32_t Type, uint16_t Misc, size_t &SizeAt) {
  B.u32(Type);
  B.u16(Misc);
  SizeAt = B.size();
  B.u16(0);
}

void Writer::finish(Bytes &B, size_t Start, size_t SizeAt) {
  B.patch16(SizeAt, uint16_t(B.size() - Start));
}

void Writer::trailer(Bytes &B, uint32_t Pid, uint32_t Tid, uint64_t Time,
                     uint32_t CPU) {
  // sample_id: pid,tid time id cpu,res (the sampler's id).
  B.u32(Pid), B.u32(Tid);
  B.u64(Time);
  B.u64(id(0, instanceOf(Pid)));
  B.u32(CPU), B.u32(0);
}

void Writer::buildIdEntry(Bytes &B, const Mapping &M, uint16_t Type) {
  // struct build_id_event: header, pid, build_id[24] (20 bytes and the
  // size at [20] with PERF_RECORD_MISC_BUILD_ID_SIZE), filename.
  size_t Start = B.size(), SizeAt;
  header(B, Type, PERF_RECORD_MISC_USER | (1u << 15), SizeAt);
  B.u32(uint32_t(-1)); // the host machine
  uint8_t Id[24];
  unsigned Len;
  buildIdBytes(M.BuildID, Id, Len);
  Id[20] = uint8_t(Len);
  B.raw(Id, 24);
  B.str(M.Path, 64);
  finish(B, Start, SizeAt);
}

std::vector<Writer::TimedItem> Writer::timeOrder() const {
  // At equal times tasks, then mappings, then samples, as the kernel emits
  // them for a new process.
  std::vector<TimedItem> Items;
  for (size_t I = 0; I < R.Tasks.size(); ++I)
    Items.push_back({R.Tasks[I].Time, TimedItem::TaskItem, I});
  for (size_t I = 0; I < R.Mappings.size(); ++I)
    Items.push_back({R.Mappings[I].Time, TimedItem::MappingItem, I});
  for (size_t I = 0; I < R.Samples.size(); ++I)
    Items.push_back({R.Samples[I].Sample.Time, TimedItem::SampleItem, I});
  llvm::stable_sort(Items, [](const TimedItem &A, const TimedItem &B) {
    return std::tie(A.Time, A.Kind) < std::tie(B.Time, B.Kind);
  });
  return Items;
}

void Writer::taskRecord(Bytes &B, const TaskEvent &T) {
  size_t Start = B.size(), SizeAt;
  if (T.Kind == TaskEvent::Comm) {
    header(B, PERF_RECORD_COMM, T.Exec ? PERF_RECORD_MISC_COMM_EXEC : 0,
           SizeAt);
    B.u32(T.Pid), B.u32(T.Tid);
    B.str(T.Name, 8);
    trailer(B, T.Pid, T.Tid, T.Time, 0);
  } else {
    header(B, T.Kind == TaskEvent::Fork ? PERF_RECORD_FORK
                                        : PERF_RECORD_EXIT,
           0, SizeAt);
    B.u32(T.Pid), B.u32(T.PPid), B.u32(T.Tid), B.u32(T.PTid);
    B.u64(T.Time);
    trailer(B, T.Pid, T.Tid, T.Time, 0);
  }
  finish(B, Start, SizeAt);
}

void Writer::mmapRecord(Bytes &B, const Mapping &M) {
  size_t Start = B.size(), SizeAt;
  bool WithId = !M.BuildID.empty();
  header(B, PERF_RECORD_MMAP2,
         PERF_RECORD_MISC_USER | (WithId ? PERF_RECORD_MISC_MMAP_BUILD_ID
                                         : 0),
         SizeAt);
  B.u32(M.Pid), B.u32(M.Tid);
  B.u64(M.Start), B.u64(M.Length), B.u64(M.PgOff);
  if (WithId) {
    uint8_t Id[24];
    unsigned Len;
    buildIdBytes(M.BuildID, Id, Len);
    B.u8(uint8_t(Len));
    B.u8(0), B.u16(0);
    B.raw(Id, 20);
  } else {
    B.zeros(24); // maj, min, ino, ino_generation
  }
  B.u32(M.Prot ? M.Prot : 5);
  B.u32(2); // MAP_PRIVATE
  B.str(M.Path, 8);
  trailer(B, M.Pid, M.Tid, M.Time, 0);
  finish(B, Start, SizeAt);
}

void Writer::groupRead(Bytes &B, const RecordedSample &RS, unsigned Inst,
                       std::array<uint64_t, 3> &Totals) {
  const RawSample &S = RS.Sample;
  B.u64(Events.size());
  for (size_t EI = 0; EI < Events.size(); ++EI) {
    const WEvent &E = Events[EI];
    uint64_t Delta;
    unsigned Slot;
    StringRef Name = E.Name;
    if (E.Role == WEvent::Cycles ||
        (E.Role == WEvent::Sampler && genericEvent(Name).second ==
                                          PERF_COUNT_HW_CPU_CYCLES &&
         genericEvent(Name).first == PERF_TYPE_HARDWARE))
      Delta = S.Cycles, Slot = 1;
    else if (E.Role == WEvent::Instructions ||
             (E.Role == WEvent::Sampler &&
              genericEvent(Name) ==
                  std::make_pair(uint32_t(PERF_TYPE_HARDWARE),
                                 uint64_t(PERF_COUNT_HW_INSTRUCTIONS))))
      Delta = S.Instructions, Slot = 2;
    else
      Delta = RS.Period, Slot = 0;
    Totals[Slot] += Delta;
    B.u64(Totals[Slot]);
    B.u64(id(EI, Inst));
  }
}

void Writer::branchStack(Bytes &B, const RawSample &S) {
  B.u64(S.Stack.size());
  if (Events[0].Attr.branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
    B.u64(S.Stack.empty() ? uint64_t(-1) : S.Stack.size() - 1);
  for (const LBREntry &E : S.Stack) {
    B.u64(E.From), B.u64(E.To);
    uint64_t F = uint64_t(E.Mispred) | uint64_t(E.Predicted) << 1 |
                 uint64_t(E.InTx) << 2 | uint64_t(E.Abort) << 3 |
                 uint64_t(std::min<uint32_t>(E.Cycles, 0xffff)) << 4 |
                 uint64_t(branchTypeNumber(E.Type)) << 20;
    B.u64(F);
  }
}

void Writer::sampleRecord(Bytes &B, const RecordedSample &RS,
                          std::array<uint64_t, 3> &Totals) {
  size_t Start = B.size(), SizeAt;
  const RawSample &S = RS.Sample;
  header(B, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, SizeAt);
  B.u64(S.IP);
  B.u32(S.Pid), B.u32(S.Tid);
  B.u64(S.Time);
  const unsigned Inst = instanceOf(S.Pid);
  B.u64(id(0, Inst));
  B.u32(RS.CPU), B.u32(0);
  B.u64(RS.Period ? RS.Period : (R.Info.Period ? R.Info.Period : 1));
  if (Group)
    groupRead(B, RS, Inst, Totals);
  if (SampleType & PERF_SAMPLE_CALLCHAIN) {
    B.u64(RS.CallChain.size());
    for (uint64_t A : RS.CallChain)
      B.u64(A);
  }
  if (SampleType & PERF_SAMPLE_BRANCH_STACK)
    branchStack(B, S);
  finish(B, Start, SizeAt);
}

void Writer::lossRecords(Bytes &B, uint64_t End) {
  const RecordStats &St = R.Stats;
  for (uint64_t I = 0; I < St.LostRecords; ++I) {
    size_t Start = B.size(), SizeAt;
    header(B, PERF_RECORD_LOST, 0, SizeAt);
    B.u64(id(0, 0));
    B.u64(I == 0 ? St.LostEvents : 0);
    trailer(B, 0, 0, End, 0);
    finish(B, Start, SizeAt);
  }
  if (St.LostSamples) {
    size_t Start = B.size(), SizeAt;
    header(B, PERF_RECORD_LOST_SAMPLES, 0, SizeAt);
    B.u64(St.LostSamples);
    trailer(B, 0, 0, End, 0);
    finish(B, Start, SizeAt);
  }
  for (uint64_t I = 0; I < St.Throttles + St.Unthrottles; ++I) {
    size_t Start = B.size(), SizeAt;
    header(B, I < St.Throttles ? PERF_RECORD_THROTTLE : PERF_RECORD_UNTHROTTLE,
           0, SizeAt);
    B.u64(End), B.u64(id(0, 0)), B.u64(id(0, 0));
    trailer(B, 0, 0, End, 0);
    finish(B, Start, SizeAt);
  }
}

void Writer::data(Bytes &B) {
  std::vector<TimedItem> Items = timeOrder();
  // Running totals of each counter per thread (what a group read returns).
  std::map<uint32_t, std::array<uint64_t, 3>> Totals;
  for (const TimedItem &It : Items) {
    if (It.Kind == TimedItem::TaskItem)
      taskRecord(B, R.Tasks[It.Index]);
    else if (It.Kind == TimedItem::MappingItem)
      mmapRecord(B, R.Mappings[It.Index]);
    else
      sampleRecord(B, R.Samples[It.Index],
                   Totals[R.Samples[It.Index].Sample.Tid]);
  }
  // What the kernel lost or throttled, after everything else.
  lossRecords(B, Items.empty() ? 0 : Items.back().Time);
}

Expected<Bytes> Writer::compress(const Bytes &Data) const {
  std::unique_ptr<ZSTD_CStream, size_t (*)(ZSTD_CStream *)> C(
      ZSTD_createCStream(), ZSTD_freeCStream);
  auto Fail = [](size_t R) {
    return makeError("zstd: {0}", ZSTD_getErrorName(R));
  };
  if (!C)
    return makeError("zstd: cannot create a compression stream");
  size_t R = ZSTD_CCtx_setParameter(C.get(), ZSTD_c_compressionLevel,
                                    Opts.Compress);
  if (ZSTD_isError(R))
    return Fail(R);
  const std::string &In = Data.str();
  // The whole input is known: zstd sizes its window and tables to it
  // rather than to an unbounded stream (level 22 would take 700 MB for a
  // file of kilobytes). The size is not written in the frame header
  // (perf's stream has none), and the frame is never ended, as perf's.
  R = ZSTD_CCtx_setParameter(C.get(), ZSTD_c_contentSizeFlag, 0);
  if (!ZSTD_isError(R))
    R = ZSTD_CCtx_setPledgedSrcSize(C.get(), In.size());
  if (ZSTD_isError(R))
    return Fail(R);
  Bytes Out;
  std::string Buf(ZSTD_compressBound(CompressChunk), '\0');
  for (size_t At = 0; At < In.size(); At += CompressChunk) {
    ZSTD_inBuffer I{In.data() + At, std::min(CompressChunk, In.size() - At),
                    0};
    ZSTD_outBuffer O{Buf.data(), Buf.size(), 0};
    do {
      R = ZSTD_compressStream2(C.get(), &O, &I, ZSTD_e_flush);
      if (ZSTD_isError(R))
        return Fail(R);
    } while (R && O.pos < O.size);
    if (R || O.pos > 0xffff - 8)
      return makeError("zstd: a chunk of {0} bytes did not fit one record",
                       CompressChunk);
    Out.u32(perfdata::RecCompressed), Out.u16(0), Out.u16(8 + O.pos);
    Out.raw(Buf.data(), O.pos);
  }
  return Out;
}

Error Writer::prepare() {
  if (Error E = events())
    return E;
  if (Opts.Compress && Opts.Pipe)
    return makeError("perf.data in pipe mode is written uncompressed");
  if (Error E = checkCompressLevel("perf.data compression", Opts.Compress))
    return E;
  for (const RecordedSample &S : R.Samples)
    Instance.try_emplace(S.Sample.Pid, 0);
  NumInstances = 0;
  for (auto &[Pid, Inst] : Instance)
    Inst = NumInstances++;
  NumInstances = std::max(NumInstances, 1u);
  return Error::success();
}

std::vector<const Mapping *> Writer::buildIdMappings() const {
  std::vector<const Mapping *> WithIds;
  for (const Mapping &M : R.Mappings)
    if (!M.BuildID.empty() &&
        llvm::none_of(WithIds,
                      [&](const Mapping *W) { return W->Path == M.Path; }))
      WithIds.push_back(&M);
  return WithIds;
}

Bytes Writer::pipeFile(ArrayRef<const Mapping *> WithIds) {
  Bytes Out;
  Out.u64(perfdata::Magic);
  Out.u64(perfdata::PipeHeaderSize);
  for (size_t EI = 0; EI < Events.size(); ++EI) {
    size_t Start = Out.size(), SizeAt;
    header(Out, perfdata::RecHeaderAttr, 0, SizeAt);
    Out.raw(&Events[EI].Attr, sizeof(perf_event_attr));
    for (unsigned K = 0; K < NumInstances; ++K)
      Out.u64(id(EI, K));
    finish(Out, Start, SizeAt);
  }
  for (const Mapping *M : WithIds)
    buildIdEntry(Out, *M, perfdata::RecBuildID);
  data(Out);
  return Out;
}

void Writer::fileHeader(Bytes &Out, uint64_t DataSize, bool WithIds) const {
  const uint64_t AttrEntry = sizeof(perf_event_attr) + 16;
  const uint64_t AttrsOff = perfdata::FileHeaderSize;
  const uint64_t IdsOff = AttrsOff + AttrEntry * Events.size();
  const uint64_t IdsPerEvent = 8 * uint64_t(NumInstances);
  const uint64_t DataOff = IdsOff + IdsPerEvent * Events.size();
  Out.u64(perfdata::Magic);
  Out.u64(perfdata::FileHeaderSize);
  Out.u64(AttrEntry);
  Out.u64(AttrsOff), Out.u64(AttrEntry * Events.size());
  Out.u64(DataOff), Out.u64(DataSize);
  Out.u64(0), Out.u64(0); // event_types
  uint64_t Features[4] = {0, 0, 0, 0};
  Features[0] |= 1ULL << perfdata::FeatEventDesc;
  if (!R.Info.Command.empty())
    Features[0] |= 1ULL << perfdata::FeatCmdline;
  if (WithIds)
    Features[0] |= 1ULL << perfdata::FeatBuildID;
  if (Opts.Compress)
    Features[0] |= 1ULL << perfdata::FeatCompressed;
  for (uint64_t F : Features)
    Out.u64(F);
  for (size_t I = 0; I < Events.size(); ++I) {
    Out.raw(&Events[I].Attr, sizeof(perf_event_attr));
    Out.u64(IdsOff + IdsPerEvent * I), Out.u64(IdsPerEvent);
  }
  for (size_t EI = 0; EI < Events.size(); ++EI)
    for (unsigned K = 0; K < NumInstances; ++K)
      Out.u64(id(EI, K));
}

Bytes Writer::eventDescSection() const {
  Bytes Desc;
  Desc.u32(Events.size());
  Desc.u32(sizeof(perf_event_attr));
  for (size_t EI = 0; EI < Events.size(); ++EI) {
    const WEvent &E = Events[EI];
    Desc.raw(&E.Attr, sizeof(E.Attr));
    Desc.u32(NumInstances);
    Desc.u32(alignTo(E.Name.size() + 1, 64));
    Desc.str(E.Name, 64);
    for (unsigned K = 0; K < NumInstances; ++K)
      Desc.u64(id(EI, K));
  }
  return Desc;
}

void Writer::featureSections(Bytes &Out, ArrayRef<const Mapping *> WithIds,
                             uint32_t Ratio) {
  // Features, in bit order: build ids (2), cmdline (11), event desc (12),
  // compressed (27).
  Bytes BuildIds, Cmdline, Comp;
  // perf's write_compressed: u32 version, type, level, ratio, mmap_len (the
  // most one record decompresses to).
  Comp.u32(0), Comp.u32(perfdata::Compression::Zstd), Comp.u32(Opts.Compress);
  Comp.u32(Ratio), Comp.u32(CompressChunk);
  Cmdline.u32(R.Info.Command.size());
  for (const std::string &A : R.Info.Command) {
    Cmdline.u32(alignTo(A.size() + 1, 64));
    Cmdline.str(A, 64);
  }
  for (const Mapping *M : WithIds)
    buildIdEntry(BuildIds, *M, 0);
  Bytes Desc = eventDescSection();
  std::vector<const Bytes *> Sections;
  if (!WithIds.empty())
    Sections.push_back(&BuildIds);
  if (!R.Info.Command.empty())
    Sections.push_back(&Cmdline);
  Sections.push_back(&Desc);
  if (Opts.Compress)
    Sections.push_back(&Comp);
  uint64_t At = Out.size() + 16 * Sections.size();
  for (const Bytes *S : Sections) {
    Out.u64(At), Out.u64(S->size());
    At += S->size();
  }
  for (const Bytes *S : Sections)
    Out.raw(S->str().data(), S->size());
}

Expected<Bytes> Writer::file(ArrayRef<const Mapping *> WithIds) {
  Bytes Data;
  data(Data);
  uint32_t Ratio = 0;
  if (Opts.Compress) {
    Expected<Bytes> Z = compress(Data);
    if (!Z)
      return Z.takeError();
    Ratio = Z->size() ? uint32_t(Data.size() / Z->size()) : 0;
    Data = std::move(*Z);
  }
  Bytes Out;
  fileHeader(Out, Data.size(), !WithIds.empty());
  Out.raw(Data.str().data(), Data.size());
  featureSections(Out, WithIds, Ratio);
  return Out;
}

Error Writer::write(raw_ostream &OS) {
  if (Error E = prepare())
    return E;
  std::vector<const Mapping *> WithIds = buildIdMappings();
  if (Opts.Pipe) {
    OS << pipeFile(WithIds).str();
    return Error::success();
  }
  Expected<Bytes> Out = file(WithIds);
  if (!Out)
    return Out.takeError();
  OS << Out->str();
  return Error::success();
}

//===-- Reading -----------------------------------------------------------===//

/// The name of an event the file does not name.
std::string eventName(const perfdata::Attr &A) {
  if (!A.Name.empty())
    return A.Name;
  if (A.Type == PERF_TYPE_HARDWARE) {
    static const char *const HW[] = {"cycles",        "instructions",
                                     "cache-references", "cache-misses",
                                     "branches",      "branch-misses"};
    if (A.Config < std::size(HW))
      return HW[A.Config];
  }
  if (A.Type == PERF_TYPE_SOFTWARE && A.Config == PERF_COUNT_SW_CPU_CLOCK)
    return "cpu-clock";
  if (A.Type == PERF_TYPE_SOFTWARE && A.Config == PERF_COUNT_SW_TASK_CLOCK)
    return "task-clock";
  return formatv("raw:{0}:{1:x}", A.Type, A.Config).str();
}

/// 1: cycles, 2: instructions, 0: neither.
int counterRole(const perfdata::Attr &A) {
  std::string N = eventName(A);
  StringRef Name = StringRef(N).split(':').first;
  if ((A.Type == PERF_TYPE_HARDWARE && A.Config == PERF_COUNT_HW_CPU_CYCLES) ||
      Name == "cycles" || Name == "cpu-cycles" ||
      Name.starts_with("CPU_CLK_UNHALTED"))
    return 1;
  if ((A.Type == PERF_TYPE_HARDWARE &&
       A.Config == PERF_COUNT_HW_INSTRUCTIONS) ||
      Name == "instructions" || Name.starts_with("INST_RETIRED"))
    return 2;
  return 0;
}

class RecordingBuilder : public perfdata::Visitor {
public:
  explicit RecordingBuilder(perfdata::File &F) : F(F) {}

  Error mmap(const perfdata::Mmap &M) override {
    Mapping X;
    X.Pid = M.Pid, X.Tid = M.Tid;
    X.Start = M.Start, X.Length = M.Length, X.PgOff = M.PgOff;
    X.Prot = M.IsMmap2 ? M.Prot : (M.executable() ? 5 : 1);
    X.BuildID = M.BuildID.empty() ? F.buildIDOf(M.Path).str() : M.BuildID;
    X.Path = M.Path.str();
    X.Time = M.Time;
    R.Mappings.push_back(std::move(X));
    return Error::success();
  }
  Error comm(const perfdata::Comm &C) override {
    TaskEvent T;
    T.Kind = TaskEvent::Comm;
    T.Pid = C.Pid, T.Tid = C.Tid, T.Time = C.Time;
    T.Exec = C.Exec;
    T.Name = C.Name.str();
    R.Tasks.push_back(std::move(T));
    return Error::success();
  }
  Error task(const perfdata::Task &T) override {
    TaskEvent X;
    X.Kind = T.Fork ? TaskEvent::Fork : TaskEvent::Exit;
    X.Pid = T.Pid, X.PPid = T.PPid, X.Tid = T.Tid, X.PTid = T.PTid;
    X.Time = T.Time;
    R.Tasks.push_back(std::move(X));
    return Error::success();
  }
  void lost(uint64_t Records, uint64_t Events) override {
    R.Stats.LostRecords += Records;
    (Records ? R.Stats.LostEvents : R.Stats.LostSamples) += Events;
  }
  void skipped(uint32_t Type) override {
    if (Type == PERF_RECORD_THROTTLE)
      ++R.Stats.Throttles;
    else if (Type == PERF_RECORD_UNTHROTTLE)
      ++R.Stats.Unthrottles;
  }
  Error sample(const perfdata::Sample &S) override {
    if (!Roles)
      roles();
    RecordedSample X;
    RawSample &Y = X.Sample;
    Y.IP = S.IP;
    Y.Pid = S.Pid, Y.Tid = S.Tid, Y.Time = S.Time;
    Y.Event = eventName(*S.Event);
    X.CPU = S.CPU;
    X.Period = S.Period;
    for (uint64_t I = 0; I < S.NumCallChain; ++I)
      X.CallChain.push_back(S.callChain(I));
    X.Addr = S.Addr;
    Y.Stack.reserve(S.NumBranches);
    for (uint64_t I = 0; I < S.NumBranches; ++I) {
      perfdata::Branch B = S.branch(I);
      LBREntry E;
      E.From = B.From, E.To = B.To;
      E.Mispred = B.mispred(), E.Predicted = B.predicted();
      E.InTx = B.inTx(), E.Abort = B.abort();
      E.Cycles = B.cycles();
      E.Type = perfdata::branchTypeName(B.type(), B.newType()).str();
      Y.Stack.push_back(std::move(E));
    }
    if (S.GroupRead && S.NumValues) {
      uint64_t Cycles = 0, Instructions = 0;
      bool HaveC = false, HaveI = false;
      for (uint64_t I = 0; I < S.NumValues; ++I) {
        auto It = RoleById.find(S.valueId(I));
        if (It == RoleById.end())
          continue;
        if (It->second == 1)
          Cycles = S.value(I), HaveC = true;
        else if (It->second == 2)
          Instructions = S.value(I), HaveI = true;
      }
      // As the recorder does: one key per group instance and thread.
      auto &Prev = Last[{Y.Tid, S.valueId(0)}];
      auto Delta = [](uint64_t Now, uint64_t Before) {
        return Now >= Before ? Now - Before : 0;
      };
      if (HaveC)
        Y.Cycles = Delta(Cycles, Prev.first), Prev.first = Cycles;
      if (HaveI)
        Y.Instructions = Delta(Instructions, Prev.second),
        Prev.second = Instructions;
    }
    R.Samples.push_back(std::move(X));
    return Error::success();
  }

  PerfRecording take() {
    if (!Roles)
      roles();
    llvm::stable_sort(R.Samples,
                      [](const RecordedSample &A, const RecordedSample &B) {
                        return A.Sample.Time < B.Sample.Time;
                      });
    return std::move(R);
  }

private:
  void roles() {
    Roles = true;
    ArrayRef<perfdata::Attr> As = F.attrs();
    if (As.empty())
      return;
    RecordInfo &I = R.Info;
    I.Command.assign(F.cmdline().begin(), F.cmdline().end());
    const perfdata::Attr &L = As[0];
    I.Event = eventName(L);
    if (L.Freq)
      I.Freq = L.SamplePeriod;
    else
      I.Period = L.SamplePeriod;
    uint64_t BF = L.BranchSampleType & ~uint64_t(PERF_SAMPLE_BRANCH_HW_INDEX);
    I.LBR = (L.SampleType & PERF_SAMPLE_BRANCH_STACK) && BF
                ? branchFilterName(BF)
                : "none";
    for (const perfdata::Attr &A : As) {
      int Role = counterRole(A);
      if (!Role)
        continue;
      for (uint64_t Id : A.Ids)
        RoleById[Id] = Role;
      if (!(L.ReadFormat & PERF_FORMAT_GROUP))
        continue;
      (Role == 1 ? I.CyclesEvent : I.InstructionsEvent) = eventName(A);
    }
  }

  perfdata::File &F;
  PerfRecording R;
  bool Roles = false;
  std::map<uint64_t, int> RoleById; // file data: any u64, so no DenseMap
  std::map<std::pair<uint32_t, uint64_t>, std::pair<uint64_t, uint64_t>> Last;
};

/// perf script's delivery of samples for `-F ip,brstack`.
class ScriptPrinter : public perfdata::Visitor {
public:
  ScriptPrinter(const perfdata::File &F, raw_ostream &OS) : F(F), OS(OS) {}
  Error sample(const perfdata::Sample &S) override {
    if (!(S.Event->SampleType & PERF_SAMPLE_READ)) {
      print(S);
      return Error::success();
    }
    // perf delivers a sample with a read (a group read, or a single one) as
    // one sample per value whose count moved since the previous read of
    // that id (session.c, deliver_sample_value), and none for ids it does
    // not know.
    for (uint64_t I = 0; I < S.NumValues; ++I) {
      if (!F.knowsId(S.valueId(I)))
        continue;
      uint64_t &Prev = LastValue[S.valueId(I)];
      uint64_t V = S.value(I);
      uint64_t Delta = V - Prev;
      Prev = V;
      if (Delta)
        print(S);
    }
    return Error::success();
  }

private:
  void print(const perfdata::Sample &S) {
    OS << format(" %16" PRIx64, S.IP);
    for (uint64_t I = 0; I < S.NumBranches; ++I) {
      perfdata::Branch B = S.branch(I);
      StringRef Type = perfdata::branchTypeName(B.type(), B.newType());
      OS << " 0x" << utohexstr(B.From, true) << "/0x"
         << utohexstr(B.To, true) << '/'
         << (B.mispred() ? 'M' : B.predicted() ? 'P' : '-') << '/'
         << (B.inTx() ? 'X' : '-') << '/' << (B.abort() ? 'A' : '-') << '/'
         << B.cycles() << '/' << Type << ' ';
    }
    OS << '\n';
  }
  const perfdata::File &F;
  raw_ostream &OS;
  std::map<uint64_t, uint64_t> LastValue; // file data: any u64
};

} // namespace

Error checkCompressLevel(StringRef Option, int64_t Level) {
  // The library must take every level offered (ZSTD_maxCLevel is 22 since
  // zstd 0.8).
  if (Level != 0 && (Level < int64_t(MinCompressLevel) ||
                     Level > int64_t(MaxCompressLevel) ||
                     Level > ZSTD_maxCLevel()))
    return inputError(Option, 0,
                      "expected a ZSTD level of {0} to {1} (0: plain "
                      "records), got {2}",
                      MinCompressLevel,
                      std::min<int64_t>(MaxCompressLevel, ZSTD_maxCLevel()),
                      Level);
  return Error::success();
}

Error writePerfData(const PerfRecording &R, raw_ostream &OS,
                    const PerfDataWriteOptions &Opts) {
  return Writer(R, Opts).write(OS);
}

Expected<PerfRecording> readPerfDataRecording(perfdata::File &F) {
  RecordingBuilder B(F);
  if (Error E = F.read(B))
    return std::move(E);
  return B.take();
}

Expected<PerfRecording> readPerfDataRecording(StringRef Path) {
  auto F = perfdata::File::open(Path);
  if (!F)
    return F.takeError();
  return readPerfDataRecording(**F);
}

Error exportPerfScriptIpBrstack(perfdata::File &F, raw_ostream &OS) {
  ScriptPrinter P(F, OS);
  return F.read(P);
}

} // namespace keel
