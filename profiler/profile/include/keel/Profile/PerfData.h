//===- keel/Profile/PerfData.h - Linux perf's perf.data, read natively -*- C++ -*-===//
//
// A bounds-checked, streaming reader of the file `perf record` writes
// (tools/perf/Documentation/perf.data-file-format.txt in the Linux
// sources; record layouts in <linux/perf_event.h>). docs/formats/perf-data.md
// says what is read and what is refused.
//
// The file is mapped, never copied. The header, the attribute section
// (perf_event_attr + ids) and the feature sections (HEADER_BUILD_ID,
// HEADER_EVENT_DESC) are decoded when the file is opened; the data section
// is then streamed record by record to a visitor, in time order as perf
// reads it: records with a time go through perf's ordered-events queue,
// flushed at FINISHED_ROUND (keel/Profile/PerfOrderedRecords.h). A sample is
// handed out as a view into the mapping or the queue's copy (its branch
// stack and group read are decoded on demand). Every malformed input is an
// InputError naming the file and the byte offset where it went wrong.
//
// Only little-endian files in file mode or pipe mode are read; a file of the
// other endianness is refused with a message saying so. ZSTD-compressed
// records (perf record -z: PERF_RECORD_COMPRESSED and COMPRESSED2) are
// decompressed as they come, through one zstd stream per read, as perf
// does: their payloads form one continuous stream whose bytes are ordinary
// records, which may straddle the compressed records; only the records not
// yet complete are buffered.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_PROFILE_PERFDATA_H
#define KEEL_PROFILE_PERFDATA_H

#include "keel/Profile/PerfOrderedRecords.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace keel {
namespace perfdata {

/// "PERFILE2" as the little-endian u64 that starts every perf.data.
inline constexpr uint64_t Magic = 0x32454c4946524550ULL;
/// Size of the file-mode header (struct perf_file_header).
inline constexpr uint64_t FileHeaderSize = 104;
/// Size of the pipe-mode header (struct perf_pipe_file_header).
inline constexpr uint64_t PipeHeaderSize = 16;

/// Feature bits of the header's adds_features bitmap that Keel reads or
/// writes (enum HEADER_* of perf's util/header.h).
enum Feature : unsigned {
  FeatBuildID = 2,
  FeatCmdline = 11,
  FeatEventDesc = 12,
  FeatCompressed = 27,
  FeatBits = 256,
};

/// perf's own record types (enum perf_user_event_type).
enum UserRecord : uint32_t {
  RecHeaderAttr = 64,
  RecBuildID = 67,
  RecFinishedRound = 68,
  RecTracingData = 66,
  RecAuxtrace = 71,
  RecHeaderFeature = 80,
  RecCompressed = 81,
  RecFinishedInit = 82,
  RecCompressed2 = 83,
  RecUserMax = 84, ///< first type this reader does not know
};

/// Bits newer than the kernel headers Keel builds against.
inline constexpr uint64_t SampleBranchCountersBit = 1ULL << 19; // sample_type
inline constexpr uint64_t BranchCountersBit = 1ULL << 19; // branch_sample_type

/// Does \p Bytes start like a perf.data file (either endianness)?
bool looksLikePerfData(llvm::StringRef Bytes);

/// One event of the file (a perf_event_attr and the ids of its instances).
struct Attr {
  uint32_t Type = 0;
  uint64_t Config = 0;
  uint64_t SamplePeriod = 0; ///< or the frequency when Freq
  bool Freq = false;
  uint64_t SampleType = 0, ReadFormat = 0, BranchSampleType = 0;
  bool SampleIdAll = false;
  bool ExcludeKernel = false, ExcludeUser = false;
  std::vector<uint64_t> Ids;
  std::string Name; ///< from HEADER_EVENT_DESC ("" when the file has none)
};

/// HEADER_COMPRESSED: how the records of a `perf record -z` file were
/// compressed (perf's struct perf_env comp_*: five u32s).
struct Compression {
  bool Present = false; ///< the file has the feature section
  uint32_t Version = 0, Type = 0, Level = 0, Ratio = 0, MmapLen = 0;
  /// perf's enum perf_compress_type: PERF_COMP_ZSTD.
  static constexpr uint32_t Zstd = 1;
};

/// One entry of HEADER_BUILD_ID.
struct BuildIDEntry {
  int32_t Pid = 0;
  uint16_t Misc = 0;
  std::string BuildID; ///< lower-case hex
  std::string Path;
};

/// One LBR entry as the kernel stores it (struct perf_branch_entry).
struct Branch {
  uint64_t From = 0, To = 0, Flags = 0;
  bool mispred() const { return Flags & 1; }
  bool predicted() const { return (Flags >> 1) & 1; }
  bool inTx() const { return (Flags >> 2) & 1; }
  bool abort() const { return (Flags >> 3) & 1; }
  uint32_t cycles() const { return (Flags >> 4) & 0xffff; }
  unsigned type() const { return (Flags >> 20) & 0xf; }
  unsigned spec() const { return (Flags >> 24) & 0x3; }
  unsigned newType() const { return (Flags >> 26) & 0xf; }
};

/// perf's name of a branch type (PERF_BR_*), "" for PERF_BR_UNKNOWN.
llvm::StringRef branchTypeName(unsigned Type, unsigned NewType);

/// A PERF_RECORD_SAMPLE, decoded in place. Fields the attr does not
/// sample are 0.
struct Sample {
  const Attr *Event = nullptr;
  uint64_t Offset = 0; ///< of the record in the file
  uint64_t IP = 0, Time = 0, Addr = 0, Id = 0, StreamId = 0, Period = 0;
  uint32_t Pid = 0, Tid = 0, CPU = 0;
  uint16_t Misc = 0;
  /// PERF_SAMPLE_READ: NumValues values of ValueStride bytes each:
  /// value, then id (PERF_FORMAT_ID), then lost (PERF_FORMAT_LOST).
  uint64_t NumValues = 0;
  const uint8_t *Values = nullptr;
  unsigned ValueStride = 8;
  bool ValueHasId = false;
  bool GroupRead = false;
  uint64_t SingleId = 0; ///< the id of a non-group read
  /// PERF_SAMPLE_CALLCHAIN: NumCallChain u64s as the kernel wrote them,
  /// newest first: PERF_CONTEXT_* markers, each followed by the frames of
  /// its context (the interrupted IP, then return addresses).
  bool HasCallChain = false;
  uint64_t NumCallChain = 0;
  const uint8_t *CallChain = nullptr;
  /// PERF_SAMPLE_BRANCH_STACK: newest entry first.
  bool HasBranchStack = false;
  bool HasHwIdx = false;
  uint64_t HwIdx = 0;
  uint64_t NumBranches = 0;
  const uint8_t *Branches = nullptr;

