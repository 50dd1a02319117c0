//===- Machine.cpp - measure this machine's roofline ceilings -------------===//
//
// Phases: read the cache geometry; peak FLOP/s (scalar and AVX2 FMA, one
// thread and all threads); a working-set sweep with a read and a triad
// kernel on one core; the per-level ceilings (best point inside each level's
// range); the same levels on all cores; a STREAM-style triad as a
// cross-check of the DRAM ceiling. Every figure is the best of N samples,
// each long enough (>= a few milliseconds) for the clock.
//
//===----------------------------------------------------------------------===//
#include "keel/Roofline/Machine.h"
#include "Kernels.h"
#include "keel/Support/Diagnostics.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <pthread.h>
#include <sched.h>
#include <thread>

using namespace llvm;

namespace keel {
namespace roofline {

namespace {

using Clock = std::chrono::steady_clock;

uint64_t parseSize(StringRef S) {
  S = S.trim();
  uint64_t Mult = 1;
  if (S.consume_back("K"))
    Mult = 1024;
  else if (S.consume_back("M"))
    Mult = 1024 * 1024;
  uint64_t V = 0;
  if (S.getAsInteger(10, V))
    return 0;
  return V * Mult;
}

std::string readSysfs(const std::string &Path) {
  auto B = MemoryBuffer::getFileAsStream(Path); // sysfs sizes lie
  if (!B)
    return "";
  return (*B)->getBuffer().trim().str();
}

std::string cpuName() {
  auto B = MemoryBuffer::getFileAsStream("/proc/cpuinfo");
  if (!B)
    return "unknown";
  SmallVector<StringRef, 64> Lines;
  (*B)->getBuffer().split(Lines, '\n');
  for (StringRef L : Lines)
    if (L.starts_with("model name"))
      return L.split(':').second.trim().str();
  return "unknown";
}

void pinTo(unsigned CPU) {
  cpu_set_t Set;
  CPU_ZERO(&Set);
  CPU_SET(CPU % std::max(1u, std::thread::hardware_concurrency()), &Set);
  // Best effort: a container may forbid it; timing stays valid without.
  (void)pthread_setaffinity_np(pthread_self(), sizeof(Set), &Set);
}

/// Run Fn(Thread) on T threads released together; the longest time one
/// thread took from its own start. Timing each thread from its own start keeps
/// a late wake-up (two vCPUs shared with other work) out of the figure.
double timeParallel(unsigned T, const std::function<void(unsigned)> &Fn) {
  std::atomic<unsigned> Ready{0};
  std::atomic<bool> Go{false};
  std::vector<double> Took(T);
  std::vector<std::thread> Threads;
  for (unsigned I = 0; I < T; ++I)
    Threads.emplace_back([&, I] {
      // One thread keeps the caller's affinity (`taskset -c 1 layout-roofline
      // machine` measures CPU 1); several are spread one per CPU.
      if (T > 1)
        pinTo(I);
      Ready.fetch_add(1);
      // Yield while waiting: under SCHED_FIFO (`chrt -f 1`) a spinning
      // thread would never let the releasing thread on its CPU run.
      while (!Go.load(std::memory_order_acquire))
        std::this_thread::yield();
      Clock::time_point Start = Clock::now();
      Fn(I);
      Took[I] = std::chrono::duration<double>(Clock::now() - Start).count();
    });
  while (Ready.load() < T)
    std::this_thread::yield();
  Go.store(true, std::memory_order_release);
  for (std::thread &Th : Threads)
    Th.join();
  return *std::max_element(Took.begin(), Took.end());
}

/// A 64-byte aligned buffer of doubles, touched (first-touch) by its owner.
struct Buffer {
  double *Data = nullptr;
  size_t N = 0;
  explicit Buffer(size_t Count) : N(Count) {
    size_t Bytes = (Count * sizeof(double) + 4095) / 4096 * 4096;
    Data = static_cast<double *>(std::aligned_alloc(4096, Bytes));
  }
  ~Buffer() { std::free(Data); }
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
};

volatile double Sink; // results of the read kernels go here

struct Measurer {
  const MachineOptions &Opts;
  bool AVX2;
  uint64_t TargetBytes; ///< bytes moved per all-cores sample
  uint64_t ChunkBytes;  ///< bytes moved per one-core sample
  uint64_t MinSamples;  ///< chunks per large-buffer measurement, at least

