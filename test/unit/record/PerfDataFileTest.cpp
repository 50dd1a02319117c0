//===- PerfDataFileTest.cpp - perf.data reader on byte fixtures -----------===//
//
// The reader (keel/Profile/PerfData.h) on small files built byte by byte
// here, on corrupted and truncated copies of them and of writer output:
// every malformed input is an error naming the byte offset, never a crash
// or a read past the buffer (the sanitizer build runs these too). And the
// writer's round trip.
//
//===----------------------------------------------------------------------===//
#include "keel/Profile/Formats.h"
#include "keel/Profile/PerfData.h"
#include "keel/Record/PerfDataFile.h"

#include "TestErrors.h"
#include "gtest/gtest.h"

#include "llvm/Support/Endian.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <linux/perf_event.h>

#include <cstring>
#include <random>
#include <zstd.h>

using namespace keel;
using namespace llvm;
using keel::test::errText;

namespace {

/// Little-endian byte builder.
struct Bytes {
  std::string B;
  Bytes &u64(uint64_t V) {
    char T[8];
    support::endian::write64le(T, V);
    B.append(T, 8);
    return *this;
  }
  Bytes &u32(uint32_t V) {
    char T[4];
    support::endian::write32le(T, V);
    B.append(T, 4);
    return *this;
  }
  Bytes &u16(uint16_t V) {
    char T[2];
    support::endian::write16le(T, V);
    B.append(T, 2);
    return *this;
  }
  Bytes &str8(StringRef S) { // NUL-terminated, padded to 8
    B.append(S.data(), S.size());
    B.append(8 - S.size() % 8, '\0');
    return *this;
  }
  Bytes &raw(const std::string &S) {
    B += S;
    return *this;
  }
  size_t size() const { return B.size(); }
};

constexpr uint64_t ST = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                        PERF_SAMPLE_BRANCH_STACK;
constexpr uint64_t AttrBytes = 128; // PERF_ATTR_SIZE_VER7

std::string attr(uint64_t SampleType, uint64_t BranchType) {
  perf_event_attr A;
  std::memset(&A, 0, sizeof(A));
  A.size = sizeof(A);
  A.type = PERF_TYPE_HARDWARE;
  A.config = PERF_COUNT_HW_CPU_CYCLES;
  A.sample_period = 1000;
  A.sample_type = SampleType;
  A.branch_sample_type = BranchType;
  A.sample_id_all = 1;
  return std::string(reinterpret_cast<const char *>(&A), sizeof(A));
}

/// The data section of the fixture: MMAP2, COMM, one SAMPLE with hw_idx
/// and two branch entries. Trailer (sample_id_all): pid,tid + time.
std::string dataRecords() {
  Bytes D;
  // MMAP2: 8 header + 4*2 + 8*3 + 24 + 4*2 + name(8) + trailer 16 = 96
  D.u32(PERF_RECORD_MMAP2).u16(PERF_RECORD_MISC_USER).u16(96);
  D.u32(7).u32(7).u64(0x400000).u64(0x1000).u64(0);
  D.u64(0).u64(0).u64(0); // maj,min,ino,ino_gen
  D.u32(5).u32(2).str8("/a/b");
  D.u32(7).u32(7).u64(1);
  // COMM: 8 + 8 + name(8) + 16 = 40
  D.u32(PERF_RECORD_COMM).u16(0).u16(40);
  D.u32(7).u32(7).str8("prog");
  D.u32(7).u32(7).u64(1);
  // SAMPLE: 8 + ip 8 + pid/tid 8 + time 8 + nr 8 + hw_idx 8 + 2*24 = 96
  D.u32(PERF_RECORD_SAMPLE).u16(PERF_RECORD_MISC_USER).u16(96);
  D.u64(0x401010).u32(7).u32(8).u64(5);
  D.u64(2).u64(1);
  D.u64(0x401020).u64(0x401000).u64(1 | (uint64_t(12) << 4) |
                                    (uint64_t(1) << 20)); // M, 12 cyc, COND
  D.u64(0x401008).u64(0x401018).u64(2); // P
  return D.B;
}

/// A whole file-mode perf.data: header, one attr with one id, data.
std::string fixture() {
  std::string Data = dataRecords();
  const uint64_t AttrOff = 104, IdsOff = AttrOff + AttrBytes + 16,
                 DataOff = IdsOff + 8;
  Bytes F;
  F.u64(perfdata::Magic).u64(104).u64(AttrBytes + 16);
  F.u64(AttrOff).u64(AttrBytes + 16);
  F.u64(DataOff).u64(Data.size());
  F.u64(0).u64(0);
  F.u64(0).u64(0).u64(0).u64(0); // no features
  F.raw(attr(ST, PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX));
  F.u64(IdsOff).u64(8);
  F.u64(42);
  F.raw(Data);
  return F.B;
}
constexpr uint64_t DataOffset = 104 + AttrBytes + 16 + 8;

struct Collect : perfdata::Visitor {
  std::vector<std::string> Log;
  Error sample(const perfdata::Sample &S) override {
    std::string L;
    raw_string_ostream OS(L);
    OS << "sample @" << S.Offset << " ip " << format_hex(S.IP, 0) << " "
       << S.Pid << "/" << S.Tid << " t" << S.Time << " hw_idx " << S.HwIdx;
    for (uint64_t I = 0; I < S.NumBranches; ++I) {
      perfdata::Branch B = S.branch(I);
      OS << " " << format_hex(B.From, 0) << "/" << format_hex(B.To, 0) << "/"
         << (B.mispred() ? 'M' : B.predicted() ? 'P' : '-') << "/"
         << B.cycles() << "/"
         << perfdata::branchTypeName(B.type(), B.newType());
    }
    Log.push_back(OS.str());
    return Error::success();
  }
  Error mmap(const perfdata::Mmap &M) override {
    Log.push_back(formatv("mmap {0} {1:x} {2:x} {3} exec={4} t{5}", M.Pid,
                          M.Start, M.Length, M.Path, M.executable(), M.Time)
                      .str());
    return Error::success();
  }
  Error comm(const perfdata::Comm &C) override {
    Log.push_back(formatv("comm {0} {1}", C.Pid, C.Name).str());
    return Error::success();
  }
};

std::string readAll(const std::string &Bytes, Collect *Out = nullptr) {
  auto F = perfdata::File::fromBuffer(
      MemoryBuffer::getMemBufferCopy(Bytes, "fixture"), "f.perf.data");
  if (!F)
    return errText(F.takeError());
  Collect C;
  std::string E = errText((*F)->read(C));
  if (Out)
    *Out = std::move(C);
  return E;
}

void put16(std::string &S, size_t At, uint16_t V) {
  support::endian::write16le(&S[At], V);
}
void put32(std::string &S, size_t At, uint32_t V) {
  support::endian::write32le(&S[At], V);
}
void put64(std::string &S, size_t At, uint64_t V) {
  support::endian::write64le(&S[At], V);
}

TEST(PerfDataReader, ReadsTheFixture) {
  Collect C;
  ASSERT_EQ(readAll(fixture(), &C), "");
  ASSERT_EQ(C.Log.size(), 3u);
  EXPECT_EQ(C.Log[0], "mmap 7 0x400000 0x1000 /a/b exec=true t1");
  EXPECT_EQ(C.Log[1], "comm 7 prog");
  EXPECT_EQ(C.Log[2], "sample @" + std::to_string(DataOffset + 136) +
                          " ip 0x401010 7/8 t5 hw_idx 1 "
                          "0x401020/0x401000/M/12/COND "
                          "0x401008/0x401018/P/0/");
}

TEST(PerfDataReader, OtherEndianness) {
  std::string F = fixture();
  std::memcpy(&F[0], "2ELIFREP", 8);
  std::string E = readAll(F);
  EXPECT_NE(E.find("f.perf.data: byte 0: perf.data of the other "
                   "endianness"),
            std::string::npos)
      << E;
}

TEST(PerfDataReader, NotPerfData) {
  EXPECT_NE(readAll("PERFILE1xxxxxxxxxxxxxxxx").find("byte 0: not a "
                                                     "perf.data file"),
            std::string::npos);
  EXPECT_NE(readAll("PERF").find("byte 0: truncated perf.data "
                                 "header"),
            std::string::npos);
}

TEST(PerfDataReader, RecordOverrunsTheFile) {
  std::string F = fixture();
  size_t Sample = DataOffset + 136;
  put16(F, Sample + 6, 0xff00);
  std::string E = readAll(F);
  EXPECT_NE(E.find("byte " + std::to_string(Sample) +
                   ": record of 65280 bytes (type 9) runs past the end of "
                   "the data section"),
            std::string::npos)
      << E;
}

TEST(PerfDataReader, RecordSmallerThanItsHeader) {
  std::string F = fixture();
  put16(F, DataOffset + 6, 4);
  std::string E = readAll(F);
  EXPECT_NE(E.find("byte " + std::to_string(DataOffset) +
                   ": record size 4 is smaller than its header"),
            std::string::npos)
      << E;
}

TEST(PerfDataReader, UnknownRecordType) {
  std::string F = fixture();
  put32(F, DataOffset + 96, 200); // the COMM record
  std::string E = readAll(F);
  EXPECT_NE(E.find("byte " + std::to_string(DataOffset + 96) +
                   ": unknown record type 200"),
            std::string::npos)
      << E;
}

TEST(PerfDataReader, BranchStackLargerThanTheRecord) {
  std::string F = fixture();
  size_t Sample = DataOffset + 136;
  put64(F, Sample + 8 + 24, 3); // nr = 3 entries, room for 2
  std::string E = readAll(F);
  EXPECT_NE(E.find("byte " + std::to_string(Sample) +
                   ": SAMPLE branch stack of 3 entries does not fit"),
            std::string::npos)
      << E;
  put64(F, Sample + 8 + 24, ~0ULL); // no overflow in the size check
  EXPECT_NE(readAll(F).find("does not fit"), std::string::npos);
}

TEST(PerfDataReader, TrailerLargerThanTheRecord) {
  std::string F = fixture();
  put16(F, DataOffset + 96 + 6, 16); // COMM of 16 bytes, trailer is 16
  std::string E = readAll(F);
  EXPECT_NE(E.find("byte " + std::to_string(DataOffset + 96) +
                   ": record of 16 bytes is too short for its sample_id "
                   "trailer of 16 (type 3)"),
            std::string::npos)
      << E;
}

TEST(PerfDataReader, SectionsPastTheEnd) {
  std::string F = fixture();
  put64(F, 48, F.size()); // data size
  std::string E = readAll(F);
  EXPECT_NE(E.find("byte 40: the data section"), std::string::npos)
      << E;
  F = fixture();
  put64(F, 24, 1u << 30); // attrs offset
  E = readAll(F);
  EXPECT_NE(E.find("byte 24: the attrs section"), std::string::npos)
      << E;
  F = fixture();
  put64(F, 104 + AttrBytes + 8, 800); // ids size
  E = readAll(F);
  EXPECT_NE(E.find("byte " + std::to_string(104 + AttrBytes) +
                   ": the ids of attr 0"),
            std::string::npos)
      << E;
}

TEST(PerfDataReader, FeatureTableTruncated) {
  std::string F = fixture();
  F[72] = 1 << 2; // HEADER_BUILD_ID, but no section table after the data
  std::string E = readAll(F);
  EXPECT_NE(E.find("byte " + std::to_string(F.size()) +
                   ": truncated feature section table (feature 2)"),
            std::string::npos)
      << E;
}

/// \p Chunks compressed as perf record -z writes them: one zstd
/// stream, flushed at the end of every chunk, each flush one COMPRESSED (or
/// COMPRESSED2, padded to 8 bytes) record. compressedFile: a file-mode
/// perf.data (the fixture's header and attr) with them as its data section.
std::string compressedData(const std::vector<std::string> &Chunks,
                           bool Two = false) {
  std::unique_ptr<ZSTD_CStream, size_t (*)(ZSTD_CStream *)> C(
      ZSTD_createCStream(), ZSTD_freeCStream);
  size_t R = ZSTD_CCtx_setParameter(C.get(), ZSTD_c_compressionLevel, 1);
  EXPECT_FALSE(ZSTD_isError(R)) << ZSTD_getErrorName(R);
  Bytes D;
  for (const std::string &Chunk : Chunks) {
    std::string Buf(ZSTD_compressBound(Chunk.size()) + 64, '\0');
    ZSTD_inBuffer In{Chunk.data(), Chunk.size(), 0};
    ZSTD_outBuffer Out{Buf.data(), Buf.size(), 0};
    // Until the chunk is flushed (0); an error code ends the loop too (a
    // failing zstd must fail the test, not hang it).
    while ((R = ZSTD_compressStream2(C.get(), &Out, &In, ZSTD_e_flush)) &&
           !ZSTD_isError(R))
      ;
    EXPECT_FALSE(ZSTD_isError(R)) << ZSTD_getErrorName(R);
    std::string Payload(Buf.data(), Out.pos);
    if (Two) {
      size_t Padded = alignTo(Payload.size(), 8);
      D.u32(perfdata::RecCompressed2).u16(0).u16(16 + Padded);
      D.u64(Payload.size()).raw(Payload);
      D.B.append(Padded - Payload.size(), '\0');
    } else {
      D.u32(perfdata::RecCompressed).u16(0).u16(8 + Payload.size());
      D.raw(Payload);
    }
  }
  return D.B;
}
std::string compressedFile(const std::vector<std::string> &Chunks,
                           bool Two = false) {
  std::string D = compressedData(Chunks, Two);
  std::string F = fixture().substr(0, DataOffset) + D;
  put64(F, 48, D.size());
  return F;
}

/// The fixture with its data section as compressed records, one per
/// \p Chunk bytes of records. Records straddle them when \p Chunk does not
/// fall on record boundaries.
std::string compressedFixture(size_t Chunk, bool Two = false) {
  std::string Data = dataRecords();
  std::vector<std::string> Chunks;
  for (size_t At = 0; At < Data.size(); At += Chunk)
    Chunks.push_back(Data.substr(At, Chunk));
  return compressedFile(Chunks, Two);
}

/// The log without the sample's offset (which names the compressed record
/// it came out of).
std::vector<std::string> withoutOffsets(std::vector<std::string> Log) {
  for (std::string &L : Log)
    if (StringRef(L).starts_with("sample @"))
      L = "sample" + L.substr(L.find(' ', 8));
  return Log;
}

TEST(PerfDataReader, CompressedRecords) {
  Collect Plain;
  ASSERT_EQ(readAll(fixture(), &Plain), "");
  // One record per chunk, chunks across record boundaries, one chunk.
  for (size_t Chunk : {size_t(1), size_t(7), size_t(50), size_t(96),
                       size_t(4096)})
    for (bool Two : {false, true}) {
      Collect C;
      ASSERT_EQ(readAll(compressedFixture(Chunk, Two), &C), "")
          << Chunk << " " << Two;
      EXPECT_EQ(withoutOffsets(C.Log), withoutOffsets(Plain.Log))
          << Chunk << " " << Two;
    }
  // Read twice: a fresh stream each time.
  auto F = perfdata::File::fromBuffer(
      MemoryBuffer::getMemBufferCopy(compressedFixture(50), "fixture"),
      "f.perf.data");
  ASSERT_TRUE(bool(F));
  for (int I = 0; I < 2; ++I) {
    Collect C;
    ASSERT_EQ(errText((*F)->read(C)), "");
    EXPECT_EQ(C.Log.size(), 3u);
    EXPECT_EQ((*F)->compressedRecords(), 5u); // 232 bytes in chunks of 50
  }
}

TEST(PerfDataReader, CorruptCompressedPayload) {
  // A plain record's bytes taken as a compressed payload: no zstd frame.
  std::string F = fixture();
  put32(F, DataOffset, perfdata::RecCompressed);
  std::string E = readAll(F);
  EXPECT_NE(E.find("byte " + std::to_string(DataOffset) +
                   ": corrupt ZSTD-compressed payload (88 bytes; zstd "
                   "stopped at byte 0 of it): "),
            std::string::npos)
      << E;
  // COMPRESSED2 whose data_size overruns the record.
  F = compressedFixture(4096, /*Two=*/true);
  put64(F, DataOffset + 8, 1000);
  E = readAll(F);
  EXPECT_NE(E.find("byte " + std::to_string(DataOffset) +
                   ": COMPRESSED2 record of "),
            std::string::npos)
      << E;
}

TEST(PerfDataReader, TruncatedCompressedPayload) {
  // The last compressed record cut short by 1 byte up to all but one of
  // its payload: always an error naming that record, never a silent loss.
  const std::string Good = compressedFixture(100);
  // Find the last record.
  size_t At = DataOffset, Last = At;
  while (At < Good.size()) {
    Last = At;
    At += support::endian::read16le(&Good[At + 6]);
  }
  size_t Payload = Good.size() - Last - 8;
  ASSERT_GT(Payload, 4u);
  for (size_t Cut = 1; Cut < Payload; ++Cut) {
    std::string F = Good.substr(0, Good.size() - Cut);
    put16(F, Last + 6, uint16_t(8 + Payload - Cut));
    put64(F, 48, F.size() - DataOffset);
    std::string E = readAll(F);
    EXPECT_NE(E.find("f.perf.data: byte " + std::to_string(Last) +
                     ": "),
              std::string::npos)
        << "cut " << Cut << ": '" << E << "'";
    EXPECT_NE(E.find("truncated compressed payload"), std::string::npos)
        << "cut " << Cut << ": '" << E << "'";
  }
}

/// PERF_RECORD_AUXTRACE (48 bytes) saying that \p PayloadSize bytes of
/// trace data follow it.
std::string auxtrace(uint64_t PayloadSize) {
  Bytes A;
  A.u32(perfdata::RecAuxtrace).u16(0).u16(48);
  A.u64(PayloadSize).u64(0).u64(0).u32(0).u32(7).u32(0).u32(0);
  return A.B;
}

TEST(PerfDataReader, AuxtracePayload) {
  // In the data section: skipped with its payload; a payload past the
  // end of the section is an error naming the record.
  std::string Data = auxtrace(16) + std::string(16, 'x') + dataRecords();
  std::string F = fixture().substr(0, DataOffset) + Data;
  put64(F, 48, Data.size());
  Collect C;
  ASSERT_EQ(readAll(F, &C), "");
  EXPECT_EQ(C.Log.size(), 3u);
  put64(F, DataOffset + 8, Data.size() - 48 + 1);
  std::string E = readAll(F);
  EXPECT_NE(E.find("byte " + std::to_string(DataOffset) +
                   ": record payload of 249 bytes (type 71) runs past the "
                   "end of the data section (248 bytes left)"),
            std::string::npos)
      << E;
}

TEST(PerfDataReader, AuxtracePayloadInCompressedRecords) {
  // Payload inside the compressed record, up to its very end: skipped.
  for (std::vector<std::string> Chunks :
       {std::vector<std::string>{auxtrace(16) + std::string(16, 'x') +
                                 dataRecords()},
        std::vector<std::string>{auxtrace(16) + std::string(16, 'x'),
                                 dataRecords()}}) {
    Collect C;
    ASSERT_EQ(readAll(compressedFile(Chunks), &C), "");
    EXPECT_EQ(C.Log.size(), 3u);
  }
  // A payload past the end of the decompressed bytes of the compressed
  // record that holds the AUXTRACE record. perf's reader (session.c) adds
  // the payload size to its position in that record's decompressed buffer
  // and does not carry it to the next one; taking the next compressed
  // record's bytes as the payload would drop its records (here the MMAP2)
  // without a word. An error naming the record.
  for (uint64_t Payload : {uint64_t(1), uint64_t(96), uint64_t(1) << 40}) {
    std::string F = compressedFile({auxtrace(Payload), dataRecords()});
    Collect C;
    std::string E = readAll(F, &C);
    EXPECT_NE(E.find("f.perf.data: byte " +
                     std::to_string(DataOffset) +
                     " (the COMPRESSED record there), byte 0 of the "
                     "decompressed stream: record payload of " +
                     std::to_string(Payload) +
                     " bytes (type 71) runs past the end of the compressed "
                     "record's decompressed data (0 bytes left)"),
              std::string::npos)
        << Payload << ": '" << E << "'";
  }
  // A payload larger than the stream's output buffer (ZSTD_DStreamOutSize,
  // 128 KiB): skipped as it comes out, within its compressed record; one
  // byte more is an error naming the AUXTRACE record, not where the
  // compressed record's data ended.
  const size_t Big = 300000;
  {
    Collect C;
    ASSERT_EQ(readAll(compressedFile({auxtrace(Big) + std::string(Big, '\0'),
                                      dataRecords()}),
                      &C),
              "");
    EXPECT_EQ(C.Log.size(), 3u);
  }
  std::string F = compressedFile(
      {dataRecords() + auxtrace(Big + 1) + std::string(Big, '\0'),
       dataRecords()});
  std::string E = readAll(F);
  EXPECT_EQ(E, "f.perf.data: byte " + std::to_string(DataOffset) +
                   " (the COMPRESSED record there), byte 232 of the "
                   "decompressed stream: record payload of 300001 bytes (type "
                   "71) runs past the end of the compressed record's "
                   "decompressed data (300000 bytes left)")
      << E;
}

TEST(PerfDataReader, RecordsAcrossCompressedRecords) {
  // perf's reader carries the bytes of an incomplete record over to the
  // next compressed record's decompressed buffer (session.c), so a record
  // may end exactly at the end of a compressed record's data, or one byte
  // (or any number) past it, or have its header cut there.
  Collect Plain;
  ASSERT_EQ(readAll(fixture(), &Plain), "");
  std::string Data = dataRecords();
  for (size_t Cut : {size_t(95), size_t(96), size_t(97), size_t(100),
                     size_t(103), size_t(104), Data.size() - 1}) {
    Collect C;
    ASSERT_EQ(readAll(compressedFile({Data.substr(0, Cut), Data.substr(Cut)}),
                      &C),
              "")
        << Cut;
    EXPECT_EQ(withoutOffsets(C.Log), withoutOffsets(Plain.Log)) << Cut;
  }
  // Ending one byte short, or with the header of another record: the last
  // compressed record's data ends inside a record.
  for (std::string Short : {Data.substr(0, Data.size() - 1),
                            Data + Data.substr(0, 7), Data + Data.substr(0, 9)}) {
    std::string F = compressedFile({Short});
    std::string E = readAll(F);
    EXPECT_NE(E.find("f.perf.data: byte " +
                     std::to_string(DataOffset) +
                     ": the ZSTD-compressed records end inside a record"),
              std::string::npos)
        << Short.size() << ": '" << E << "'";
  }
}

TEST(PerfDataProfile, EverySampleCountedOnceAnyAddress) {
  // readPerfData counts a sample one sample late (after prefetching its
  // table slots) and flushes the last at the end: three samples, each
  // entry counted three times. Without a binary every address is kept,
  // ~0 too: the entry ~0 -> ~0 is a branch like any other (the tables'
  // key (~0, ~0) is stored beside their slots), with the fall-through from
  // the older entry's target up to it.
  std::string Data = dataRecords();
  std::string Sample = Data.substr(136);
  put64(Sample, 8 + 40, ~0ULL);     // entry 0: from
  put64(Sample, 8 + 40 + 8, ~0ULL); // and to
  Data = Data.substr(0, 136) + Sample + Sample + Sample;
  std::string F = fixture().substr(0, DataOffset) + Data;
  put64(F, 48, Data.size());
  auto File = perfdata::File::fromBuffer(
      MemoryBuffer::getMemBufferCopy(F, "fixture"), "f.perf.data");
  ASSERT_TRUE(bool(File)) << errText(File.takeError());
  QualityReport Q;
  auto AP = readPerfData(**File, nullptr, Q);
  ASSERT_TRUE(bool(AP)) << errText(AP.takeError());
  EXPECT_EQ(AP->Branches.size(), 2u);
  EXPECT_EQ(AP->Branches.at({~0ULL, ~0ULL}), (BranchCount{3, 3}));
  EXPECT_EQ(AP->Branches.at({0x401008, 0x401018}), (BranchCount{3, 0}));
  EXPECT_EQ(AP->FallThroughs.size(), 1u);
  EXPECT_EQ(AP->FallThroughs.at({0x401018, ~0ULL}), 3u);
  // The perf script text of the same samples gives the same profile.
  std::string Text;
  for (int I = 0; I < 3; ++I)
    Text += "7/8 0x401010 0xffffffffffffffff/0xffffffffffffffff/M/-/-/12 "
            "0x401008/0x401018/P/-/-/0\n";
  auto TP = readPerfScript(Text, "t.perf", nullptr, Q);
  ASSERT_TRUE(bool(TP)) << errText(TP.takeError());
  EXPECT_EQ(TP->Branches, AP->Branches);
  EXPECT_EQ(TP->FallThroughs, AP->FallThroughs);
}

TEST(PerfDataReader, EveryTruncationIsAnError) {
  std::string F = fixture();
  for (size_t N = 0; N < F.size(); ++N) {
    std::string E = readAll(F.substr(0, N));
    EXPECT_NE(E.find("f.perf.data: byte "), std::string::npos)
        << "prefix " << N << ": '" << E << "'";
  }
}

TEST(PerfDataReader, PipeMode) {
  Bytes P;
  P.u64(perfdata::Magic).u64(16);
  // HEADER_ATTR: header, attr, one id.
  P.u32(perfdata::RecHeaderAttr).u16(0).u16(8 + AttrBytes + 8);
  P.raw(attr(ST, PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX));
  P.u64(42);
  P.raw(dataRecords());
  Collect C;
  ASSERT_EQ(readAll(P.B, &C), "");
  ASSERT_EQ(C.Log.size(), 3u);
  EXPECT_EQ(C.Log[1], "comm 7 prog");
  // A sample before any attr.
  Bytes Q;
  Q.u64(perfdata::Magic).u64(16).raw(dataRecords());
  EXPECT_NE(readAll(Q.B).find("byte 16: record before any event "
                              "attribute"),
            std::string::npos);
}

/// A pipe-mode HEADER_ATTR record: the fixture's attr, with sample_id_all
/// \p IdAll, and one id.
std::string headerAttr(bool IdAll, uint64_t Id) {
  std::string A = attr(ST, PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX);
  if (!IdAll)
    A[42] &= ~(1 << 2); // sample_id_all: bit 18 of the u64 flags at byte 40
  Bytes P;
  P.u32(perfdata::RecHeaderAttr).u16(0).u16(8 + AttrBytes + 8);
  P.raw(A).u64(Id);
  return P.B;
}

TEST(PerfDataReader, ErrorsInsideCompressedPipeRecords) {
  // Errors in a record that came out of the zstd stream name the
  // compressed record and the record's byte in the decompressed stream,
  // not a sum of the two. A pipe-mode file: attrs and build ids are
  // records, here compressed.
  auto Pipe = [](const std::vector<std::string> &Chunks) {
    Bytes P;
    P.u64(perfdata::Magic).u64(16).raw(compressedData(Chunks));
    return P.B;
  };
  const std::string Attr = headerAttr(true, 42);
  ASSERT_EQ(Attr.size(), 8 + AttrBytes + 8);
  {
    Collect C;
    ASSERT_EQ(readAll(Pipe({Attr, dataRecords()}), &C), "");
    EXPECT_EQ(C.Log.size(), 3u);
  }
  // A second attr that disagrees on sample_id_all: the error is at that
  // attr record, byte 144 of the stream, in the second compressed record
  // (at 16 + the first's size).
  std::string Two = Pipe({Attr, headerAttr(false, 43)});
  size_t Second = 16 + support::endian::read16le(&Two[16 + 6]);
  std::string E = readAll(Two);
  EXPECT_EQ(E, "f.perf.data: byte " + std::to_string(Second) +
                   " (the COMPRESSED record there), byte 144 of the "
                   "decompressed stream: events disagree on sample_id_all")
      << E;
  // An attr record whose attr size is larger than the record.
  std::string Bad = Attr;
  put32(Bad, 8 + 4, AttrBytes + 16);
  E = readAll(Pipe({Attr, Bad}));
  EXPECT_NE(E.find(" (the COMPRESSED record there), byte 144 of the "
                   "decompressed stream: HEADER_ATTR record of 144 bytes "
                   "holds an attr of 144"),
            std::string::npos)
      << E;
  // A HEADER_BUILD_ID record too short for its entry, after the attr, in
  // one COMPRESSED2 record at byte 16.
  Bytes BId;
  BId.u32(perfdata::RecBuildID).u16(0).u16(32).u32(7).raw(std::string(20, 'x'));
  Bytes P;
  P.u64(perfdata::Magic).u64(16).raw(compressedData({Attr + BId.B}, true));
  E = readAll(P.B);
  EXPECT_EQ(E, "f.perf.data: byte 16 (the COMPRESSED2 record "
               "there), byte 144 of the decompressed stream: truncated "
               "HEADER_BUILD_ID entry")
      << E;
  // A sample whose branch stack does not fit, at byte 144 + 136 of the
  // stream, in the second compressed record.
  std::string Data = dataRecords();
  put64(Data, 136 + 8 + 24, 3);
  std::string F = Pipe({Attr, Data});
  E = readAll(F);
  EXPECT_EQ(E, "f.perf.data: byte " +
                   std::to_string(16 + support::endian::read16le(&F[16 + 6])) +
                   " (the COMPRESSED record there), byte 280 of the "
                   "decompressed stream: SAMPLE branch stack of 3 entries does "
                   "not fit in the record (48 bytes left)")
      << E;
}

PerfRecording recording() {
  PerfRecording R;
  R.Info.Command = {"./prog", "arg"};
  R.Info.Event = "instructions";
  R.Info.CyclesEvent = "cycles";
  R.Info.InstructionsEvent = "instructions";
  R.Info.Period = 5000;
  R.Info.LBR = "any,user";
  R.Stats.LostRecords = 1;
  R.Stats.LostEvents = 3;
  Mapping M;
  M.Pid = M.Tid = 10;
  M.Start = 0x555555554000;
  M.Length = 0x3000;
  M.PgOff = 0x1000;
  M.Prot = 5;
  M.BuildID = "00112233445566778899aabbccddeeff00112233";
  M.Path = "/bin/prog";
  R.Mappings.push_back(M);
  TaskEvent T;
  T.Pid = T.Tid = 10;
  T.Name = "prog";
  T.Exec = true;
  R.Tasks.push_back(T);
  for (unsigned I = 0; I < 5; ++I) {
    RecordedSample S;
    S.Sample.Pid = 10;
    S.Sample.Tid = 10 + I % 2;
    S.Sample.Time = 100 + I;
    S.Sample.IP = 0x555555555000 + I;
    S.Sample.Event = "instructions";
    S.Sample.Cycles = 7000 + I;
    S.Sample.Instructions = 5000;
    S.Period = 5000;
    S.CPU = I % 3;
    for (unsigned J = 0; J < 3; ++J) {
      LBREntry E;
      E.From = 0x555555555100 + J;
      E.To = 0x555555555200 + J;
      E.Mispred = J == 1;
      E.Predicted = J != 1;
      E.Cycles = 3 * J;
      E.Type = J == 2 ? "CALL" : "COND";
      S.Sample.Stack.push_back(E);
    }
    R.Samples.push_back(S);
  }
  return R;
}

std::string written(const PerfRecording &R, PerfDataWriteOptions O = {}) {
  std::string Out;
  raw_string_ostream OS(Out);
  EXPECT_EQ(errText(writePerfData(R, OS, O)), "");
  return OS.str();
}

Expected<PerfRecording> readBack(const std::string &Bytes) {
  auto F = perfdata::File::fromBuffer(
      MemoryBuffer::getMemBufferCopy(Bytes, "w"), "w.perf.data");
  if (!F)
    return F.takeError();
  return readPerfDataRecording(**F);
}

void expectSame(const PerfRecording &A, const PerfRecording &B) {
  EXPECT_EQ(A.Info.Command, B.Info.Command);
  EXPECT_EQ(A.Info.Event, B.Info.Event);
  EXPECT_EQ(A.Info.CyclesEvent, B.Info.CyclesEvent);
  EXPECT_EQ(A.Info.Period, B.Info.Period);
  EXPECT_EQ(A.Info.LBR, B.Info.LBR);
  EXPECT_EQ(A.Stats.LostEvents, B.Stats.LostEvents);
  ASSERT_EQ(A.Mappings.size(), B.Mappings.size());
  EXPECT_EQ(A.Mappings[0].BuildID, B.Mappings[0].BuildID);
  EXPECT_EQ(A.Mappings[0].Start, B.Mappings[0].Start);
  ASSERT_EQ(A.Samples.size(), B.Samples.size());
  for (size_t I = 0; I < A.Samples.size(); ++I) {
    const RawSample &X = A.Samples[I].Sample, &Y = B.Samples[I].Sample;
    EXPECT_EQ(X.IP, Y.IP);
    EXPECT_EQ(X.Tid, Y.Tid);
    EXPECT_EQ(X.Cycles, Y.Cycles) << I;
    EXPECT_EQ(X.Instructions, Y.Instructions) << I;
    EXPECT_EQ(A.Samples[I].CPU, B.Samples[I].CPU);
    ASSERT_EQ(X.Stack.size(), Y.Stack.size());
    for (size_t J = 0; J < X.Stack.size(); ++J) {
      EXPECT_EQ(X.Stack[J].From, Y.Stack[J].From);
      EXPECT_EQ(X.Stack[J].Mispred, Y.Stack[J].Mispred);
      EXPECT_EQ(X.Stack[J].Cycles, Y.Stack[J].Cycles);
      EXPECT_EQ(X.Stack[J].Type, Y.Stack[J].Type);
    }
  }
}

TEST(PerfDataWriter, RoundTripsFileAndPipeMode) {
  PerfRecording R = recording();
  for (bool Pipe : {false, true})
    for (bool HwIdx : {false, true}) {
      PerfDataWriteOptions O;
      O.Pipe = Pipe;
      O.HwIndex = HwIdx;
      std::string W = written(R, O);
      auto Back = readBack(W);
      ASSERT_TRUE(bool(Back)) << errText(Back.takeError());
      if (Pipe) // pipe mode has no feature sections: no command line
        Back->Info.Command = R.Info.Command;
      expectSame(R, *Back);
      EXPECT_EQ(W, written(R, O)); // deterministic
    }
}

/// What a visitor sees of \p W, without offsets; in file order or in time
/// order (the default).
std::vector<std::string> seen(const std::string &W, bool FileOrder,
                              uint64_t Limit = 0) {
  auto F = perfdata::File::fromBuffer(
      MemoryBuffer::getMemBufferCopy(W, "w"), "w.perf.data");
  EXPECT_TRUE(bool(F));
  if (!F)
    return {errText(F.takeError())};
  (*F)->setFileOrder(FileOrder);
  if (Limit)
    (*F)->setOrderLimit(Limit);
  Collect C;
  EXPECT_EQ(errText((*F)->read(C)), "");
  return withoutOffsets(C.Log);
}

TEST(PerfDataReader, TimeOrderAcrossPerCPURounds) {
  // Rounds as perf record's per-CPU buffers leave them: the samples (t100
  // to t104, on CPUs 0 to 2) come CPU by CPU, and before the COMM and MMAP2
  // of t50 that precede them in time. Read in time order, they are what
  // the file written in time order gives, in file, pipe and compressed
  // form.
  PerfRecording R = recording();
  R.Mappings[0].Time = R.Tasks[0].Time = 50;
  for (int Form = 0; Form < 3; ++Form) {
    PerfDataWriteOptions O;
    O.Pipe = Form == 1;
    O.Compress = Form == 2 ? 1 : 0;
    const std::string Plain = written(R, O);
    O.RoundNs = 1000;
    const std::string Rounds = written(R, O);
    std::vector<std::string> InFile = seen(Rounds, /*FileOrder=*/true);
    ASSERT_GE(InFile.size(), 7u);
    EXPECT_EQ(InFile[0].substr(0, 6), "sample") << Form;
    EXPECT_NE(InFile[0].find(" t100 "), std::string::npos) << InFile[0];
    EXPECT_NE(InFile[1].find(" t103 "), std::string::npos) << InFile[1];
    EXPECT_EQ(InFile[5], "comm 10 prog");
    EXPECT_EQ(InFile[6].substr(0, 5), "mmap ");
    std::vector<std::string> InTime = seen(Rounds, /*FileOrder=*/false);
    EXPECT_EQ(InTime, seen(Plain, /*FileOrder=*/false)) << Form;
    EXPECT_EQ(InTime, seen(Plain, /*FileOrder=*/true)) << Form;
    EXPECT_EQ(InTime[0], "comm 10 prog");
    // A queue limit of one record hands every record out as it comes.
    EXPECT_EQ(seen(Rounds, false, /*Limit=*/1), InFile) << Form;
    auto Back = readBack(Rounds);
    ASSERT_TRUE(bool(Back)) << errText(Back.takeError());
    if (O.Pipe)
      Back->Info.Command = R.Info.Command;
    expectSame(R, *Back);
  }
}

TEST(PerfDataWriter, CompressedRoundTrip) {
  PerfRecording R = recording();
  PerfDataWriteOptions O;
  O.Compress = 3;
  std::string W = written(R, O);
  auto F = perfdata::File::fromBuffer(MemoryBuffer::getMemBufferCopy(W, "w"),
                                      "w.perf.data");
  ASSERT_TRUE(bool(F)) << errText(F.takeError());
  const perfdata::Compression &C = (*F)->compression();
  EXPECT_TRUE(C.Present);
  EXPECT_EQ(C.Type, perfdata::Compression::Zstd);
  EXPECT_EQ(C.Level, 3u);
  auto Back = readBack(W);
  ASSERT_TRUE(bool(Back)) << errText(Back.takeError());
  expectSame(R, *Back);
  Collect Visit;
  ASSERT_EQ(errText((*F)->read(Visit)), "");
  EXPECT_GT((*F)->compressedRecords(), 0u);
  EXPECT_EQ(W, written(R, O)); // deterministic
  O.Pipe = true;
  EXPECT_NE(errText(writePerfData(R, nulls(), O)).find("pipe mode"),
            std::string::npos);
}

TEST(PerfDataWriter, CompressLevels) {
  // perf record -z's levels, 1 to 22, and 0 for plain records; the
  // writer takes what checkCompressLevel takes.
  for (int64_t L : {0, 1, 19, 22})
    EXPECT_EQ(errText(checkCompressLevel("--compress", L)), "") << L;
  for (int64_t L : {-1, 23, 1000})
    EXPECT_EQ(errText(checkCompressLevel("--compress", L)),
              "--compress: expected a ZSTD level of 1 to 22 (0: plain "
              "records), got " +
                  std::to_string(L));
  PerfRecording R = recording();
  PerfDataWriteOptions O;
  for (int L : {1, 22}) {
    O.Compress = L;
    auto Back = readBack(written(R, O));
    ASSERT_TRUE(bool(Back)) << L << ": " << errText(Back.takeError());
    expectSame(R, *Back);
  }
  O.Compress = 23;
  EXPECT_EQ(errText(writePerfData(R, nulls(), O)),
            "perf.data compression: expected a ZSTD level of 1 to 22 (0: "
            "plain records), got 23");
}

TEST(PerfDataWriter, WithoutGroupReadNoCounters) {
  PerfRecording R = recording();
  PerfDataWriteOptions O;
  O.GroupRead = false;
  auto Back = readBack(written(R, O));
  ASSERT_TRUE(bool(Back));
  EXPECT_EQ(Back->Samples[0].Sample.Cycles, 0u);
  EXPECT_EQ(Back->Samples[0].Sample.Stack.size(), 3u);
  EXPECT_EQ(Back->Info.CyclesEvent, "");
}

/// A perf record -g recording without LBR: callchains in every sample,
/// kernel frames first in one of them.
PerfRecording callChainRecording() {
  PerfRecording R = recording();
  R.Info.LBR = "";
  R.Info.CyclesEvent = R.Info.InstructionsEvent = "";
  const uint64_t Base = 0x555555554000; // runtime = link + Base
  for (unsigned I = 0; I < R.Samples.size(); ++I) {
    RecordedSample &S = R.Samples[I];
    S.Sample.Stack.clear();
    S.Sample.Cycles = S.Sample.Instructions = 0;
    S.Period = 1000 * (I + 1);
    // leaf 0x1200 <- mid 0x1100 <- main 0x1000, recursion in mid once.
    S.CallChain = {PERF_CONTEXT_USER, Base + 0x1210, Base + 0x1120,
                   Base + 0x1030};
    if (I == 1)
      S.CallChain = {PERF_CONTEXT_USER, Base + 0x1210, Base + 0x1120,
                     Base + 0x1140, Base + 0x1030};
    if (I == 2)
      S.CallChain.insert(S.CallChain.begin(),
                         {PERF_CONTEXT_KERNEL, 0xffffffff81000010ULL});
    S.Sample.IP = Base + 0x1210; // the user context's first frame
  }
  return R;
}

TEST(PerfDataWriter, CallChainsInFileAndPipeMode) {
  // The writer stores PERF_SAMPLE_CALLCHAIN; the reader gives it back, and
  // readPerfData turns it into caller -> callee arcs: each pair once per
  // sample (sample 1 passes mid -> mid -> main), weighted by the period,
  // kernel frames apart. Without a binary the keys are runtime addresses
  // (call site, the callee's frame).
  PerfRecording R = callChainRecording();
  const uint64_t Base = 0x555555554000;
  for (bool Pipe : {false, true}) {
    PerfDataWriteOptions O;
    O.Pipe = Pipe;
    std::string W = written(R, O);
    auto Back = readBack(W);
    ASSERT_TRUE(bool(Back)) << errText(Back.takeError());
    ASSERT_EQ(Back->Samples.size(), R.Samples.size());
    for (size_t I = 0; I < R.Samples.size(); ++I)
      EXPECT_EQ(Back->Samples[I].CallChain, R.Samples[I].CallChain) << I;
    auto F = perfdata::File::fromBuffer(
        MemoryBuffer::getMemBufferCopy(W, "w"), "w.perf.data");
    ASSERT_TRUE(bool(F)) << errText(F.takeError());
    QualityReport Q;
    auto AP = readPerfData(**F, nullptr, Q);
    ASSERT_TRUE(bool(AP)) << errText(AP.takeError());
    EXPECT_EQ(AP->NumCallChains, R.Samples.size());
    EXPECT_TRUE(AP->Branches.empty());
    // Periods 1000..5000: 15000 in all; sample 1 (2000) goes through
    // mid's second frame (call site 0x113f) to the callee frame 0x111f.
    std::map<std::pair<uint64_t, uint64_t>, uint64_t> Want = {
        {{Base + 0x111f, Base + 0x1210}, 15000},
        {{Base + 0x102f, Base + 0x111f}, 13000},
        {{Base + 0x113f, Base + 0x111f}, 2000},
        {{Base + 0x102f, Base + 0x113f}, 2000}};
    EXPECT_EQ(AP->CallChainArcs, Want) << (Pipe ? "pipe" : "file");
    EXPECT_EQ(W, written(R, O)); // deterministic
  }
}

/// Offset of the first record of \p Type in a file-mode perf.data.
size_t firstRecord(const std::string &F, uint32_t Type) {
  uint64_t At = support::endian::read64le(&F[40]);
  while (support::endian::read32le(&F[At]) != Type)
    At += support::endian::read16le(&F[At + 6]);
  return At;
}

TEST(PerfDataReader, IdsThatAreDenseMapKeys) {
  // Ids are file data: ~0 and ~0 - 1 (DenseMap's empty and tombstone keys
  // for u64) must be looked up like any other (found by the fuzzer).
  std::string W = written(recording()); // two events: ids by sample id
  size_t Sample = firstRecord(W, PERF_RECORD_SAMPLE);
  for (uint64_t Id : {~0ULL, ~0ULL - 1}) {
    std::string M = W;
    put64(M, Sample + 8 + 24, Id); // ip, pid/tid, time, then the id
    auto Back = readBack(M);
    ASSERT_FALSE(bool(Back));
    EXPECT_NE(errText(Back.takeError())
                  .find("byte " + std::to_string(Sample) +
                        ": sample of event id " + std::to_string(Id) +
                        ", which no attr has"),
              std::string::npos);
  }
  // A pid of ~0u (DenseMap<uint32_t>'s empty key) in a mapping and a sample.
  PerfRecording R = recording();
  R.Mappings[0].Pid = R.Mappings[0].Tid = ~0u;
  for (RecordedSample &S : R.Samples)
    S.Sample.Pid = ~0u;
  auto F = perfdata::File::fromBuffer(
      MemoryBuffer::getMemBufferCopy(written(R), "w"), "w.perf.data");
  ASSERT_TRUE(bool(F));
  QualityReport Q;
  auto AP = readPerfData(**F, nullptr, Q);
  ASSERT_TRUE(bool(AP)) << errText(AP.takeError());
  EXPECT_EQ(AP->NumSamples, 5u);
}

TEST(PerfDataReader, MutatedWriterOutputNeverCrashes) {
  // Random byte flips and truncations of a real writer output: each read
  // either succeeds or fails with an offset; the sanitizer build checks no
  // read leaves the buffer.
  std::string W = written(recording());
  std::mt19937_64 Rng(7);
  for (unsigned I = 0; I < 3000; ++I) {
    std::string M = W;
    unsigned Flips = 1 + Rng() % 4;
    for (unsigned F = 0; F < Flips; ++F)
      M[Rng() % M.size()] ^= char(1u << (Rng() % 8));
    if (I % 5 == 0)
      M.resize(Rng() % M.size());
    auto Back = readBack(M);
    if (!Back) {
      std::string E = errText(Back.takeError());
      EXPECT_NE(E.find(": byte "), std::string::npos) << E;
    }
  }
}

TEST(PerfDataReader, MutatedCallChainsNeverCrash) {
  // The same for a recording with callchains, read as a recording and as
  // a profile (the arcs): a callchain count larger than its record, frames
  // that are context markers or any other value, are errors or arcs.
  std::string W = written(callChainRecording());
  std::mt19937_64 Rng(11);
  for (unsigned I = 0; I < 3000; ++I) {
    std::string M = W;
    unsigned Flips = 1 + Rng() % 4;
    for (unsigned F = 0; F < Flips; ++F)
      M[Rng() % M.size()] ^= char(1u << (Rng() % 8));
    if (I % 5 == 0)
      M.resize(Rng() % M.size());
    auto F = perfdata::File::fromBuffer(
        MemoryBuffer::getMemBufferCopy(M, "m"), "m.perf.data");
    if (!F) {
      consumeError(F.takeError());
      continue;
    }
    QualityReport Q;
    auto AP = readPerfData(**F, nullptr, Q);
    if (!AP) {
      std::string E = errText(AP.takeError());
      EXPECT_NE(E.find(": byte "), std::string::npos) << E;
    }
  }
}

} // namespace
