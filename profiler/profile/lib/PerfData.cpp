//===- PerfData.cpp - Linux perf's perf.data, read natively ---------------===//
//
// File mode (perf.data-file-format.txt):
//   struct perf_file_header { u64 magic "PERFILE2"; u64 size (104);
//     u64 attr_size; section attrs, data, event_types;
//     u64 adds_features[4] }            section = { u64 offset, size }
//   attrs:    attr_size-byte entries: perf_event_attr, then section ids
//             (an array of u64 ids elsewhere in the file)
//   data:     records, each a perf_event_header { u32 type; u16 misc;
//             u16 size } and its body
//   features: after the data section, one section per set feature bit,
//             in bit order
// Pipe mode: struct perf_pipe_file_header { u64 magic; u64 size (16) },
// then records to the end of the file; attrs come as HEADER_ATTR records
// (perf_event_attr, then u64 ids to the end of the record) before the
// samples that use them.
//
// Sample layout (enum perf_event_type in <linux/perf_event.h>):
//   identifier? ip? pid,tid? time? addr? id? stream_id? cpu,res? period?
//   read? callchain? raw? branch_stack? ... (the rest is not read)
//   callchain:     nr, {ip}[nr] (PERF_CONTEXT_* markers among them)
//   read (GROUP):  nr, time_enabled?, time_running?, {value, id?, lost?}[nr]
//   read (single): value, time_enabled?, time_running?, id?, lost?
//   branch_stack:  nr, hw_idx? (branch_sample_type HW_INDEX),
//                  {from, to, flags}[nr], counters[nr]? (BRANCH_COUNTERS)
// Other records end with the sample_id trailer when sample_id_all:
//   pid,tid? time? id? stream_id? cpu,res? identifier?
//
// The header, attrs and features are read through llvm::DataExtractor;
// records through a cursor that checks every read against the record's
// bounds (which were checked against the data section's). No read goes
// past the mapping, whatever the bytes say.
//
// Compressed records (perf record -z; tools/perf/util/session.c and zstd.c):
//   COMPRESSED (81):  header, then the payload (size - 8 bytes)
//   COMPRESSED2 (83): header, u64 data_size, then data_size payload bytes
//                     (the record is padded to 8 bytes)
// perf compresses with one zstd stream per file, flushed at the end of each
// record, so the payloads are read as one continuous stream (one
// ZSTD_DStream per read()); the bytes it gives are ordinary records, and a
// record may start in one compressed record and end in the next; the
// payload an AUXTRACE or TRACING_DATA record carries after itself must end
// in the compressed record that completed it (perf's reader carries none
// of it over). The stream is drained after every step, so only an
// incomplete record (at most 64 KiB) and zstd's own window are buffered,
// whatever the ratio. Both loops read record headers with recordHeader().
//
// Both loops hand records to dispatch(), which orders them by time as
// perf's session.c does: perf's own records (type 64 and up) and records
// without a time go to record() at once; the others are queued
// (OrderedRecords), and come out at FINISHED_ROUND, at the queue's limit and
// at the end of read(), through deliverQueued(), which restores where they
// were for errors.
//
//===----------------------------------------------------------------------===//
#include "keel/Profile/PerfData.h"
#include "keel/Profile/PerfSampleFields.h"

#include "keel/Support/Diagnostics.h"
#include "keel/Support/Input.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/DataExtractor.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Process.h"

#include <linux/perf_event.h>

#include <cstring>
#include <sys/mman.h>
#include <zstd.h>

using namespace llvm;
using namespace llvm::support::endian;