  double bestOf(unsigned T, const std::function<void(unsigned)> &Fn,
                double WorkPerRun) const {
    double Best = 0;
    for (unsigned R = 0; R < std::max(1u, Opts.Repeats); ++R) {
      double S = timeParallel(T, Fn);
      if (S > 0)
        Best = std::max(Best, WorkPerRun / S);
    }
    return Best;
  }

  double peak(bool Vector, unsigned T) const {
    // One sample: ~5 ms at a few GFLOP/s per thread; quick: ~1 ms.
    uint64_t Iters = Opts.Quick ? 40000 : 400000;
    if (!Vector)
      Iters *= 2;
    double PerIter = Vector ? kernels::AVX2FMAFlopsPerIter
                            : kernels::ScalarFMAFlopsPerIter;
    auto Fn = [&](unsigned) {
      if (Vector)
        kernels::avx2FMA(Iters);
      else
        kernels::scalarFMA(Iters);
    };
    return bestOf(T, Fn, PerIter * Iters * T) / 1e9;
  }

  /// One thread: the best rate over chunks of about ChunkBytes of traffic.
  /// Work(Begin, Count) handles elements [Begin, Begin + Count) of N. A
  /// large buffer is cut into chunks (each timed, passes repeated); a small
  /// one is passed over several times per chunk. On a VM shared with other
  /// work, a whole 0.1 s pass is rarely free of preemption, while a chunk of
  /// a few milliseconds often is: the best chunk is what the hardware
  /// sustains, a long pass measures the neighbours too.
  double bestChunk(size_t N, double BytesPerElem,
                   const std::function<void(size_t, size_t)> &Work) const {
    size_t Chunk = std::max<size_t>(32, size_t(ChunkBytes / BytesPerElem) / 32 * 32);
    double Best = 0;
    auto Time = [&](size_t Begin, size_t Count, uint64_t Passes) {
      Clock::time_point T0 = Clock::now();
      for (uint64_t P = 0; P < Passes; ++P)
        Work(Begin, Count);
      double S = std::chrono::duration<double>(Clock::now() - T0).count();
      if (S > 0)
        Best = std::max(Best, double(Count) * Passes * BytesPerElem / S);
    };
    if (Chunk >= N) {
      uint64_t Passes = std::max<uint64_t>(1, Chunk / N);
      Work(0, N); // warm the caches
      for (unsigned R = 0; R < std::max(1u, Opts.Repeats) * (Opts.Quick ? 16 : 80); ++R)
        Time(0, N, Passes);
    } else {
      // At least N passes and, when a pass is short, enough of them for
      // MinSamples chunks: quiet moments are rare on a loaded VM.
      size_t PerPass = N / Chunk;
      uint64_t Passes = std::max<uint64_t>(
          std::max(1u, Opts.Repeats), (MinSamples + PerPass - 1) / PerPass);
      for (uint64_t R = 0; R < Passes; ++R)
        for (size_t B = 0; B + Chunk <= N; B += Chunk)
          Time(B, Chunk, 1);
    }
    return Best / 1e9;
  }

