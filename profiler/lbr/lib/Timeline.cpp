//===- Timeline.cpp - time line from LBR records --------------------------===//
#include "keel/LBR/Timeline.h"

#include "keel/LBR/Samples.h"
#include "keel/Profile/Binary.h"
#include "keel/Support/Input.h"
#include "keel/Support/Text.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cmath>
#include <set>

using namespace llvm;

namespace keel {

StringRef methodName(TimeMethod M) {
  switch (M) {
  case TimeMethod::IP:
    return "ip";
  case TimeMethod::Uniform:
    return "uniform";
  case TimeMethod::Profile:
    return "profile";
  case TimeMethod::Sample:
    return "sample";
  case TimeMethod::HW:
    return "hw";
  case TimeMethod::HWShare:
    return "hwshare";
  }
  return "?";
}

std::optional<TimeMethod> parseMethod(StringRef S) {
  for (unsigned I = 0; I < NumTimeMethods; ++I)
    if (S == methodName(TimeMethod(I)))
      return TimeMethod(I);
  if (S == "1" || S == "2" || S == "3")
    return TimeMethod(S[0] - '0');
  return std::nullopt;
}

static unsigned idx(TimeMethod M) { return unsigned(M); }

std::vector<std::pair<std::string, double>>
Timeline::totals(TimeMethod M) const {
  std::map<std::string, double> Sum;
  for (const Window &W : Windows)
    for (auto &[F, V] : W.Time[idx(M)])
      Sum[F] += V;
  std::vector<std::pair<std::string, double>> V(Sum.begin(), Sum.end());
  std::stable_sort(V.begin(), V.end(),
                   [](auto &A, auto &B) { return A.second > B.second; });
  return V;
}

namespace {

/// Window lengths: the cycle counter when every sample has it, else the
/// time stamps, else one unit per sample.
std::vector<double> windowLengths(const SampleSet &S, std::string &Unit) {
  std::vector<double> L;
  if (S.HasCounters) {
    Unit = "cycles";
    for (const RawSample &R : S.Samples)
      L.push_back(double(R.Cycles));
    return L;
  }
  bool Times = S.Samples.size() > 1;
  for (size_t I = 1; I < S.Samples.size(); ++I)
    if (S.Samples[I].Time <= S.Samples[I - 1].Time)
      Times = false;
  Unit = Times ? "ns" : "samples";
  for (size_t I = 0; I < S.Samples.size(); ++I) {
    if (!Times)
      L.push_back(1.0);
    else if (I == 0) // nothing before the first sample: as long as the next
      L.push_back(double(S.Samples[1].Time - S.Samples[0].Time));
    else
      L.push_back(double(S.Samples[I].Time - S.Samples[I - 1].Time));
  }
  return L;
}

/// Lay the per-function times of a window out as segments in time order:
/// the records oldest first, then the sampled function; a function's time
/// is split evenly among its points.
std::vector<Segment> layOut(const Window &W,
                            const std::map<std::string, double> &Time) {
  std::vector<std::string> Points(W.Froms.rbegin(), W.Froms.rend());
  Points.push_back(W.Sampled);
  std::map<std::string, unsigned> NumPoints;
  for (const std::string &P : Points)
    ++NumPoints[P];
  std::vector<Segment> Segs;
  double At = W.Start;
  for (const std::string &P : Points) {
    auto It = Time.find(P);
    double D = It == Time.end() ? 0 : It->second / NumPoints[P];
    Segs.push_back({P, At, D});
    At += D;
  }
  return Segs;
}

} // namespace

void assignWindow(Window &W, const std::vector<uint32_t> &EntryCycles,
                  const std::map<std::string, double> &Share, bool HasHW) {
  double T = W.Duration;
  size_t N = W.Froms.size();
  W.Time[idx(TimeMethod::IP)][W.Sampled] = T;
  // (1) uniform.
  auto &U = W.Time[idx(TimeMethod::Uniform)];
  U[W.Sampled] += T / (N + 1);
  for (const std::string &F : W.Froms)
    U[F] += T / (N + 1);
  // (2) whole-run share for the functions in the records, rest to the
  // sampled function.
  std::set<std::string> InRecords(W.Froms.begin(), W.Froms.end());
  InRecords.erase(W.Sampled);
  auto ShareOf = [&](const std::string &F) {
    auto It = Share.find(F);
    return It == Share.end() ? 0.0 : It->second;
  };
  double Sum = 0;
  for (const std::string &F : InRecords)
    Sum += ShareOf(F);
  double Fit = Sum > 1 ? 1 / Sum : 1;
  auto &P = W.Time[idx(TimeMethod::Profile)];
  for (const std::string &F : InRecords)
    P[F] = T * ShareOf(F) * Fit;
  P[W.Sampled] = T * (1 - Sum * Fit);
  // (3) split among the functions present, by whole-run share.
  std::set<std::string> Present = InRecords;
  Present.insert(W.Sampled);
  double PSum = 0;
  for (const std::string &F : Present)
    PSum += ShareOf(F);
  auto &S3 = W.Time[idx(TimeMethod::Sample)];
  for (const std::string &F : Present)
    S3[F] = PSum > 0 ? T * ShareOf(F) / PSum : T / Present.size();
  // hw: each record's cycles belong to the code that ran before its branch.
  if (HasHW) {
    auto &H = W.Time[idx(TimeMethod::HW)];
    double Used = 0;
    for (uint32_t C : EntryCycles)
      Used += C;
    double Scale = Used > T && Used > 0 ? T / Used : 1;
    for (size_t I = 0; I < N; ++I)
      H[W.Froms[I]] += EntryCycles[I] * Scale;
    H[W.Sampled] += T - Used * Scale;
    auto &HS = W.Time[idx(TimeMethod::HWShare)];
    for (size_t I = 0; I < N; ++I)
      if (Used > 0)
        HS[W.Froms[I]] += T * EntryCycles[I] / Used;
    if (Used <= 0)
      HS[W.Sampled] = T;
  }
  for (unsigned M = 0; M < NumTimeMethods; ++M)
    if (!W.Time[M].empty())
      W.Segments[M] = layOut(W, W.Time[M]);
}

Expected<Timeline> buildTimeline(const SampleSet &S, const Binary &Bin,
                                 QualityReport &Quality) {
  Timeline T;
  T.HasHW = S.HasEntryCycles;
  std::vector<double> Len = windowLengths(S, T.Unit);
  std::map<std::string, uint64_t> IPCount;
  for (const RawSample &R : S.Samples)
    ++IPCount[functionName(Bin, R.IP)];
  for (auto &[F, C] : IPCount)
    T.RunShare[F] = double(C) / S.Samples.size();
  double At = 0;
  for (size_t I = 0; I < S.Samples.size(); ++I) {
    const RawSample &R = S.Samples[I];
    Window W;
    W.Start = At;
    W.Duration = Len[I];
    At += Len[I];
    W.Sampled = functionName(Bin, R.IP);
    std::vector<uint32_t> Cyc;
    for (const LBREntry &E : R.Stack) {
      W.Froms.push_back(functionName(Bin, E.From));
      Cyc.push_back(E.Cycles);
    }
    ++T.NumSamples;
    T.NumRecords += W.Froms.size();
    assignWindow(W, Cyc, T.RunShare, T.HasHW);
    T.Windows.push_back(std::move(W));
  }
  return T;
}

//===-- Truth and errors
//---------------------------------------------------===//

Expected<TruthTimeline> readTruthTimeline(StringRef Path) {
  auto Buf = readInputFile(Path, InputKind::Text);
  if (!Buf)
    return Buf.takeError();
  auto V = json::parse((*Buf)->getBuffer());
  if (!V)
    return inputError(Path, 0, "not JSON: {0}", toString(V.takeError()));
  const json::Object *Root = V->getAsObject();
  const json::Array *Ws = Root ? Root->getArray("windows") : nullptr;
  if (!Ws)
    return inputError(Path, 0,
                      "no \"windows\" array (not a layout-lbrgen "
                      "truth file?)");
  TruthTimeline T;
  for (const json::Value &W : *Ws) {
    const json::Object *O = W.getAsObject();
    const json::Object *F = O ? O->getObject("functions") : nullptr;
    if (!F)
      return inputError(Path, 0, "window {0} has no \"functions\" object",
                        T.Windows.size());
    auto &M = T.Windows.emplace_back();
    for (auto &[Name, C] : *F)
      if (auto D = C.getAsNumber())
        M[Name.str()] = *D;
  }
  return T;
}

static double tvDistance(const std::map<std::string, double> &A,
                         const std::map<std::string, double> &B) {
  double SA = 0, SB = 0;
  for (auto &[F, V] : A)
    SA += V;
  for (auto &[F, V] : B)
    SB += V;
  if (SA <= 0 || SB <= 0)
    return 0;
  std::set<std::string> Keys;
  for (auto &[F, V] : A)
    Keys.insert(F);
  for (auto &[F, V] : B)
    Keys.insert(F);
  double D = 0;
  for (const std::string &K : Keys) {
    auto IA = A.find(K), IB = B.find(K);
    double VA = IA == A.end() ? 0 : IA->second / SA;
    double VB = IB == B.end() ? 0 : IB->second / SB;
    D += std::fabs(VA - VB);
  }
  return D / 2;
}

Expected<std::array<std::optional<MethodError>, NumTimeMethods>>
compareTimeline(const Timeline &T, const TruthTimeline &Truth) {
  if (Truth.Windows.size() != T.Windows.size())
    return inputError("truth", 0,
                      "the truth has {0} windows but the samples make {1}",
                      Truth.Windows.size(), T.Windows.size());
  std::array<std::optional<MethodError>, NumTimeMethods> Out;
  std::map<std::string, double> TrueRun;
  for (const auto &W : Truth.Windows)
    for (auto &[F, V] : W)
      TrueRun[F] += V;
  for (unsigned M = 0; M < NumTimeMethods; ++M) {
    if (needsHW(TimeMethod(M)) && !T.HasHW)
      continue;
    MethodError E;
    std::map<std::string, double> Run;
    for (size_t I = 0; I < T.Windows.size(); ++I) {
      double D = tvDistance(T.Windows[I].Time[M], Truth.Windows[I]);
      E.Mean += D;
      E.Max = std::max(E.Max, D);
      for (auto &[F, V] : T.Windows[I].Time[M])
        Run[F] += V;
    }
    E.Mean /= std::max<size_t>(1, T.Windows.size());
    E.WholeRun = tvDistance(Run, TrueRun);
    Out[M] = E;
  }
  return Out;
}

//===-- Reports
//------------------------------------------------------------===//

static void printSequence(const Timeline &T, size_t N, raw_ostream &OS);

void printTimeline(const Timeline &T, const TimelineReport &R,
                   raw_ostream &OS) {
  OS << "samples " << T.NumSamples << ", records " << T.NumRecords
     << ", resolution factor " << format("%.2f", T.resolution())
     << " ((samples + records) / samples), time unit " << T.Unit << '\n';

  for (unsigned M = 0; M < NumTimeMethods; ++M) {
    if (needsHW(TimeMethod(M)) && !T.HasHW)
      continue;
    auto Tot = T.totals(TimeMethod(M));
    double Sum = 0;
    for (auto &P : Tot)
      Sum += P.second;
    OS << "\nmethod " << methodName(TimeMethod(M)) << ":";
    if (R.Errors && (*R.Errors)[M])
      OS << format(" error per window %.2f%% (max %.2f%%), whole run %.2f%%",
                   100 * (*R.Errors)[M]->Mean, 100 * (*R.Errors)[M]->Max,
                   100 * (*R.Errors)[M]->WholeRun);
    OS << '\n';
    unsigned N = 0;
    for (auto &[F, V] : Tot) {
      if (R.Top && N++ >= R.Top)
        break;
      OS << format("  %-28s %14.2f %6.2f%%\n", F.c_str(), V,
                   Sum > 0 ? 100 * V / Sum : 0.0);
    }
  }
  if (R.Sequence)
    printSequence(T, R.Sequence, OS);
}

static void printSequence(const Timeline &T, size_t N, raw_ostream &OS) {
  OS << "\ncall sequence per sample (sampled function, then FROM0 newest "
        "... oldest):\n";
  for (size_t I = 0; I < std::min(N, T.Windows.size()); ++I) {
    const Window &W = T.Windows[I];
    OS << format("%6zu %12.0f  ", I, W.Start) << W.Sampled << " <-";
    for (const std::string &F : W.Froms)
      OS << ' ' << F;
    OS << '\n';
  }
}

void writeTimelineJSON(const Timeline &T, const TimelineReport &R,
                       raw_ostream &OS) {
  json::Object Methods;
  for (unsigned M = 0; M < NumTimeMethods; ++M) {
    if (needsHW(TimeMethod(M)) && !T.HasHW)
      continue;
    json::Object Tot;
    for (auto &[F, V] : T.totals(TimeMethod(M)))
      Tot[F] = std::round(V * 100) / 100;
    json::Object O{{"totals", std::move(Tot)}};
    if (R.Errors && (*R.Errors)[M]) {
      O["error_mean"] = std::round((*R.Errors)[M]->Mean * 1e6) / 1e6;
      O["error_max"] = std::round((*R.Errors)[M]->Max * 1e6) / 1e6;
      O["error_whole_run"] = std::round((*R.Errors)[M]->WholeRun * 1e6) / 1e6;
    }
    Methods[methodName(TimeMethod(M))] = std::move(O);
  }
  json::Object Share;
  for (auto &[F, V] : T.RunShare)
    Share[F] = std::round(V * 1e6) / 1e6;
  json::Object Root{{"samples", T.NumSamples},
                    {"records", T.NumRecords},
                    {"resolution", std::round(T.resolution() * 1000) / 1000},
                    {"unit", T.Unit},
                    {"run_share", std::move(Share)},
                    {"methods", std::move(Methods)}};
  printJSON(json::Value(std::move(Root)), OS);
}

void writeTimelineCSV(const Timeline &T, raw_ostream &OS) {
  OS << "window,start,duration,method,function,time\n";
  for (size_t I = 0; I < T.Windows.size(); ++I) {
    const Window &W = T.Windows[I];
    for (unsigned M = 0; M < NumTimeMethods; ++M)
      for (auto &[F, V] : W.Time[M])
        OS << I << ',' << format("%.0f", W.Start) << ','
           << format("%.0f", W.Duration) << ',' << methodName(TimeMethod(M))
           << ',' << F << ',' << format("%.2f", V) << '\n';
  }
}


/// "other" (the functions beyond the drawn rows): grey, no hue of its own.
static const char *const OtherColour = "#9e9e9e";

std::string functionColour(StringRef Name) {
  // The colour comes from the name alone (not the row, which is a rank that
  // changes with the method and the windows drawn), so a function has the
  // same colour in every method and every report. FNV-1a: fixed on every
  // platform, unlike std::hash.
  uint32_t H = 2166136261u;
  for (unsigned char C : Name)
    H = (H ^ C) * 16777619u;
  unsigned Hue = H % 360, Sat = 55 + (H >> 9) % 25, Light = 42 + (H >> 17) % 16;
  return formatv("hsl({0},{1}%,{2}%)", Hue, Sat, Light).str();
}

void writeTimelineSVG(const Timeline &T, TimeMethod M, size_t MaxWindows,
                      unsigned Rows, raw_ostream &OS) {
  size_t NW =
      std::min(MaxWindows ? MaxWindows : T.Windows.size(), T.Windows.size());
  // Rows: the busiest functions of the drawn windows under this method.
  std::map<std::string, double> Busy;
  for (size_t I = 0; I < NW; ++I)
    for (auto &[F, V] : T.Windows[I].Time[unsigned(M)])
      Busy[F] += V;
  std::vector<std::pair<std::string, double>> Order(Busy.begin(), Busy.end());
  std::stable_sort(Order.begin(), Order.end(),
                   [](auto &A, auto &B) { return A.second > B.second; });
  std::map<std::string, unsigned> RowOf;
  bool Other = false;
  for (auto &[F, V] : Order) {
    if (RowOf.size() < Rows)
      RowOf.emplace(F, RowOf.size());
    else
      Other = true;
  }
  unsigned NumRows = RowOf.size() + Other;
  double T0 = NW ? T.Windows[0].Start : 0;
  double T1 = NW ? T.Windows[NW - 1].Start + T.Windows[NW - 1].Duration : 1;
  const double Left = 180, Width = 900, RowH = 18, Top = 24;
  double Scale = T1 > T0 ? Width / (T1 - T0) : 1;
  // The legend below the chart: one swatch per row, in row order.
  const double LegendTop = Top + NumRows * RowH + 30, LegendRowH = 16;
  unsigned LegendCols = 4;
  unsigned LegendRows = (NumRows + LegendCols - 1) / LegendCols;
  double H = LegendTop + LegendRows * LegendRowH + 8;
  OS << format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
               "height=\"%.0f\" font-family=\"monospace\" font-size=\"11\">\n",
               Left + Width + 10, H);
  OS << "<text x=\"4\" y=\"14\">method " << methodName(M) << ", windows 0-"
     << (NW ? NW - 1 : 0) << ", x = time (" << T.Unit << ")</text>\n";
  std::vector<std::string> Names(NumRows, "other");
  for (auto &[F, R] : RowOf)
    Names[R] = F;
  auto ColourOf = [&](unsigned R) {
    return Other && R == NumRows - 1 ? std::string(OtherColour)
                                     : functionColour(Names[R]);
  };
  for (unsigned R = 0; R < NumRows; ++R)
    OS << format("<text x=\"4\" y=\"%.0f\">", Top + R * RowH + 13)
       << escapeMarkup(StringRef(Names[R]).take_front(26)) << "</text>\n";
  for (size_t I = 0; I < NW; ++I) {
    const Window &W = T.Windows[I];
    if (NW <= 60) // window borders, while they stay readable
      OS << format("<line x1=\"%.2f\" x2=\"%.2f\" y1=\"%.0f\" y2=\"%.0f\" "
                   "stroke=\"#ddd\"/>\n",
                   Left + (W.Start - T0) * Scale, Left + (W.Start - T0) * Scale,
                   Top, Top + NumRows * RowH);
    for (const Segment &S : W.Segments[unsigned(M)]) {
      if (S.Duration <= 0)
        continue;
      auto It = RowOf.find(S.Function);
      unsigned R = It == RowOf.end() ? NumRows - 1 : It->second;
      OS << format("<rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%.0f\""
                   " fill=\"%s\"><title>",
                   Left + (S.Start - T0) * Scale, Top + R * RowH + 2,
                   std::max(0.3, S.Duration * Scale), RowH - 4,
                   ColourOf(R).c_str())
         << escapeMarkup(S.Function) << " window " << I
         << format(" %.0f %s</title></rect>\n", S.Duration, T.Unit.c_str());
    }
  }
  OS << format("<text x=\"%.0f\" y=\"%.0f\">%.0f</text>\n", Left,
               Top + NumRows * RowH + 16, T0)
     << format("<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">%.0f</text>\n",
               Left + Width, Top + NumRows * RowH + 16, T1);
  OS << "<g class=\"timeline-legend\">\n";
  for (unsigned R = 0; R < NumRows; ++R) {
    double X = 4 + (R % LegendCols) * ((Left + Width) / LegendCols),
           Y = LegendTop + (R / LegendCols) * LegendRowH;
    OS << format("<rect x=\"%.0f\" y=\"%.0f\" width=\"10\" height=\"10\" "
                 "fill=\"%s\"/>",
                 X, Y, ColourOf(R).c_str())
       << format("<text x=\"%.0f\" y=\"%.0f\">", X + 14, Y + 9)
       << escapeMarkup(StringRef(Names[R]).take_front(34)) << "</text>\n";
  }
  OS << "</g>\n</svg>\n";
}

