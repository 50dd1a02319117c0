//===- RecordWriter.h - build perf ring-buffer records in tests -----------===//
//
// A tiny writer for byte fixtures in the kernel's record layout
// (<linux/perf_event.h>), so the parser is tested without counters.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_TEST_RECORDWRITER_H
#define KEEL_TEST_RECORDWRITER_H

#include <linux/perf_event.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace keel::test {

class RecordWriter {
public:
  RecordWriter &u64(uint64_t V) { return put(&V, 8); }
  RecordWriter &u32(uint32_t V) { return put(&V, 4); }
  /// A NUL-terminated string padded to a multiple of 8 bytes.
  RecordWriter &str(const std::string &S) {
    put(S.data(), S.size());
    size_t Pad = 8 - S.size() % 8;
    Body.insert(Body.end(), Pad, 0);
    return *this;
  }
  /// perf_branch_entry flags from their fields.
  static uint64_t flags(bool Mispred, bool Predicted, unsigned Cycles,
                        unsigned Type, bool InTx = false, bool Abort = false) {
    return uint64_t(Mispred) | uint64_t(Predicted) << 1 | uint64_t(InTx) << 2 |
           uint64_t(Abort) << 3 | uint64_t(Cycles & 0xffff) << 4 |
           uint64_t(Type & 0xf) << 20;
  }
  /// Close the record: header + body.
  std::vector<uint8_t> record(uint32_t Type, uint16_t Misc = 0) {
    perf_event_header H{Type, Misc, uint16_t(sizeof(H) + Body.size())};
    std::vector<uint8_t> R(sizeof(H));
    std::memcpy(R.data(), &H, sizeof(H));
    R.insert(R.end(), Body.begin(), Body.end());
    Body.clear();
    return R;
  }

private:
  RecordWriter &put(const void *P, size_t N) {
    const uint8_t *B = static_cast<const uint8_t *>(P);
    Body.insert(Body.end(), B, B + N);
    return *this;
  }
  std::vector<uint8_t> Body;
};

inline void append(std::vector<uint8_t> &To, const std::vector<uint8_t> &R) {
  To.insert(To.end(), R.begin(), R.end());
}

} // namespace keel::test

#endif