  Branch branch(uint64_t I) const {
    using namespace llvm::support::endian;
    const uint8_t *P = Branches + I * 24;
    return Branch{read64le(P), read64le(P + 8), read64le(P + 16)};
  }
  uint64_t callChain(uint64_t I) const {
    return llvm::support::endian::read64le(CallChain + I * 8);
  }
  uint64_t value(uint64_t I) const {
    return llvm::support::endian::read64le(Values + I * ValueStride);
  }
  uint64_t valueId(uint64_t I) const {
    if (!GroupRead)
      return SingleId;
    return ValueHasId
               ? llvm::support::endian::read64le(Values + I * ValueStride + 8)
               : 0;
  }
};

/// PERF_RECORD_MMAP and MMAP2.
struct Mmap {
  bool IsMmap2 = false;
  uint16_t Misc = 0;
  uint32_t Pid = 0, Tid = 0;
  uint64_t Start = 0, Length = 0, PgOff = 0;
  uint32_t Prot = 0, Flags = 0; ///< MMAP2 only
  std::string BuildID;          ///< MMAP2 with PERF_RECORD_MISC_MMAP_BUILD_ID
  llvm::StringRef Path;
  uint64_t Time = 0; ///< from sample_id, 0 without sample_id_all
  uint64_t Offset = 0;
  /// MMAP2 says PROT_EXEC; MMAP is executable unless MISC_MMAP_DATA.
  bool executable() const;
};

/// PERF_RECORD_COMM.
struct Comm {
  uint32_t Pid = 0, Tid = 0;
  llvm::StringRef Name;
  bool Exec = false;
  uint64_t Time = 0;
};

/// PERF_RECORD_FORK / EXIT.
struct Task {
  bool Fork = true;
  uint32_t Pid = 0, PPid = 0, Tid = 0, PTid = 0;
  uint64_t Time = 0;
};

/// What the reader hands out, in time order as perf does
/// (keel/Profile/PerfOrderedRecords.h; records without a time at once).
/// Returning an error stops it.
class Visitor {
public:
  virtual ~Visitor();
  virtual llvm::Error sample(const Sample &S) { return llvm::Error::success(); }
  virtual llvm::Error mmap(const Mmap &M) { return llvm::Error::success(); }
  virtual llvm::Error comm(const Comm &C) { return llvm::Error::success(); }
  virtual llvm::Error task(const Task &T) { return llvm::Error::success(); }
  /// PERF_RECORD_LOST (Records=1, Events=n) and LOST_SAMPLES (0, n).
  virtual void lost(uint64_t Records, uint64_t Events) {}
  /// A record of a known type this reader skips by its size.
  virtual void skipped(uint32_t Type) {}
};

/// An opened perf.data: header, attrs and features decoded, data section
/// ready to stream.
class File {
public:
  /// Map and open \p Path.
  static llvm::Expected<std::unique_ptr<File>> open(llvm::StringRef Path);
  /// Open bytes already in memory (tests, fuzzing); \p Name is for errors.
  static llvm::Expected<std::unique_ptr<File>>
  fromBuffer(std::unique_ptr<llvm::MemoryBuffer> Buf, llvm::StringRef Name);