void writeTimelineHTML(const Timeline &T, const TimelineReport &R,
                       size_t MaxWindows, unsigned Rows, raw_ostream &OS) {
  OS << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
        "<title>LBR time line</title>\n<style>body{font-family:sans-serif}"
        "table{border-collapse:collapse;font-family:monospace;font-size:11px}"
        "td,th{border:1px solid #ccc;padding:1px 4px}</style></head><body>\n";
  OS << "<h1>LBR time line</h1>\n<pre>";
  std::string Text;
  raw_string_ostream TS(Text);
  printTimeline(T, R, TS);
  OS << escapeMarkup(Text) << "</pre>\n";
  for (unsigned M = 0; M < NumTimeMethods; ++M) {
    if (needsHW(TimeMethod(M)) && !T.HasHW)
      continue;
    OS << "<h2>method " << methodName(TimeMethod(M)) << "</h2>\n";
    writeTimelineSVG(T, TimeMethod(M), MaxWindows, Rows, OS);
  }
  size_t NW =
      std::min(MaxWindows ? MaxWindows : T.Windows.size(), T.Windows.size());
  size_t Depth = 0;
  for (size_t I = 0; I < NW; ++I)
    Depth = std::max(Depth, T.Windows[I].Froms.size());
  OS << "<h2>call sequence per sample</h2>\n<table><tr><th>sample</th>"
        "<th>start</th><th>sampled</th>";
  for (size_t D = 0; D < Depth; ++D)
    OS << "<th>FROM" << D << "</th>";
  OS << "</tr>\n";
  for (size_t I = 0; I < NW; ++I) {
    const Window &W = T.Windows[I];
    OS << "<tr><td>" << I << "</td><td>" << format("%.0f", W.Start)
       << "</td><td>" << escapeMarkup(W.Sampled) << "</td>";
    for (const std::string &F : W.Froms)
      OS << "<td>" << escapeMarkup(F) << "</td>";
    OS << "</tr>\n";
  }
  OS << "</table>\n</body></html>\n";
}

} // namespace keel