  /// Read kernel over Bytes per thread; GB/s summed over threads.
  double read(uint64_t Bytes, unsigned T) const {
    size_t N = std::max<uint64_t>(32, Bytes / 8 / 32 * 32);
    std::vector<std::unique_ptr<Buffer>> Bufs(T);
    timeParallel(T, [&](unsigned I) {
      Bufs[I] = std::make_unique<Buffer>(N);
      for (size_t J = 0; J < N; ++J)
        Bufs[I]->Data[J] = 1.0;
    });
    if (T == 1) {
      double S = 0;
      double R = bestChunk(N, 8, [&](size_t B, size_t C) {
        S += AVX2 ? kernels::readAVX2(Bufs[0]->Data + B, C)
                  : kernels::readScalar(Bufs[0]->Data + B, C);
      });
      Sink = S;
      return R;
    }
    uint64_t Reps = std::max<uint64_t>(1, TargetBytes / (N * 8));
    auto Fn = [&](unsigned I) {
      double S = 0;
      for (uint64_t R = 0; R < Reps; ++R)
        S += AVX2 ? kernels::readAVX2(Bufs[I]->Data, N)
                  : kernels::readScalar(Bufs[I]->Data, N);
      Sink = S;
    };
    return bestOf(T, Fn, double(N) * 8 * Reps * T) / 1e9;
  }