  llvm::StringRef name() const { return Name; }
  bool pipeMode() const { return Pipe; }
  /// Attrs in file order (in pipe mode: those seen so far).
  llvm::ArrayRef<Attr> attrs() const { return Attrs; }
  llvm::ArrayRef<BuildIDEntry> buildIDs() const { return BuildIDs; }
  /// HEADER_CMDLINE: the recording's command line (perf's argv), or empty.
  llvm::ArrayRef<std::string> cmdline() const { return Cmdline; }
  /// Whether an attr (of those seen so far) has the id \p Id.
  bool knowsId(uint64_t Id) const { return AttrById.count(Id); }
  /// The build id HEADER_BUILD_ID gives for \p Path, or "".
  llvm::StringRef buildIDOf(llvm::StringRef Path) const;
  /// HEADER_COMPRESSED (Present is false when the file has none).
  const Compression &compression() const { return Comp; }
  /// Compressed records met by the last read() (0 for a plain file).
  uint64_t compressedRecords() const { return NumCompressed; }

  /// Stream the data section to \p V. May be called more than once.
  llvm::Error read(Visitor &V);

  /// Hand records out in file order instead of time order (tests).
  void setFileOrder(bool FileOrder) { InFileOrder = FileOrder; }
  /// The bytes of records the time-order queue holds before it hands out
  /// the older half (tests and fuzzing use small ones).
  void setOrderLimit(uint64_t Bytes) { Order.setLimit(Bytes); }
  /// Of the last read(): records that came after a later one had been
  /// handed out (perf's "out of order" events; handed out late, as perf
  /// does), and how often the queue reached its limit.
  uint64_t outOfOrderRecords() const { return Order.outOfOrder(); }
  uint64_t orderHalfFlushes() const { return Order.halfFlushes(); }