namespace keel {
namespace perfdata {

Visitor::~Visitor() = default;

bool looksLikePerfData(StringRef Bytes) {
  return Bytes.starts_with("PERFILE2") || Bytes.starts_with("2ELIFREP");
}

StringRef branchTypeName(unsigned Type, unsigned NewType) {
  static const char *const Names[] = {
      "",    "COND",    "UNCOND", "IND",       "CALL",     "IND_CALL",
      "RET", "SYSCALL", "SYSRET", "COND_CALL", "COND_RET", "ERET",
      "IRQ", "SERROR",  "NO_TX"};
  static const char *const NewNames[] = {"FAULT_ADDR", "FAULT_DATA",
                                         "FAULT_INST", "ARCH_1", "ARCH_2",
                                         "ARCH_3",     "ARCH_4", "ARCH_5"};
  if (Type < std::size(Names))
    return Names[Type];
  if (Type == 15 /*PERF_BR_EXTEND_ABI*/ && NewType < std::size(NewNames))
    return NewNames[NewType];
  return "";
}

bool Mmap::executable() const {
  if (IsMmap2)
    return Prot & 4; // PROT_EXEC
  return !(Misc & PERF_RECORD_MISC_MMAP_DATA);
}

template <typename... Ts>
Error File::fail(uint64_t Offset, const char *Fmt, Ts &&...Vals) const {
  std::string Msg = formatv(Fmt, std::forward<Ts>(Vals)...).str();
  if (InflatedPos == ~uint64_t(0))
    return inputError(Name, 0, "byte {0}: {1}", Offset, Msg);
  // A record that came out of the zstd stream: its decoders were given the
  // compressed record's offset for the record's first byte, so Offset is
  // that plus a position inside the record. Name the compressed record,
  // and the byte in the decompressed stream.
  return inputError(Name, 0,
                    "byte {0} (the {1} record there), byte {2} of "
                    "the decompressed stream: {3}",
                    InflatedOff,
                    InflatedType == RecCompressed2 ? "COMPRESSED2"
                                                   : "COMPRESSED",
                    InflatedPos + (Offset >= InflatedOff ? Offset - InflatedOff
                                                         : 0),
                    Msg);
}

/// The zstd stream of one read() and the decompressed bytes not yet handed
/// out (an incomplete record).
struct File::Inflater {
  ZSTD_DStream *D = ZSTD_createDStream();
  std::vector<uint8_t> Buf;
  size_t Have = 0;   ///< bytes of Buf holding decompressed data
  uint64_t Pos = 0;  ///< stream position of Buf[0]
  uint64_t Skip = 0; ///< payload bytes of a record to drop (AUXTRACE)
  uint64_t SkipTotal = 0, SkipPos = 0; ///< that payload's size, and the
  uint32_t SkipType = 0;               ///< stream position and type of
                                       ///< its record
  size_t Hint = 0;   ///< ZSTD_decompressStream's last return value
  uint64_t LastOff = 0; ///< the last compressed record's file offset
  uint32_t LastType = 0; ///< and its type
  Inflater() = default;
  Inflater(const Inflater &) = delete;
  Inflater &operator=(const Inflater &) = delete;
  ~Inflater() { ZSTD_freeDStream(D); }
};

File::File() = default;
File::~File() = default;

namespace {

std::string hex(ArrayRef<uint8_t> Bytes) {
  return toHex(Bytes, /*LowerCase=*/true);
}

} // namespace

Expected<std::unique_ptr<File>> File::open(StringRef Path) {
  auto MB = readInputFile(Path, InputKind::Profile);
  if (!MB)
    return MB.takeError();
  return fromBuffer(std::move(*MB), Path);
}

Expected<std::unique_ptr<File>>
File::fromBuffer(std::unique_ptr<MemoryBuffer> Buf, StringRef Name) {
  std::unique_ptr<File> F(new File());
  F->Buf = std::move(Buf);
  F->Name = Name.str();
  if (Error E = F->parseHeader())
    return std::move(E);
  return F;
}

StringRef File::buildIDOf(StringRef Path) const {
  for (const BuildIDEntry &B : BuildIDs)
    if (B.Path == Path)
      return B.BuildID;
  return "";
}

Error File::parseHeader() {
  StringRef Bytes = Buf->getBuffer();
  DataExtractor DE(Bytes, /*IsLittleEndian=*/true, 8);
  if (Bytes.size() < 8)
    return fail(0, "truncated perf.data header: the file has {0} bytes",
                Bytes.size());
  if (Bytes.starts_with("2ELIFREP"))
    return fail(0, "perf.data of the other endianness (big-endian magic "
                   "'2ELIFREP'): only little-endian files are read");
  if (!Bytes.starts_with("PERFILE2"))
    return fail(0, "not a perf.data file (magic is not 'PERFILE2')");
  if (Bytes.size() < 16)
    return fail(8, "truncated perf.data header: the file has {0} bytes",
                Bytes.size());
  uint64_t Off = 8;
  uint64_t HeaderSize = DE.getU64(&Off);
  if (HeaderSize == PipeHeaderSize) {
    Pipe = true;
    DataOff = PipeHeaderSize;
    DataSize = Bytes.size() - PipeHeaderSize;
    return Error::success();
  }
  if (HeaderSize < FileHeaderSize)
    return fail(8, "perf.data header size {0} is neither {1} (file mode) nor "
                   "{2} (pipe mode)",
                HeaderSize, FileHeaderSize, PipeHeaderSize);
  if (Bytes.size() < FileHeaderSize)
    return fail(Bytes.size(),
                "truncated perf.data header: {0} bytes, the header needs {1}",
                Bytes.size(), FileHeaderSize);
  uint64_t AttrSize = DE.getU64(&Off);
  uint64_t AttrOff = DE.getU64(&Off), AttrsSize = DE.getU64(&Off);
  DataOff = DE.getU64(&Off);
  DataSize = DE.getU64(&Off);
  Off += 16; // event_types: unused since 2011
  const uint8_t *Bitmap = Bytes.bytes_begin() + Off;
  auto Check = [&](uint64_t At, uint64_t SOff, uint64_t SSize,
                   const char *What) -> Error {
    if (SOff > Bytes.size() || SSize > Bytes.size() - SOff)
      return fail(At,
                  "the {0} section [{1}, +{2}) runs past the end of the file "
                  "({3} bytes)",
                  What, SOff, SSize, Bytes.size());
    return Error::success();
  };
  if (Error E = Check(24, AttrOff, AttrsSize, "attrs"))
    return E;
  if (Error E = Check(40, DataOff, DataSize, "data"))
    return E;
  if (Error E = parseAttrs(AttrOff, AttrsSize, AttrSize))
    return E;
  if (Error E = parseFeatures(DataOff + DataSize, Bitmap))
    return E;
  return finishAttrs(104);
}

Error File::decodeAttr(const uint8_t *Ptr, uint64_t Off, uint64_t Size,
                       Attr &A) {
  // The caller checked [Ptr, +Size) against its buffer.
  if (Size < PERF_ATTR_SIZE_VER0)
    return fail(Off, "truncated perf_event_attr ({0} bytes, at least {1} "
                     "needed)",
                Size, unsigned(PERF_ATTR_SIZE_VER0));
  DataExtractor DE(StringRef(reinterpret_cast<const char *>(Ptr), Size), true,
                   8);
  uint64_t P = 0;
  A.Type = DE.getU32(&P);
  uint32_t ASize = DE.getU32(&P);
  (void)ASize; // the entry size of the section rules; perf does the same
  A.Config = DE.getU64(&P);
  A.SamplePeriod = DE.getU64(&P);
  A.SampleType = DE.getU64(&P);
  A.ReadFormat = DE.getU64(&P);
  uint64_t Flags = DE.getU64(&P);
  A.Freq = (Flags >> 10) & 1;
  A.SampleIdAll = (Flags >> 18) & 1;
  A.ExcludeUser = (Flags >> 4) & 1;
  A.ExcludeKernel = (Flags >> 5) & 1;
  A.BranchSampleType = 0;
  if (Size >= PERF_ATTR_SIZE_VER2) {
    P = 72;
    A.BranchSampleType = DE.getU64(&P);
  }
  return Error::success();
}

Error File::parseAttrs(uint64_t Off, uint64_t Size, uint64_t AttrSize) {
  StringRef Bytes = Buf->getBuffer();
  if (Size == 0)
    return fail(24, "the attrs section is empty: no events");
  if (AttrSize < PERF_ATTR_SIZE_VER0 + 16 || Size % AttrSize)
    return fail(16, "attr entry size {0} does not divide the attrs section "
                    "({1} bytes) or is too small",
                AttrSize, Size);
  DataExtractor DE(Bytes, true, 8);
  for (uint64_t At = Off; At < Off + Size; At += AttrSize) {
    Attr A;
    if (Error E = decodeAttr(Bytes.bytes_begin() + At, At, AttrSize - 16, A))
      return E;
    uint64_t P = At + AttrSize - 16;
    uint64_t IdsOff = DE.getU64(&P), IdsSize = DE.getU64(&P);
    if (IdsSize % 8 || IdsOff > Bytes.size() ||
        IdsSize > Bytes.size() - IdsOff)
      return fail(At + AttrSize - 16,
                  "the ids of attr {0} [{1}, +{2}) run past the end of the "
                  "file or are not whole u64s",
                  Attrs.size(), IdsOff, IdsSize);
    for (uint64_t I = 0; I < IdsSize / 8; ++I)
      A.Ids.push_back(read64le(Bytes.bytes_begin() + IdsOff + I * 8));
    Attrs.push_back(std::move(A));
  }
  return Error::success();
}

Error File::parseFeatures(uint64_t Off, const uint8_t *Bitmap) {
  StringRef Bytes = Buf->getBuffer();
  DataExtractor DE(Bytes, true, 8);
  unsigned Index = 0;
  for (unsigned Bit = 0; Bit < FeatBits; ++Bit) {
    if (!((Bitmap[Bit / 8] >> (Bit % 8)) & 1))
      continue;
    uint64_t At = Off + 16 * uint64_t(Index++);
    if (At > Bytes.size() || Bytes.size() - At < 16)
      return fail(At, "truncated feature section table (feature {0})", Bit);
    uint64_t P = At;
    uint64_t SOff = DE.getU64(&P), SSize = DE.getU64(&P);
    if (SOff > Bytes.size() || SSize > Bytes.size() - SOff)
      return fail(At, "feature {0} section [{1}, +{2}) runs past the end of "
                      "the file",
                  Bit, SOff, SSize);
    if (Bit == FeatBuildID) {
      if (Error E = parseBuildIDs(Bytes.bytes_begin() + SOff, SOff, SSize))
        return E;
    } else if (Bit == FeatEventDesc) {
      if (Error E = parseEventDesc(SOff, SSize))
        return E;
    } else if (Bit == FeatCmdline) {
      if (Error E = parseCmdline(SOff, SSize))
        return E;
    } else if (Bit == FeatCompressed) {
      if (Error E = parseCompression(SOff, SSize))
        return E;
    }
  }
  return Error::success();
}

Error File::parseBuildIDs(const uint8_t *P, uint64_t Off, uint64_t Size) {
  // struct build_id_event { perf_event_header; s32 pid; u8 build_id[24];
  //   char filename[] } (36 bytes and the name); with
  // PERF_RECORD_MISC_BUILD_ID_SIZE the id's length is build_id[20].
  // At: offset in [P, +Size); errors name the file offset Off + At.
  uint64_t At = 0;
  while (At < Size) {
    if (Size - At < 36)
      return fail(Off + At, "truncated HEADER_BUILD_ID entry");
    const uint8_t *R = P + At;
    uint16_t Misc = read16le(R + 4), RSize = read16le(R + 6);
    if (RSize < 36 || RSize > Size - At)
      return fail(Off + At,
                  "HEADER_BUILD_ID entry size {0} is outside [36, {1}]", RSize,
                  Size - At);
    BuildIDEntry E;
    E.Misc = Misc;
    E.Pid = int32_t(read32le(R + 8));
    const uint8_t *Id = R + 12;
    unsigned Len = 20;
    if (Misc & (1u << 15)) // PERF_RECORD_MISC_BUILD_ID_SIZE
      Len = std::min<unsigned>(Id[20], 20);
    else
      while (Len && !Id[Len - 1]) // perf pads short ids with zeros
        --Len;
    E.BuildID = hex(ArrayRef<uint8_t>(Id, Len));
    const char *Name = reinterpret_cast<const char *>(R + 36);
    E.Path = std::string(Name, strnlen(Name, RSize - 36));
    BuildIDs.push_back(std::move(E));
    At += RSize;
  }
  return Error::success();
}

Error File::parseCompression(uint64_t Off, uint64_t Size) {
  // u32 version, type, level, ratio, mmap_len (perf's write_compressed).
  if (Size < 20)
    return fail(Off, "truncated HEADER_COMPRESSED section ({0} bytes, 20 "
                     "needed)",
                Size);
  const uint8_t *P = Buf->getBuffer().bytes_begin() + Off;
  Comp.Present = true;
  Comp.Version = read32le(P);
  Comp.Type = read32le(P + 4);
  Comp.Level = read32le(P + 8);
  Comp.Ratio = read32le(P + 12);
  Comp.MmapLen = read32le(P + 16);
  return Error::success();
}

Error File::parseEventDesc(uint64_t Off, uint64_t Size) {
  // u32 nr; u32 attr_size; { attr; u32 nr_ids; string name; u64 ids[] }[nr]
  // string = u32 len, then len bytes (NUL-padded).
  StringRef Bytes = Buf->getBuffer().substr(Off, Size);
  DataExtractor DE(Bytes, true, 8);
  DataExtractor::Cursor C(0);
  uint32_t Nr = DE.getU32(C), ASize = DE.getU32(C);
  for (uint32_t I = 0; I < Nr && C; ++I) {
    uint64_t AttrAt = C.tell();
    DE.skip(C, ASize);
    uint32_t NrIds = DE.getU32(C);
    uint32_t Len = DE.getU32(C);
    uint64_t NameAt = C.tell();
    DE.skip(C, Len);
    uint64_t IdsAt = C.tell();
    DE.skip(C, uint64_t(NrIds) * 8);
    if (!C)
      break;
    StringRef NameBytes = Bytes.substr(NameAt, Len);
    StringRef EvName = NameBytes.take_until([](char Ch) { return Ch == 0; });
    (void)AttrAt;
    // Match by id (the desc lists each event's ids); else by position.
    Attr *A = nullptr;
    if (NrIds) {
      uint64_t Id = read64le(Bytes.bytes_begin() + IdsAt);
      for (Attr &X : Attrs)
        if (llvm::is_contained(X.Ids, Id))
          A = &X;
    }
    if (!A && I < Attrs.size())
      A = &Attrs[I];
    if (A)
      A->Name = EvName.str();
  }
  if (Error E = C.takeError()) {
    consumeError(std::move(E));
    return fail(Off, "truncated HEADER_EVENT_DESC section ({0} bytes)", Size);
  }
  return Error::success();
}

Error File::parseCmdline(uint64_t Off, uint64_t Size) {
  // u32 nr; { u32 len; char str[len] (NUL-padded) }[nr]
  StringRef Bytes = Buf->getBuffer().substr(Off, Size);
  DataExtractor DE(Bytes, true, 8);
  DataExtractor::Cursor C(0);
  uint32_t Nr = DE.getU32(C);
  for (uint32_t I = 0; I < Nr && C; ++I) {
    uint32_t Len = DE.getU32(C);
    uint64_t At = C.tell();
    DE.skip(C, Len);
    if (C)
      Cmdline.push_back(
          Bytes.substr(At, Len).take_until([](char Ch) { return !Ch; }).str());
  }
  if (Error E = C.takeError()) {
    consumeError(std::move(E));
    return fail(Off, "truncated HEADER_CMDLINE section ({0} bytes)", Size);
  }
  return Error::success();
}

Error File::finishAttrs(uint64_t Off) {
  AttrById.clear();
  if (Attrs.empty())
    return Error::success();
  SampleType = Attrs[0].SampleType;
  SampleIdAll = Attrs[0].SampleIdAll;
  bool Uniform = true, AllIdentifier = true;
  for (unsigned I = 0; I < Attrs.size(); ++I) {
    const Attr &A = Attrs[I];
    Uniform &= A.SampleType == SampleType;
    AllIdentifier &= (A.SampleType & PERF_SAMPLE_IDENTIFIER) != 0;
    if (A.SampleIdAll != SampleIdAll)
      return fail(Off, "events disagree on sample_id_all");
    for (uint64_t Id : A.Ids)
      AttrById.try_emplace(Id, I);
  }
  if (!Uniform && !AllIdentifier)
    return fail(Off,
                "events have different sample_type and not all of them "
                "sample PERF_SAMPLE_IDENTIFIER: records cannot be assigned "
                "to events");
  // Where the id sits when every attr shares the layout.
  IdPosSample = IdPosTrailer = 0;
  if (SampleType & PERF_SAMPLE_IDENTIFIER) {
    IdPosSample = 1;
  } else if (SampleType & PERF_SAMPLE_ID) {
    unsigned N = 0;
    for (uint64_t Bit : {PERF_SAMPLE_IP, PERF_SAMPLE_TID, PERF_SAMPLE_TIME,
                         PERF_SAMPLE_ADDR})
      N += (SampleType & Bit) != 0;
    IdPosSample = N + 1;
  }
  TrailerSize = sampleIdTrailerSize(SampleType);
  if (SampleType & PERF_SAMPLE_IDENTIFIER) {
    IdPosTrailer = TrailerSize / 8; // the last u64
  } else if (SampleType & PERF_SAMPLE_ID) {
    unsigned N = 0;
    for (uint64_t Bit : {PERF_SAMPLE_TID, PERF_SAMPLE_TIME})
      N += (SampleType & Bit) != 0;
    IdPosTrailer = N + 1;
  }
  if (!Uniform) {
    // All sample IDENTIFIER: first u64 of a sample, last of a trailer; the
    // trailer size is the attr's own.
    IdPosSample = 1;
    IdPosTrailer = ~0u;
  }
  return Error::success();
}

Error File::headerAttr(const uint8_t *Rec, uint64_t Off, uint64_t Size) {
  // Pipe mode: perf_event_attr (attr.size bytes), then u64 ids.
  const uint8_t *Body = Rec + 8;
  uint64_t BodySize = Size - 8;
  if (BodySize < 8)
    return fail(Off, "truncated HEADER_ATTR record");
  uint32_t ASize = read32le(Body + 4);
  if (ASize < PERF_ATTR_SIZE_VER0 || ASize > BodySize || (BodySize - ASize) % 8)
    return fail(Off, "HEADER_ATTR record of {0} bytes holds an attr of {1}",
                Size, ASize);
  Attr A;
  if (Error E = decodeAttr(Body, Off + 8, ASize, A))
    return E;
  for (uint64_t P = ASize; P < BodySize; P += 8)
    A.Ids.push_back(read64le(Body + P));
  Attrs.push_back(std::move(A));
  return finishAttrs(Off);
}

// Inlined in both loops: in read()'s, In is a constant and the checks are
// those the loop had before it was shared.
LLVM_ATTRIBUTE_ALWAYS_INLINE Error
File::recordHeader(const uint8_t *P, uint64_t Have, HeaderIn In, uint64_t Off,
                   RecordHeader &H, bool &Whole) const {
  const bool Stream = In != HeaderIn::Section;
  Whole = false;
  if (Have < 8) {
    if (Stream) // the rest comes with the next compressed record
      return Error::success();
    return fail(Off, "truncated record header: {0} bytes left in the data "
                     "section, a header needs 8",
                Have);
  }
  H.Type = read32le(P);
  H.Misc = read16le(P + 4);
  H.Size = read16le(P + 6);
  H.Extra = 0;
  if (H.Size < 8)
    return fail(Off, "record size {0} is smaller than its header (type {1})",
                H.Size, H.Type);
  if (H.Size > Have) {
    if (Stream)
      return Error::success();
    return fail(Off, "record of {0} bytes (type {1}) runs past the end of "
                     "the data section ({2} bytes left)",
                H.Size, H.Type, Have);
  }
  // The payload perf writes after these records (perf_session__process_
  // user_event returns its size, and the reader skips it).
  if (H.Type == RecAuxtrace && H.Size >= 16)
    H.Extra = read64le(P + 8);
  else if (H.Type == RecTracingData && H.Size >= 12)
    H.Extra = read32le(P + 8);
  if (H.Extra > Have - H.Size && In != HeaderIn::StreamMore)
    return fail(Off, "record payload of {0} bytes (type {1}) runs past the "
                     "end of {2} ({3} bytes left)",
                H.Extra, H.Type,
                Stream ? "the compressed record's decompressed data"
                       : "the data section",
                Have - H.Size);
  Whole = true;
  return Error::success();
}

Error File::read(Visitor &V) {
  const uint8_t *B = reinterpret_cast<const uint8_t *>(Buf->getBufferStart());
  uint64_t At = DataOff, End = DataOff + DataSize;
  const bool Mapped =
      Buf->getBufferKind() == MemoryBuffer::MemoryBuffer_MMap;
  const uint64_t Page = sys::Process::getPageSizeEstimate();
  const uint64_t DropChunk = 16 << 20;
  uint64_t Dropped = DataOff;
  if (Pipe) {
    // Attrs come with the records; start afresh on every read.
    Attrs.clear();
    BuildIDs.clear();
    AttrById.clear();
  }
  Z.reset(); // a fresh zstd stream
  NumCompressed = 0;
  Order.clear();
  while (At < End) {
    RecordHeader H;
    bool Whole;
    if (Error E =
            recordHeader(B + At, End - At, HeaderIn::Section, At, H, Whole))
      return E;
    if (H.Type == RecCompressed || H.Type == RecCompressed2) {
      if (Error E = inflate(At, H.Type, H.Size, V))
        return E;
    } else if (Error E = dispatch(B + At, At, H.Type, H.Misc, H.Size, V)) {
      return E;
    }
    At += H.Size + H.Extra;
    // Records are read once, in order: give the pages already read back to
    // the page cache, so a mapped file of gigabytes does not grow our
    // resident set (they fault in again if the file is read again).
    if (Mapped && At - Dropped >= DropChunk) {
      uintptr_t Base = reinterpret_cast<uintptr_t>(B);
      uintptr_t Begin = alignTo(Base + Dropped, Page);
      uintptr_t Stop = alignDown(Base + At, Page);
      if (Stop > Begin)
        ::madvise(reinterpret_cast<void *>(Begin), Stop - Begin,
                  MADV_DONTNEED);
      Dropped = At;
    }
  }
  // The end of the file: what is still queued, in time order.
  if (Error E = Order.flushAll(
          [&](const OrderedRecords::Entry &Q, ArrayRef<uint8_t> Rec) {
            return deliverQueued(Q, Rec, V);
          }))
    return E;
  if (Z) {
    // perf flushes its stream at the end of every compressed record, so
    // the last one ends on a record boundary and on a block boundary, where
    // zstd asks for a whole block header next (3 bytes), or at the end of a
    // frame (0); anything else is a block or block header cut short.
    const Inflater &I = *Z;
    // (A record's payload ends in its compressed record: drainInflated.)
    if (I.Have)
      return fail(I.LastOff,
                  "the ZSTD-compressed records end inside a record: {0} "
                  "bytes of it were decompressed (a truncated compressed "
                  "payload)",
                  I.Have);
    const size_t BlockHeaderSize = 3; // RFC 8878, 3.1.1.2
    if (I.Hint != 0 && I.Hint != BlockHeaderSize)
      return fail(I.LastOff,
                  "the ZSTD-compressed records end inside a compressed block "
                  "(zstd asks for {0} more bytes): a truncated compressed "
                  "payload",
                  I.Hint);
  }
  return Error::success();
}

Error File::inflate(uint64_t Off, uint32_t Type, uint64_t Size, Visitor &V) {
  const uint8_t *Rec =
      reinterpret_cast<const uint8_t *>(Buf->getBufferStart()) + Off;
  const uint8_t *Payload = Rec + 8;
  uint64_t N = Size - 8;
  if (Type == RecCompressed2) {
    if (Size < 16)
      return fail(Off, "truncated COMPRESSED2 record ({0} bytes)", Size);
    N = read64le(Rec + 8);
    if (N > Size - 16)
      return fail(Off, "COMPRESSED2 record of {0} bytes says its payload has "
                       "{1}",
                  Size, N);
    Payload = Rec + 16;
  }
  if (Comp.Present && Comp.Type != Compression::Zstd)
    return fail(Off, "compressed record of a method this reader does not "
                     "know (HEADER_COMPRESSED type {0}; ZSTD is {1})",
                Comp.Type, Compression::Zstd);
  if (!Z) {
    Z = std::make_unique<Inflater>();
    if (!Z->D)
      return fail(Off, "cannot create a ZSTD decompression stream");
  }
  Inflater &I = *Z;
  I.LastOff = Off;
  I.LastType = Type;
  ++NumCompressed;
  ZSTD_inBuffer In{Payload, N, 0};
  const size_t Chunk = ZSTD_DStreamOutSize();
  while (true) {
    if (I.Buf.size() - I.Have < Chunk)
      I.Buf.resize(I.Have + Chunk);
    ZSTD_outBuffer Out{I.Buf.data(), I.Buf.size(), I.Have};
    size_t R = ZSTD_decompressStream(I.D, &Out, &In);
    if (ZSTD_isError(R))
      return fail(Off, "corrupt ZSTD-compressed payload ({0} bytes; zstd "
                       "stopped at byte {1} of it): {2}",
                  N, In.pos, ZSTD_getErrorName(R));
    // Last: all of this record's payload is in, and zstd had room for all
    // it gives (perf flushes the stream at the end of every record).
    bool Last = In.pos == In.size && Out.pos < Out.size;
    I.Have = Out.pos;
    I.Hint = R;
    if (Error E = drainInflated(Off, Last, V))
      return E;
    if (Last)
      return Error::success();
  }
}

Error File::drainInflated(uint64_t Off, bool Last, Visitor &V) {
  Inflater &I = *Z;
  const uint8_t *B = I.Buf.data();
  size_t P = 0;
  // Errors name the record's byte in the stream and the compressed record.
  auto At = [&](uint64_t Pos) {
    InflatedPos = Pos;
    InflatedOff = Off;
    InflatedType = I.LastType;
  };
  while (true) {
    if (I.Skip) {
      uint64_t K = std::min<uint64_t>(I.Skip, I.Have - P);
      P += K;
      I.Skip -= K;
      if (I.Skip && Last) {
        // The payload runs past the compressed record that completed the
        // record: recordHeader's check, for a payload not all in hand then.
        At(I.SkipPos);
        Error E = fail(Off,
                       "record payload of {0} bytes (type {1}) runs past "
                       "the end of the compressed record's decompressed "
                       "data ({2} bytes left)",
                       I.SkipTotal, I.SkipType, I.SkipTotal - I.Skip);
        InflatedPos = ~uint64_t(0);
        return E;
      }
      if (I.Skip)
        break;
    }
    RecordHeader H;
    bool Whole;
    At(I.Pos + P);
    Error E = recordHeader(B + P, I.Have - P,
                           Last ? HeaderIn::StreamLastPart
                                : HeaderIn::StreamMore,
                           Off, H, Whole);
    if (!E && Whole)
      E = H.Type == RecCompressed || H.Type == RecCompressed2
              ? fail(Off, "a compressed record (type {0}) inside "
                          "compressed data",
                     H.Type)
              : dispatch(B + P, Off, H.Type, H.Misc, H.Size, V);
    InflatedPos = ~uint64_t(0);
    if (E)
      return E;
    if (!Whole)
      break; // the rest comes with the next compressed record
    if (H.Extra) {
      I.Skip = I.SkipTotal = H.Extra;
      I.SkipPos = I.Pos + P;
      I.SkipType = H.Type;
    }
    P += H.Size;
  }
  std::memmove(I.Buf.data(), B + P, I.Have - P);
  I.Have -= P;
  I.Pos += P;
  return Error::success();
}

Error File::dispatch(const uint8_t *Rec, uint64_t Off, uint32_t Type,
                     uint16_t Misc, uint64_t Size, Visitor &V) {
  auto Deliver = [&](const OrderedRecords::Entry &Q, ArrayRef<uint8_t> R) {
    return deliverQueued(Q, R, V);
  };
  if (Type == RecFinishedRound && !InFileOrder)
    if (Error E = Order.finishRound(Deliver))
      return E;
  uint64_t Time;
  if (InFileOrder || Type >= 64 || !recordTime(Rec, Type, Size, Time) ||
      Time == 0 || Time == ~uint64_t(0))
    return record(Rec, Off, Type, Misc, Size, V);
  OrderedRecords::Origin From;
  From.Offset = Off;
  From.StreamPos = InflatedPos;
  From.StreamType = InflatedType;
  return Order.push(Time, ArrayRef<uint8_t>(Rec, Size), From, Deliver);
}

bool File::recordTime(const uint8_t *Rec, uint32_t Type, uint64_t Size,
                      uint64_t &Time) const {
  const uint8_t *Body = Rec + 8;
  const uint64_t BodySize = Size - 8;
  if (Attrs.empty() || Type == 0 || Type >= 32)
    return false;
  auto Read = [&](uint64_t At) {
    if (At > BodySize || BodySize - At < 8)
      return false;
    Time = read64le(Body + At);
    return true;
  };
  auto AttrOf = [&](uint64_t Id) -> const Attr * {
    auto It = AttrById.find(Id);
    return It == AttrById.end() ? nullptr : &Attrs[It->second];
  };
  if (Type == PERF_RECORD_SAMPLE) {
    // identifier? ip? pid,tid? time?: as sample() finds the attr.
    const Attr *A = &Attrs[0];
    if (Attrs.size() > 1 && IdPosSample) {
      if (BodySize < uint64_t(IdPosSample) * 8 ||
          !(A = AttrOf(read64le(Body + (IdPosSample - 1) * 8))))
        return false;
    }
    const uint64_t ST = A->SampleType;
    if (!(ST & PERF_SAMPLE_TIME))
      return false;
    return Read(8 * uint64_t(llvm::popcount(
                        ST & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
                              PERF_SAMPLE_TID))));
  }
  // The sample_id trailer: pid,tid? time? ...
  if (!SampleIdAll)
    return false;
  uint64_t ST = SampleType;
  uint64_t TSize = TrailerSize;
  if (IdPosTrailer == ~0u) {
    const Attr *A = BodySize < 8 ? nullptr
                                 : AttrOf(read64le(Body + BodySize - 8));
    if (!A)
      return false;
    ST = A->SampleType;
    TSize = sampleIdTrailerSize(ST);
  }
  if (!(ST & PERF_SAMPLE_TIME) || TSize > BodySize)
    return false;
  return Read(BodySize - TSize + ((ST & PERF_SAMPLE_TID) ? 8 : 0));
}

Error File::deliverQueued(const OrderedRecords::Entry &E, ArrayRef<uint8_t> R,
                          Visitor &V) {
  // Errors name the record where it was in the file (or the stream), not
  // the record being read when the queue handed it out.
  const uint64_t Pos = InflatedPos, Off = InflatedOff;
  const uint32_t Type = InflatedType;
  InflatedPos = E.From.StreamPos;
  InflatedOff = E.From.Offset;
  InflatedType = E.From.StreamType;
  Error Err = record(R.data(), E.From.Offset, read32le(R.data()),
                     read16le(R.data() + 4), R.size(), V);
  InflatedPos = Pos;
  InflatedOff = Off;
  InflatedType = Type;
  return Err;
}

Error File::record(const uint8_t *B, uint64_t Off, uint32_t Type,
                   uint16_t Misc, uint64_t Size, Visitor &V) {
  const uint8_t *Body = B + 8;
  uint64_t BodySize = Size - 8;
  if (Type == PERF_RECORD_SAMPLE)
    return sample(Off, Misc, Body, BodySize, V);
  if (Type >= 64) {
    switch (Type) {
    case RecHeaderAttr:
      if (!Pipe)
        return fail(Off, "HEADER_ATTR record in a file-mode perf.data");
      return headerAttr(B, Off, Size);
    case RecBuildID:
      if (Pipe)
        return parseBuildIDs(B, Off, Size);
      V.skipped(Type);
      return Error::success();
    default:
      if (Type >= RecUserMax)
        return fail(Off, "unknown record type {0}", Type);
      V.skipped(Type);
      return Error::success();
    }
  }
  if (Type == 0 || Type >= 32)
    return fail(Off, "unknown record type {0}", Type);
  if (Attrs.empty())
    return fail(Off, "record before any event attribute (type {0})", Type);

  // The sample_id trailer.
  uint64_t ST = SampleType;
  unsigned TSize = SampleIdAll ? TrailerSize : 0;
  if (SampleIdAll && IdPosTrailer == ~0u) {
    if (BodySize < 8)
      return fail(Off, "record too short for its sample_id (type {0})", Type);
    uint64_t Id = read64le(Body + BodySize - 8);
    auto It = AttrById.find(Id);
    if (It == AttrById.end())
      return fail(Off, "sample_id names event id {0}, which no attr has", Id);
    ST = Attrs[It->second].SampleType;
    TSize = sampleIdTrailerSize(ST);
  }
  if (TSize > BodySize)
    return fail(Off, "record of {0} bytes is too short for its sample_id "
                     "trailer of {1} (type {2})",
                Size, TSize, Type);
  uint32_t TPid = 0, TTid = 0;
  uint64_t TTime = 0;
  if (TSize) {
    ByteCursor T(Body + BodySize - TSize, TSize);
    if (ST & PERF_SAMPLE_TID)
      T.u32(TPid), T.u32(TTid);
    if (ST & PERF_SAMPLE_TIME)
      T.u64(TTime);
  }
  (void)TPid, (void)TTid;
  ByteCursor C(Body, BodySize);
  const size_t StrEnd = BodySize - TSize; // strings end at the trailer
  auto Trunc = [&](const char *What) {
    return fail(Off, "truncated {0} record ({1} bytes)", What, Size);
  };
  switch (Type) {
  case PERF_RECORD_MMAP:
  case PERF_RECORD_MMAP2: {
    Mmap M;
    M.IsMmap2 = Type == PERF_RECORD_MMAP2;
    M.Misc = Misc;
    M.Time = TTime;
    M.Offset = Off;
    const char *What = M.IsMmap2 ? "MMAP2" : "MMAP";
    if (!C.u32(M.Pid) || !C.u32(M.Tid) || !C.u64(M.Start) ||
        !C.u64(M.Length) || !C.u64(M.PgOff))
      return Trunc(What);
    if (M.IsMmap2) {
      const uint8_t *Id = C.data();
      if (!C.skip(24) || !C.u32(M.Prot) || !C.u32(M.Flags))
        return Trunc(What);
      if (Misc & PERF_RECORD_MISC_MMAP_BUILD_ID)
        M.BuildID = hex(ArrayRef<uint8_t>(Id + 4, std::min<uint8_t>(Id[0], 20)));
    }
    if (!C.str(M.Path, StrEnd))
      return Trunc(What);
    return V.mmap(M);
  }
  case PERF_RECORD_COMM: {
    Comm Cm;
    Cm.Time = TTime;
    Cm.Exec = Misc & PERF_RECORD_MISC_COMM_EXEC;
    if (!C.u32(Cm.Pid) || !C.u32(Cm.Tid) || !C.str(Cm.Name, StrEnd))
      return Trunc("COMM");
    return V.comm(Cm);
  }
  case PERF_RECORD_FORK:
  case PERF_RECORD_EXIT: {
    Task T;
    T.Fork = Type == PERF_RECORD_FORK;
    if (!C.u32(T.Pid) || !C.u32(T.PPid) || !C.u32(T.Tid) || !C.u32(T.PTid) ||
        !C.u64(T.Time))
      return Trunc(T.Fork ? "FORK" : "EXIT");
    return V.task(T);
  }
  case PERF_RECORD_LOST: {
    uint64_t Id, N;
    if (!C.u64(Id) || !C.u64(N))
      return Trunc("LOST");
    V.lost(1, N);
    return Error::success();
  }
  case PERF_RECORD_LOST_SAMPLES: {
    uint64_t N;
    if (!C.u64(N))
      return Trunc("LOST_SAMPLES");
    V.lost(0, N);
    return Error::success();
  }
  default:
    V.skipped(Type);
    return Error::success();
  }
}

Error File::sample(uint64_t Off, uint16_t Misc, const uint8_t *Body,
                   uint64_t Size, Visitor &V) {
  if (Attrs.empty())
    return fail(Off, "sample before any event attribute");
  Sample S;
  S.Offset = Off;
  S.Misc = Misc;
  const Attr *A = &Attrs[0];
  if (Attrs.size() > 1 && IdPosSample) {
    if (Size < uint64_t(IdPosSample) * 8)
      return fail(Off, "truncated SAMPLE record: no room for its id");
    uint64_t Id = read64le(Body + (IdPosSample - 1) * 8);
    auto It = AttrById.find(Id);
    if (It == AttrById.end())
      return fail(Off, "sample of event id {0}, which no attr has", Id);
    A = &Attrs[It->second];
  }
  S.Event = A;
  const uint64_t ST = A->SampleType;
  ByteCursor C(Body, Size);
  uint64_t Skip;
  SampleFixedFields F;
  bool OK = readSampleFixedFields(C, ST, F);
  S.IP = F.IP, S.Time = F.Time, S.Addr = F.Addr, S.Id = F.Id;
  S.StreamId = F.StreamId, S.Period = F.Period;
  S.Pid = F.Pid, S.Tid = F.Tid, S.CPU = F.CPU;
  if (!OK)
    return fail(Off, "truncated SAMPLE record ({0} bytes): its fixed fields "
                     "need more",
                Size + 8);
  if (ST & PERF_SAMPLE_READ) {
    const uint64_t RF = A->ReadFormat;
    unsigned Stride = 8 * (1 + ((RF & PERF_FORMAT_ID) != 0) +
                           ((RF & PERF_FORMAT_LOST) != 0));
    S.ValueHasId = RF & PERF_FORMAT_ID;
    S.ValueStride = Stride;
    if (RF & PERF_FORMAT_GROUP) {
      S.GroupRead = true;
      uint64_t N;
      if (!C.u64(N))
        return fail(Off, "truncated SAMPLE record: no group read count");
      if ((RF & PERF_FORMAT_TOTAL_TIME_ENABLED) && !C.u64(Skip))
        return fail(Off, "truncated SAMPLE record: group read");
      if ((RF & PERF_FORMAT_TOTAL_TIME_RUNNING) && !C.u64(Skip))
        return fail(Off, "truncated SAMPLE record: group read");
      if (N > C.left() / Stride)
        return fail(Off, "SAMPLE group read of {0} values does not fit in "
                         "the record ({1} bytes left)",
                    N, C.left());
      S.NumValues = N;
      S.Values = C.data();
      C.skip(N * Stride);
    } else {
      // value, time_enabled?, time_running?, id?, lost?: the times sit
      // between value and id, so a single read is copied out.
      unsigned Times = ((RF & PERF_FORMAT_TOTAL_TIME_ENABLED) != 0) +
                       ((RF & PERF_FORMAT_TOTAL_TIME_RUNNING) != 0);
      uint64_t Need = Stride + 8 * Times;
      if (C.left() < Need)
        return fail(Off, "truncated SAMPLE record: read value");
      S.NumValues = 1;
      S.Values = C.data();
      if (S.ValueHasId)
        S.SingleId = read64le(C.data() + 8 + 8 * Times);
      C.skip(Need);
    }
  }
  if (ST & PERF_SAMPLE_CALLCHAIN) {
    uint64_t N;
    if (!C.u64(N) || N > C.left() / 8)
      return fail(Off, "truncated SAMPLE record: callchain");
    S.HasCallChain = true;
    S.NumCallChain = N;
    S.CallChain = C.data();
    C.skip(N * 8);
  }
  if (ST & PERF_SAMPLE_RAW) {
    uint32_t N;
    if (!C.u32(N) || !C.skip(N))
      return fail(Off, "truncated SAMPLE record: raw data");
  }
  if (ST & PERF_SAMPLE_BRANCH_STACK) {
    uint64_t N;
    if (!C.u64(N))
      return fail(Off, "truncated SAMPLE record: no branch stack count");
    S.HasBranchStack = true;
    if (A->BranchSampleType & PERF_SAMPLE_BRANCH_HW_INDEX) {
      S.HasHwIdx = true;
      if (!C.u64(S.HwIdx))
        return fail(Off, "truncated SAMPLE record: no branch stack hw_idx");
    }
    if (N > C.left() / 24)
      return fail(Off, "SAMPLE branch stack of {0} entries does not fit in "
                       "the record ({1} bytes left)",
                  N, C.left());
    S.NumBranches = N;
    S.Branches = C.data();
    C.skip(N * 24);
    if ((ST & SampleBranchCountersBit) &&
        (A->BranchSampleType & BranchCountersBit) && !C.skip(N * 8))
      return fail(Off, "truncated SAMPLE record: branch counters");
  }
  return V.sample(S);
}

} // namespace perfdata
} // namespace keel