  /// Triad over three arrays of Bytes/3 per thread, STREAM byte counting.
  double triad(uint64_t Bytes, unsigned T) const {
    size_t N = std::max<uint64_t>(16, Bytes / 24 / 16 * 16);
    struct Set {
      Buffer A, B, C;
      explicit Set(size_t N) : A(N), B(N), C(N) {}
    };
    std::vector<std::unique_ptr<Set>> Sets(T);
    timeParallel(T, [&](unsigned I) {
      Sets[I] = std::make_unique<Set>(N);
      for (size_t J = 0; J < N; ++J) {
        Sets[I]->A.Data[J] = 0.0;
        Sets[I]->B.Data[J] = 1.0;
        Sets[I]->C.Data[J] = 2.0;
      }
    });
    if (T == 1) {
      Set &S = *Sets[0];
      return bestChunk(N, 24, [&](size_t B, size_t C) {
        if (AVX2)
          kernels::triadAVX2(S.A.Data + B, S.B.Data + B, S.C.Data + B, 3.0, C);
        else
          kernels::triadScalar(S.A.Data + B, S.B.Data + B, S.C.Data + B, 3.0,
                               C);
      });
    }
    uint64_t Reps = std::max<uint64_t>(1, TargetBytes / (N * 24));
    auto Fn = [&](unsigned I) {
      Set &S = *Sets[I];
      for (uint64_t R = 0; R < Reps; ++R) {
        if (AVX2)
          kernels::triadAVX2(S.A.Data, S.B.Data, S.C.Data, 3.0, N);
        else
          kernels::triadScalar(S.A.Data, S.B.Data, S.C.Data, 3.0, N);
      }
    };
    return bestOf(T, Fn, double(N) * 24 * Reps * T) / 1e9;
  }
};

/// The level-overlap measurement: one memory stream and N arrays re-read
/// from L2 (N chosen so both parts take about as long: then f is least
/// sensitive to noise), timed together and each alone with the same code
/// (MixKernel.h). Each figure is the best chunk (about 1 MiB of the memory
/// stream) over passes, like the sweep. The three variants take turns pass
/// by pass, so a noisy stretch of the run hits all of them alike.
LevelOverlap measureLevelOverlap(const Measurer &M, const MachineCaches &C,
                                 uint64_t MemBytes, double Mband,
                                 double L2band) {
  unsigned N = 8;
  if (Mband > 0 && L2band > 0) {
    double Ratio = L2band / Mband, BestDist = 1e9;
    for (unsigned Cand : {2u, 4u, 8u, 16u}) {
      double Dist = std::fabs(std::log(Cand / Ratio));
      if (Dist < BestDist)
        BestDist = Dist, N = Cand;
    }
  }
  // L2 arrays: 64 KiB each if they fit in half of L2 together.
  size_t Len = std::min<uint64_t>(8192, C.L2.Size / 2 / (N * 8)) / 16 * 16;
  Len = std::max<size_t>(Len, 16);
  size_t Rows = std::max<uint64_t>(2, MemBytes / (Len * 8));
  size_t ChunkRows = std::max<uint64_t>(1, M.ChunkBytes / (Len * 8));
  ChunkRows = std::min(ChunkRows, Rows);
  Buffer Mem(Rows * Len);
  for (size_t I = 0; I < Rows * Len; ++I)
    Mem.Data[I] = 1.0;
  std::vector<std::unique_ptr<Buffer>> L2Bufs;
  std::vector<const double *> L2Ptrs;
  for (unsigned I = 0; I < N; ++I) {
    L2Bufs.push_back(std::make_unique<Buffer>(Len));
    for (size_t J = 0; J < Len; ++J)
      L2Bufs.back()->Data[J] = 0.5 + I;
    L2Ptrs.push_back(L2Bufs.back()->Data);
  }
  auto Run = [&](bool WithMem, unsigned NN, size_t R0, size_t R1) {
    return M.AVX2 ? kernels::mixAVX2(WithMem, NN, Mem.Data, L2Ptrs.data(),
                                     Len, R0, R1)
                  : kernels::mixBase(WithMem, NN, Mem.Data, L2Ptrs.data(),
                                     Len, R0, R1);
  };
  size_t PerPass = Rows / ChunkRows;
  uint64_t Passes = std::max<uint64_t>(std::max(1u, M.Opts.Repeats),
                                       (M.MinSamples + PerPass - 1) / PerPass);
  // Best seconds per chunk: both, memory alone, L2 alone.
  double Best[3] = {1e30, 1e30, 1e30};
  double Sum = 0;
  Run(false, N, 0, 1); // warm the L2 arrays
  for (uint64_t P = 0; P < Passes; ++P)
    for (int V = 0; V < 3; ++V)
      for (size_t B = 0; B + ChunkRows <= Rows; B += ChunkRows) {
        Clock::time_point T0 = Clock::now();
        Sum += V == 0   ? Run(true, N, B, B + ChunkRows)
               : V == 1 ? Run(true, 0, B, B + ChunkRows)
                        : Run(false, N, B, B + ChunkRows);
        double S = std::chrono::duration<double>(Clock::now() - T0).count();
        if (S > 0)
          Best[V] = std::min(Best[V], S);
      }
  Sink = Sum;
  double Elems = double(ChunkRows) * Len;
  LevelOverlap L;
  L.MemArrays = 1;
  L.L2Arrays = N;
  L.BothNs = Best[0] / Elems * 1e9;
  L.MemNs = Best[1] / Elems * 1e9;
  L.L2Ns = Best[2] / Elems * 1e9;
  L.Factor = overlapFactor(L.MemNs, L.L2Ns, L.BothNs);
  L.Mode = modeForOverlapFactor(L.Factor);
  return L;
}

std::string levelOf(uint64_t WS, const MachineCaches &C, uint64_t DramBytes) {
  // The DRAM point first: with --quick it is smaller than a big L3.
  if (WS >= DramBytes)
    return "DRAM";
  if (C.L1d.Size && WS <= C.L1d.Size / 2)
    return "L1";
  if (C.L2.Size && WS >= 2 * C.L1d.Size && WS <= C.L2.Size / 2)
    return "L2";
  if (C.L3.Size && WS >= 2 * C.L2.Size && WS <= C.L3.Size / 2)
    return "L3";
  return "";
}

std::vector<uint64_t> sweepSizes(const MachineCaches &C, uint64_t DramBytes,
                                 bool Quick) {
  std::vector<uint64_t> Sizes;
  if (Quick) {
    // One point inside each level.
    for (uint64_t S : {C.L1d.Size / 4, C.L2.Size / 4,
                       std::min<uint64_t>(C.L3.Size / 4, 8 << 20), DramBytes})
      if (S)
        Sizes.push_back(S);
  } else {
    // Doubling through L1 and L2 (where the levels' edges are), then x4.
    for (uint64_t S = 8 << 10; S < DramBytes && S <= 128ull << 20;
         S *= (S < 2 * C.L2.Size ? 2 : 4))
      Sizes.push_back(S);
    Sizes.push_back(DramBytes);
  }
  std::sort(Sizes.begin(), Sizes.end());
  Sizes.erase(std::unique(Sizes.begin(), Sizes.end()), Sizes.end());
  return Sizes;
}

} // namespace

MachineCaches readMachineCaches() {
  MachineCaches G;
  unsigned LineSize = 64;
  for (unsigned I = 0; I < 8; ++I) {
    std::string Dir = formatv("/sys/devices/system/cpu/cpu0/cache/index{0}/", I);
    std::string Level = readSysfs(Dir + "level");
    if (Level.empty())
      break;
    std::string Type = readSysfs(Dir + "type");
    uint64_t Size = parseSize(readSysfs(Dir + "size"));
    uint64_t Line = parseSize(readSysfs(Dir + "coherency_line_size"));
    if (Line)
      LineSize = unsigned(Line);
    unsigned Ways = 0;
    StringRef(readSysfs(Dir + "ways_of_associativity")).getAsInteger(10, Ways);
    CacheLevel *L = Level == "1" && Type == "Data" ? &G.L1d
                    : Level == "2"                 ? &G.L2
                    : Level == "3"                 ? &G.L3
                                                   : nullptr;
    if (L) {
      L->Size = Size;
      L->Assoc = Ways ? Ways : L->Assoc;
    }
  }
  for (CacheLevel *L : {&G.L1d, &G.L2, &G.L3})
    L->Line = LineSize;
  // Sensible defaults when sysfs says nothing (containers, odd VMs).
  if (!G.L1d.Size)
    G.L1d.Size = 32 << 10;
  if (!G.L2.Size)
    G.L2.Size = 1 << 20;
  return G;
}

Expected<MachineReport> measureMachine(const MachineOptions &Opts) {
  MachineReport R;
  R.CPUName = cpuName();
  R.Cores = Opts.Threads ? Opts.Threads
                         : std::max(1u, std::thread::hardware_concurrency());
  R.HasAVX2FMA = kernels::hasAVX2FMA();
  R.Caches = readMachineCaches();
  const MachineCaches &C = R.Caches;

  uint64_t Dram = Opts.DramBytes;
  if (!Dram)
    Dram = Opts.Quick ? (32 << 20)
                      : std::clamp<uint64_t>(2 * C.L3.Size, 256 << 20,
                                             512 << 20);
  Measurer M{Opts, R.HasAVX2FMA, Opts.Quick ? (8ull << 20) : (32ull << 20),
             1ull << 20, Opts.Quick ? 64u : 1000u};

  // Peak FLOP/s.
  for (bool Vector : {false, true}) {
    if (Vector && !R.HasAVX2FMA)
      continue;
    for (unsigned T : {1u, R.Cores}) {
      R.Peaks.push_back({Vector ? "avx2_fma" : "scalar_fma", T, M.peak(Vector, T)});
      if (R.Cores == 1)
        break;
    }
  }

  // One-core sweep, read and triad.
  for (uint64_t WS : sweepSizes(C, Dram, Opts.Quick)) {
    std::string Level = levelOf(WS, C, Dram);
    R.Sweep.push_back({"read", WS, 1, M.read(WS, 1), Level});
    R.Sweep.push_back({"triad", WS, 1, M.triad(WS, 1), Level});
  }

  // Per-level ceilings: the best point inside each level (ERT takes the
  // plateau's maximum), then that level's middle point on all cores. L3 and
  // DRAM are shared, so all threads split the working set there.
  for (const char *Level : {"L1", "L2", "L3", "DRAM"}) {
    LevelCeiling L;
    L.Level = Level;
    std::vector<uint64_t> Points;
    for (const SweepPoint &P : R.Sweep) {
      if (P.Level != Level)
        continue;
      if (P.Kernel == "read")
        L.ReadGBs = std::max(L.ReadGBs, P.GBs), Points.push_back(P.WorkingSet);
      else
        L.TriadGBs = std::max(L.TriadGBs, P.GBs);
    }
    if (Points.empty())
      continue;
    L.WorkingSet = Points[Points.size() / 2];
    bool Shared = L.Level == "L3" || L.Level == "DRAM";
    uint64_t PerThread = Shared ? L.WorkingSet / R.Cores : L.WorkingSet;
    L.AllCoresReadGBs = R.Cores > 1 ? M.read(PerThread, R.Cores) : L.ReadGBs;
    R.Levels.push_back(L);
  }

  // STREAM-style triad: three arrays of half the DRAM working set each (1.5x
  // it in all). STREAM asks for 4 x LLC per array; a VM's LLC is shared with
  // other guests, and 3 x 1 GiB of page faults would double the run time.
  uint64_t ArrayBytes = Opts.Quick ? Dram / 3 : Dram / 2;
  R.StreamArrayBytes = ArrayBytes;
  R.StreamTriadGBs = M.triad(3 * ArrayBytes, 1);

  auto LevelGBs = [&](StringRef Name, bool All) {
    for (const LevelCeiling &L : R.Levels)
      if (L.Level == Name)
        return All ? L.AllCoresReadGBs : L.ReadGBs;
    return 0.0;
  };
  auto PeakOf = [&](unsigned T) {
    double Best = 0;
    for (const PeakResult &P : R.Peaks)
      if (P.Threads == T)
        Best = std::max(Best, P.GFlops);
    return Best;
  };
  R.MeasuredOverlap = measureLevelOverlap(M, C, Dram, LevelGBs("DRAM", false),
                                          LevelGBs("L2", false));

  for (bool All : {false, true}) {
    Ceilings &Cg = All ? R.AllCores : R.OneCore;
    Cg.Name = All ? formatv("this machine, {0} cores", R.Cores).str()
                  : "this machine, one core";
    Cg.Mband = LevelGBs("DRAM", All);
    Cg.L2band = LevelGBs("L2", All);
    Cg.L1band = LevelGBs("L1", All);
    Cg.Ppeak = PeakOf(All ? R.Cores : 1);
  }
  return R;
}

json::Object toJSON(const MachineReport &R) {
  json::Array Peaks, Sweep, Levels;
  for (const PeakResult &P : R.Peaks)
    Peaks.push_back(json::Object{{"kind", P.Kind},
                                 {"threads", int64_t(P.Threads)},
                                 {"gflops", P.GFlops}});
  for (const SweepPoint &P : R.Sweep)
    Sweep.push_back(json::Object{{"kernel", P.Kernel},
                                 {"working_set", int64_t(P.WorkingSet)},
                                 {"threads", int64_t(P.Threads)},
                                 {"gbs", P.GBs},
                                 {"level", P.Level}});
  for (const LevelCeiling &L : R.Levels)
    Levels.push_back(json::Object{{"level", L.Level},
                                  {"read_gbs", L.ReadGBs},
                                  {"triad_gbs", L.TriadGBs},
                                  {"all_cores_read_gbs", L.AllCoresReadGBs},
                                  {"all_cores_working_set",
                                   int64_t(L.WorkingSet)}});
  double DramRead = 0;
  for (const LevelCeiling &L : R.Levels)
    if (L.Level == "DRAM")
      DramRead = L.ReadGBs;
  json::Object O{
      {"cpu", R.CPUName},
      {"cores", int64_t(R.Cores)},
      {"avx2_fma", R.HasAVX2FMA},
      {"caches", json::Object{{"L1d", int64_t(R.Caches.L1d.Size)},
                              {"L2", int64_t(R.Caches.L2.Size)},
                              {"L3", int64_t(R.Caches.L3.Size)},
                              {"line", int64_t(R.Caches.L1d.Line)}}},
      {"peaks", std::move(Peaks)},
      {"sweep", std::move(Sweep)},
      {"levels", std::move(Levels)},
      {"stream_triad",
       json::Object{{"gbs", R.StreamTriadGBs},
                    {"array_bytes", int64_t(R.StreamArrayBytes)},
                    {"dram_read_over_triad",
                     R.StreamTriadGBs > 0 ? DramRead / R.StreamTriadGBs : 0.0}}},
      {"ceilings", json::Object{{"one_core", toJSON(R.OneCore)},
                                {"all_cores", toJSON(R.AllCores)}}}};
  if (R.MeasuredOverlap)
    O["level_overlap"] = toJSON(*R.MeasuredOverlap);
  return O;
}

static std::string human(uint64_t B) {
  if (B >= (1ull << 30) && B % (1ull << 30) == 0)
    return formatv("{0} GiB", B >> 30);
  if (B >= (1 << 20))
    return formatv("{0:f1} MiB", double(B) / (1 << 20));
  return formatv("{0:f1} KiB", double(B) / 1024);
}

void printText(raw_ostream &OS, const MachineReport &R) {
  OS << "cpu: " << R.CPUName << ", " << R.Cores << " cores, AVX2+FMA "
     << (R.HasAVX2FMA ? "yes" : "no") << '\n';
  OS << "caches: L1d " << human(R.Caches.L1d.Size) << ", L2 "
     << human(R.Caches.L2.Size) << ", L3 "
     << (R.Caches.L3.Size ? human(R.Caches.L3.Size) : "none") << '\n';
  for (const PeakResult &P : R.Peaks)
    OS << formatv("peak {0,-10} {1} thread(s): {2,8:f2} GFLOP/s\n", P.Kind,
                  P.Threads, P.GFlops);
  OS << "sweep (one core, best of N):\n";
  for (const SweepPoint &P : R.Sweep)
    OS << formatv("  {0,-5} {1,10} {2,8:f2} GB/s  {3}\n", P.Kernel,
                  human(P.WorkingSet), P.GBs, P.Level);
  OS << "levels (GB/s):   read  triad  read-all-cores\n";
  for (const LevelCeiling &L : R.Levels)
    OS << formatv("  {0,-5} {1,12:f2} {2,6:f2} {3,8:f2}\n", L.Level, L.ReadGBs,
                  L.TriadGBs, L.AllCoresReadGBs);
  OS << formatv("stream triad (3 x {0}): {1:f2} GB/s\n",
                human(R.StreamArrayBytes), R.StreamTriadGBs);
  for (const Ceilings *C : {&R.OneCore, &R.AllCores})
    OS << formatv("ceilings ({0}): Mband {1:f2}, L2band {2:f2}, L1band {3:f2} "
                  "GB/s, Ppeak {4:f2} GFLOP/s\n",
                  C->Name, C->Mband, C->L2band, C->L1band, C->Ppeak);
  if (const std::optional<LevelOverlap> &L = R.MeasuredOverlap)
    OS << formatv("level overlap ({0}M-{1}L2, ns per element, one core): "
                  "memory alone {2:f3}, L2 alone {3:f3}, both {4:f3}: "
                  "f = {5:f2} -> {6} ({7})\n",
                  L->MemArrays, L->L2Arrays, L->MemNs, L->L2Ns, L->BothNs,
                  L->Factor, overlapName(L->Mode),
                  L->Mode == Overlap::Sum
                      ? "the levels' times add, f > 0.5"
                      : "the levels' times overlap, f <= 0.5");
}

} // namespace roofline
} // namespace keel
