//===- PlanIndex.cpp - a plan file indexed by symbol name -----------------===//
#include "PlanIndex.h"

#include <map>
#include <mutex>
#include <string>
#include <tuple>

using namespace llvm;

namespace keel {
namespace layoutopt {

namespace {

// A region's head is the entry with the lowest (order, position in the
// file): every translation unit computes the same head from the same plan,
// so exactly one definition in the program gets the region alignment.
template <typename T, typename Pred>
std::optional<unsigned> firstInOrder(const std::vector<T> &Entries, Pred P) {
  std::optional<unsigned> Best;
  for (unsigned I = 0, E = Entries.size(); I != E; ++I) {
    if (!P(Entries[I]))
      continue;
    if (!Best || std::make_tuple(Entries[I].Order, I) <
                     std::make_tuple(Entries[*Best].Order, *Best))
      Best = I;
  }
  return Best;
}

} // namespace

std::shared_ptr<const PlanIndex> indexPlan(Plan P) {
  auto Index = std::make_shared<PlanIndex>();
  Index->ThePlan = std::move(P);
  const Plan &Pl = Index->ThePlan;
  for (unsigned I = 0, E = Pl.Functions.size(); I != E; ++I)
    Index->Functions[Pl.Functions[I].Name].push_back(I);
  for (unsigned I = 0, E = Pl.Globals.size(); I != E; ++I)
    Index->Globals[Pl.Globals[I].Name].push_back(I);
  for (unsigned I = 0, E = Pl.FalseSharing.size(); I != E; ++I)
    Index->FalseSharing[Pl.FalseSharing[I].Name].push_back(I);
  Index->TextRegionHead = firstInOrder(Pl.Functions, [](const PlanFunction &F) {
    return F.Class == Temperature::Hot;
  });
  for (DataKind K : {DataKind::Data, DataKind::BSS, DataKind::ROData})
    Index->DataRegionHead[unsigned(K)] = firstInOrder(
        Pl.Globals, [K](const PlanGlobal &G) { return G.Kind == K; });
  return Index;
}

Expected<std::shared_ptr<const PlanIndex>> loadPlan(StringRef Path) {
  struct Entry {
    std::shared_ptr<const PlanIndex> Index;
    std::string Error;
  };
  static std::mutex Lock;
  static std::map<std::string, Entry> Cache;

  std::lock_guard<std::mutex> Guard(Lock);
  auto [It, Inserted] = Cache.try_emplace(Path.str());
  if (Inserted) {
    Expected<Plan> P = readPlan(Path);
    if (P)
      It->second.Index = indexPlan(std::move(*P));
    else
      It->second.Error = toString(P.takeError());
  }
  if (!It->second.Index)
    return createStringError(inconvertibleErrorCode(), It->second.Error);
  return It->second.Index;
}

StringRef planName(StringRef IRName) {
  size_t Pos = IRName.find(".llvm.");
  return Pos == StringRef::npos ? IRName : IRName.take_front(Pos);
}

static StringRef normalizePath(StringRef P) {
  while (P.consume_front("./"))
    ;
  return P;
}

static bool isPathSuffix(StringRef Long, StringRef Short) {
  if (!Long.ends_with(Short))
    return false;
  return Long.size() == Short.size() ||
         Long[Long.size() - Short.size() - 1] == '/';
}

bool fileMatches(StringRef PlanFile, StringRef SourceFile) {
  PlanFile = normalizePath(PlanFile);
  SourceFile = normalizePath(SourceFile);
  if (PlanFile.empty() || SourceFile.empty())
    return false;
  return isPathSuffix(SourceFile, PlanFile) ||
         isPathSuffix(PlanFile, SourceFile);
}

} // namespace layoutopt
} // namespace keel
