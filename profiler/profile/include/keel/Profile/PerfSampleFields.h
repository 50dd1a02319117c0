//===- PerfSampleFields.h - perf record bytes: cursor and fixed fields ----===//
//
// Shared by the perf.data reader (keelProfile) and the live ring-buffer
// parser (keelRecord): a bounds-checked little-endian cursor over one
// record's body, and the decoder of a PERF_RECORD_SAMPLE's fixed fields
// (enum perf_event_type in <linux/perf_event.h>):
//   identifier? ip? pid,tid? time? addr? id? stream_id? cpu,res? period?
// No read goes past the body, whatever the bytes say.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_PROFILE_PERFSAMPLEFIELDS_H
#define KEEL_PROFILE_PERFSAMPLEFIELDS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Endian.h"

#include <linux/perf_event.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace keel {

/// Bounds-checked little-endian reads of one record's body. A failed read
/// returns false and does not move the cursor.
class ByteCursor {
public:
  explicit ByteCursor(llvm::ArrayRef<uint8_t> B) : Bytes(B) {}
  ByteCursor(const uint8_t *P, uint64_t Size) : Bytes(P, Size) {}

  bool u64(uint64_t &V) { return fixed(V); }
  bool u32(uint32_t &V) { return fixed(V); }
  bool skip(uint64_t N) {
    if (N > left())
      return false;
    Pos += N;
    return true;
  }
  /// A NUL-terminated string (padded) from the cursor up to the body offset
  /// \p Limit, where the cursor then stands.
  bool str(llvm::StringRef &S, size_t Limit) {
    if (Limit > Bytes.size() || Pos > Limit)
      return false;
    const char *Begin = reinterpret_cast<const char *>(Bytes.data() + Pos);
    S = llvm::StringRef(Begin, strnlen(Begin, Limit - Pos));
    Pos = Limit;
    return true;
  }
  /// The body offset of the cursor.
  size_t offset() const { return Pos; }
  /// The bytes of the whole body, read or not.
  size_t size() const { return Bytes.size(); }
  /// The bytes not read yet.
  uint64_t left() const { return Bytes.size() - Pos; }
  /// The byte at the cursor.
  const uint8_t *data() const { return Bytes.data() + Pos; }
  /// Up to \p N bytes at the cursor (fewer at the end of the body:
  /// ArrayRef::slice does not check its bounds in release builds).
  llvm::ArrayRef<uint8_t> bytes(size_t N) const {
    return Bytes.slice(Pos, std::min<size_t>(N, left()));
  }

private:
  template <typename T> bool fixed(T &V) {
    if (sizeof(T) > left())
      return false;
    V = llvm::support::endian::read<T, llvm::endianness::little>(
        Bytes.data() + Pos);
    Pos += sizeof(T);
    return true;
  }
  llvm::ArrayRef<uint8_t> Bytes;
  size_t Pos = 0;
};

/// The fixed fields at the start of a PERF_RECORD_SAMPLE; those that
/// sample_type leaves out stay 0.
struct SampleFixedFields {
  uint64_t IP = 0, Time = 0, Addr = 0, StreamId = 0, Period = 0;
  /// PERF_SAMPLE_ID, or else PERF_SAMPLE_IDENTIFIER (the same value).
  uint64_t Id = 0;
  uint32_t Pid = 0, Tid = 0, CPU = 0;
};

/// Reads the fixed fields that \p SampleType names from \p C, leaving it
/// after them. False when the body is too short for them.
inline bool readSampleFixedFields(ByteCursor &C, uint64_t SampleType,
                                  SampleFixedFields &F) {
  const uint64_t ST = SampleType;
  bool OK = true;
  if (ST & PERF_SAMPLE_IDENTIFIER)
    OK &= C.u64(F.Id);
  if (ST & PERF_SAMPLE_IP)
    OK &= C.u64(F.IP);
  if (ST & PERF_SAMPLE_TID)
    OK &= C.u32(F.Pid) && C.u32(F.Tid);
  if (ST & PERF_SAMPLE_TIME)
    OK &= C.u64(F.Time);
  if (ST & PERF_SAMPLE_ADDR)
    OK &= C.u64(F.Addr);
  if (ST & PERF_SAMPLE_ID)
    OK &= C.u64(F.Id);
  if (ST & PERF_SAMPLE_STREAM_ID)
    OK &= C.u64(F.StreamId);
  if (ST & PERF_SAMPLE_CPU) {
    uint32_t Res;
    OK &= C.u32(F.CPU) && C.u32(Res);
  }
  if (ST & PERF_SAMPLE_PERIOD)
    OK &= C.u64(F.Period);
  return OK;
}

/// The size of the sample_id trailer that non-sample records carry when
/// sample_id_all is set: pid,tid? time? id? stream_id? cpu,res? identifier?
inline unsigned sampleIdTrailerSize(uint64_t SampleType) {
  unsigned N = 0;
  for (uint64_t Bit : {PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ID,
                       PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU,
                       PERF_SAMPLE_IDENTIFIER})
    if (SampleType & Bit)
      N += 8;
  return N;
}

} // namespace keel

#endif // KEEL_PROFILE_PERFSAMPLEFIELDS_H