  ~File();

private:
  struct Inflater;
  File();
  llvm::Error parseHeader();
  llvm::Error parseAttrs(uint64_t Off, uint64_t Size, uint64_t AttrSize);
  llvm::Error parseFeatures(uint64_t Off, const uint8_t *Bitmap);
  /// Build id entries in [\p P, +\p Size), which sit at byte \p Off of
  /// the file (for errors).
  llvm::Error parseBuildIDs(const uint8_t *P, uint64_t Off, uint64_t Size);
  llvm::Error parseCompression(uint64_t Off, uint64_t Size);
  llvm::Error parseEventDesc(uint64_t Off, uint64_t Size);
  llvm::Error parseCmdline(uint64_t Off, uint64_t Size);
  llvm::Error decodeAttr(const uint8_t *P, uint64_t Off, uint64_t Size,
                         Attr &A);
  /// Index the attrs and check that they agree; \p Off: where errors say
  /// the last attr is.
  llvm::Error finishAttrs(uint64_t Off);
  /// A record of the data section or the zstd stream, as record() takes
  /// it: perf's own records (FINISHED_ROUND flushes the queue) and records
  /// without a time go to record() at once, the others to the time-order
  /// queue.
  llvm::Error dispatch(const uint8_t *Rec, uint64_t Off, uint32_t Type,
                       uint16_t Misc, uint64_t Size, Visitor &V);
  /// The time perf orders the kernel record at \p Rec by (a sample's
  /// PERF_SAMPLE_TIME, another record's sample_id time); false when it has
  /// none, or is too short to say (record() then reports it).
  bool recordTime(const uint8_t *Rec, uint32_t Type, uint64_t Size,
                  uint64_t &Time) const;
  /// record() of a record out of the queue, errors naming where it was.
  llvm::Error deliverQueued(const OrderedRecords::Entry &E,
                            llvm::ArrayRef<uint8_t> Rec, Visitor &V);
  /// One record at \p Rec (\p Size bytes, bounds checked by the caller);
  /// \p Off is where errors say it is.
  llvm::Error record(const uint8_t *Rec, uint64_t Off, uint32_t Type,
                     uint16_t Misc, uint64_t Size, Visitor &V);
  llvm::Error sample(uint64_t Off, uint16_t Misc, const uint8_t *Body,
                     uint64_t Size, Visitor &V);
  llvm::Error headerAttr(const uint8_t *Rec, uint64_t Off, uint64_t Size);
  /// A COMPRESSED or COMPRESSED2 record at byte \p Off of the file: feed
  /// its payload to the stream and hand out the records it completes.
  llvm::Error inflate(uint64_t Off, uint32_t Type, uint64_t Size,
                      Visitor &V);
  /// Hand out the complete records buffered by the stream; \p Last: the
  /// current compressed record has given all its bytes.
  llvm::Error drainInflated(uint64_t Off, bool Last, Visitor &V);

  /// A record header and the size of the payload some records carry after
  /// themselves (AUXTRACE, TRACING_DATA).
  struct RecordHeader {
    uint32_t Type = 0;
    uint16_t Misc = 0;
    uint64_t Size = 0, Extra = 0;
  };
  /// Where a record header is read, and what may come after the bytes in
  /// hand.
  enum class HeaderIn {
    Section,        ///< the data section: the record and its payload fit
    StreamMore,     ///< a compressed record's data, more of it to come
    StreamLastPart, ///< the rest of a compressed record's data
  };
  /// Read and check the header of the record at \p P, with \p Have bytes
  /// from \p P in hand; \p Off is where errors say it is. In a stream, a
  /// record may end in a later compressed record (\p Whole is false when it
  /// is not all in hand), but its payload must end in the compressed
  /// record's data, as perf's reader requires; a payload not all in hand
  /// is skipped as more data comes.
  llvm::Error recordHeader(const uint8_t *P, uint64_t Have, HeaderIn In,
                           uint64_t Off, RecordHeader &H, bool &Whole) const;

  template <typename... Ts>
  llvm::Error fail(uint64_t Offset, const char *Fmt, Ts &&...Vals) const;

  std::unique_ptr<llvm::MemoryBuffer> Buf;
  std::string Name;
  bool Pipe = false;
  uint64_t DataOff = 0, DataSize = 0;
  std::vector<Attr> Attrs;
  /// Not a DenseMap: ids are file data, and ~0 is DenseMap's empty key.
  std::map<uint64_t, unsigned> AttrById;
  std::vector<BuildIDEntry> BuildIDs;
  std::vector<std::string> Cmdline;
  Compression Comp;
  std::unique_ptr<Inflater> Z; ///< the zstd stream of the current read()
  uint64_t NumCompressed = 0;
  OrderedRecords Order; ///< records not yet handed out, by time
  bool InFileOrder = false;
  /// While records decompressed from a compressed record are handed out:
  /// the position of the current one in the decompressed stream; ~0
  /// otherwise. The offset and type of the compressed record it came out
  /// of (errors name both).
  uint64_t InflatedPos = ~uint64_t(0);
  uint64_t InflatedOff = 0;
  uint32_t InflatedType = 0;
  /// The layout every attr shares (checked): sample_type, sample_id_all.
  uint64_t SampleType = 0;
  bool SampleIdAll = false;
  unsigned IdPosSample = 0, IdPosTrailer = 0; ///< 0: no id; else 1 + index
  unsigned TrailerSize = 0;
};

} // namespace perfdata
} // namespace keel

#endif
