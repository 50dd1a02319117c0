//===- FunctionOrder.cpp - C3, Pettis-Hansen, CDSort, Ext-TSP -------------===//
//
// All algorithms work on a subset of the call graph's nodes (the hot ones),
// re-indexed locally; arcs with an end outside the subset are ignored.
// Every choice breaks ties by the subset's order, so the output is
// deterministic.
//
//===----------------------------------------------------------------------===//
#include "keel/Planner/FunctionOrder.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Transforms/Utils/CodeLayout.h"

#include <map>
#include <numeric>

using namespace llvm;

namespace keel {

StringRef orderAlgorithmName(OrderAlgorithm A) {
  switch (A) {
  case OrderAlgorithm::C3:
    return "c3";
  case OrderAlgorithm::PettisHansen:
    return "ph";
  case OrderAlgorithm::CDSort:
    return "cdsort";
  case OrderAlgorithm::ExtTsp:
    return "exttsp";
  case OrderAlgorithm::None:
    return "none";
  }
  return "none";
}

std::optional<OrderAlgorithm> parseOrderAlgorithm(StringRef Name) {
  for (OrderAlgorithm A :
       {OrderAlgorithm::C3, OrderAlgorithm::PettisHansen, OrderAlgorithm::CDSort,
        OrderAlgorithm::ExtTsp, OrderAlgorithm::None})
    if (Name == orderAlgorithmName(A))
      return A;
  return std::nullopt;
}

namespace {

/// The subgraph induced by a node subset, with local indices.
struct SubGraph {
  std::vector<uint32_t> Global;   ///< local -> graph index
  std::vector<uint64_t> Size;     ///< bytes, at least 1
  std::vector<uint64_t> Weight;   ///< node weight
  std::vector<uint64_t> Calls;    ///< incoming calls
  std::vector<CallArc> Arcs;      ///< local indices, no self arcs

  SubGraph(const CallGraph &G, ArrayRef<uint32_t> Nodes) : Global(Nodes) {
    std::map<uint32_t, uint32_t> Local;
    for (uint32_t I = 0; I < Nodes.size(); ++I) {
      Local.emplace(Nodes[I], I);
      const FunctionNode &N = G.Nodes[Nodes[I]];
      Size.push_back(std::max<uint64_t>(N.Size, 1));
      Weight.push_back(N.Weight);
      Calls.push_back(N.Calls);
    }
    for (const CallArc &A : G.Arcs) {
      auto F = Local.find(A.Caller), T = Local.find(A.Callee);
      if (F != Local.end() && T != Local.end() && F->second != T->second &&
          A.Count)
        Arcs.push_back({F->second, T->second, A.Count});
    }
  }
  size_t size() const { return Global.size(); }
  std::vector<uint32_t> toGlobal(ArrayRef<uint32_t> LocalOrder) const {
    std::vector<uint32_t> Out;
    for (uint32_t L : LocalOrder)
      Out.push_back(Global[L]);
    return Out;
  }
};

/// A sequence of nodes laid out together.
struct Cluster {
  std::vector<uint32_t> Members;
  uint64_t Size = 0, Weight = 0;
  double density() const { return double(Weight) / double(Size); }
};

/// Clusters that are still alive, densest first (ties: first member order).
std::vector<uint32_t> concatByDensity(std::vector<Cluster> &Cs) {
  std::vector<uint32_t> Live;
  for (uint32_t I = 0; I < Cs.size(); ++I)
    if (!Cs[I].Members.empty())
      Live.push_back(I);
  llvm::stable_sort(Live, [&](uint32_t A, uint32_t B) {
    return Cs[A].density() > Cs[B].density();
  });
  std::vector<uint32_t> Order;
  for (uint32_t C : Live)
    llvm::append_range(Order, Cs[C].Members);
  return Order;
}

std::vector<Cluster> singletonClusters(const SubGraph &S) {
  std::vector<Cluster> Cs(S.size());
  for (uint32_t I = 0; I < S.size(); ++I)
    Cs[I] = Cluster{{I}, S.Size[I], S.Weight[I]};
  return Cs;
}

} // namespace

// C3 (Ottoni & Maher, "Optimizing Function Placement for Large-Scale
// Data-Center Applications", CGO'17): visit functions densest first (like
// lld; hottest-first measured slightly worse) and append each one's cluster
// to the cluster of its most frequent caller, so a caller and its hot
// callee end up adjacent, callee after caller; then sort clusters by
// density (executed instructions per byte).
std::vector<uint32_t> orderC3(const CallGraph &G, ArrayRef<uint32_t> Nodes,
                              uint64_t ClusterLimit) {
  SubGraph S(G, Nodes);
  // A merge may dilute the caller's cluster at most this much: a cold-ish
  // callee should not push a dense cluster down the final order.
  constexpr double MaxDensityDegradation = 8.0;
  // An arc carrying at most a tenth of the callee's incoming calls says
  // little about where the callee is called from.
  constexpr uint64_t UnlikelyArcFactor = 10;

  std::vector<Cluster> Cs = singletonClusters(S);
  std::vector<uint32_t> Leader(S.size());
  std::iota(Leader.begin(), Leader.end(), 0);
  std::vector<int64_t> BestCaller(S.size(), -1);
  std::vector<uint64_t> BestCount(S.size(), 0), Incoming(S.size(), 0);
  for (const CallArc &A : S.Arcs) {
    Incoming[A.Callee] += A.Count;
    if (A.Count > BestCount[A.Callee] ||
        (A.Count == BestCount[A.Callee] && A.Caller < BestCaller[A.Callee])) {
      BestCount[A.Callee] = A.Count;
      BestCaller[A.Callee] = A.Caller;
    }
  }
  auto Find = [&](uint32_t V) {
    while (Leader[V] != V)
      V = Leader[V] = Leader[Leader[V]];
    return V;
  };

  std::vector<uint32_t> Visit(S.size());
  std::iota(Visit.begin(), Visit.end(), 0);
  llvm::stable_sort(Visit, [&](uint32_t A, uint32_t B) {
    return Cs[A].density() > Cs[B].density();
  });
  for (uint32_t F : Visit) {
    // F is still the leader of its own cluster: only F's own visit merges it.
    if (BestCaller[F] < 0 ||
        BestCount[F] * UnlikelyArcFactor <= Incoming[F])
      continue;
    uint32_t Into = Find(BestCaller[F]);
    if (Into == F)
      continue;
    Cluster &A = Cs[Into], &B = Cs[F];
    if (A.Size + B.Size > ClusterLimit)
      continue;
    double Merged = double(A.Weight + B.Weight) / double(A.Size + B.Size);
    if (Merged < A.density() / MaxDensityDegradation)
      continue;
    llvm::append_range(A.Members, B.Members);
    A.Size += B.Size;
    A.Weight += B.Weight;
    B = Cluster();
    Leader[F] = Into;
  }
  return S.toGlobal(concatByDensity(Cs));
}

// Pettis & Hansen, "Profile Guided Code Positioning" (PLDI'90), section 4:
// on the undirected call graph, repeatedly merge the two chains joined by
// the heaviest edge, choosing among the four orientations the one that puts
// the endpoints of their heaviest node-level edge closest together.
std::vector<uint32_t> orderPettisHansen(const CallGraph &G,
                                        ArrayRef<uint32_t> Nodes) {
  SubGraph S(G, Nodes);
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> NodeEdges;
  for (const CallArc &A : S.Arcs)
    NodeEdges[{std::min(A.Caller, A.Callee), std::max(A.Caller, A.Callee)}] +=
        A.Count;

  std::vector<Cluster> Cs = singletonClusters(S);
  std::vector<uint32_t> ChainOf(S.size());
  std::iota(ChainOf.begin(), ChainOf.end(), 0);
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> ChainEdges = NodeEdges;

  // Byte distance between the middles of X and Y in the sequence Seq.
  auto Distance = [&](const std::vector<uint32_t> &Seq, uint32_t X,
                      uint32_t Y) {
    uint64_t Pos = 0, PX = 0, PY = 0;
    for (uint32_t N : Seq) {
      if (N == X)
        PX = Pos + S.Size[N] / 2;
      if (N == Y)
        PY = Pos + S.Size[N] / 2;
      Pos += S.Size[N];
    }
    return PX > PY ? PX - PY : PY - PX;
  };

  while (!ChainEdges.empty()) {
    auto Best = ChainEdges.begin();
    for (auto It = ChainEdges.begin(); It != ChainEdges.end(); ++It)
      if (It->second > Best->second)
        Best = It;
    auto [CA, CB] = Best->first;
    // The heaviest node-level edge between the two chains.
    uint32_t X = 0, Y = 0;
    uint64_t W = 0;
    for (const auto &[K, C] : NodeEdges) {
      uint32_t CX = ChainOf[K.first], CY = ChainOf[K.second];
      if (((CX == CA && CY == CB) || (CX == CB && CY == CA)) && C > W) {
        W = C;
        X = K.first;
        Y = K.second;
      }
    }
    std::vector<uint32_t> A = Cs[CA].Members, B = Cs[CB].Members;
    std::vector<uint32_t> RA(A.rbegin(), A.rend()), RB(B.rbegin(), B.rend());
    std::vector<uint32_t> BestSeq;
    uint64_t BestDist = UINT64_MAX;
    for (const auto *First : {&A, &RA})
      for (const auto *Second : {&B, &RB}) {
        std::vector<uint32_t> Seq = *First;
        llvm::append_range(Seq, *Second);
        uint64_t D = Distance(Seq, X, Y);
        if (D < BestDist) {
          BestDist = D;
          BestSeq = std::move(Seq);
        }
      }
    Cs[CA].Members = std::move(BestSeq);
    Cs[CA].Size += Cs[CB].Size;
    Cs[CA].Weight += Cs[CB].Weight;
    Cs[CB] = Cluster();
    for (uint32_t N : Cs[CA].Members)
      ChainOf[N] = CA;
    // Re-key the chain edges of CB onto CA.
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> Next;
    for (const auto &[K, C] : ChainEdges) {
      uint32_t P = K.first == CB ? CA : K.first;
      uint32_t Q = K.second == CB ? CA : K.second;
      if (P != Q)
        Next[{std::min(P, Q), std::max(P, Q)}] += C;
    }
    ChainEdges = std::move(Next);
  }
  return S.toGlobal(concatByDensity(Cs));
}

// Cache-Directed Sort as lld runs it for --call-graph-profile-sort=cdsort:
// a node's count is its incoming calls (executed instructions measured
// worse: docs/planner.md), and functions without arcs take part too.
std::vector<uint32_t> orderCDSort(const CallGraph &G, ArrayRef<uint32_t> Nodes) {
  SubGraph S(G, Nodes);
  std::vector<codelayout::EdgeCount> Edges;
  std::vector<uint64_t> Offsets;
  for (const CallArc &A : S.Arcs) {
    Edges.push_back({A.Caller, A.Callee, A.Count});
    // The profile has no call-site offsets; assume the middle, as lld does.
    Offsets.push_back((S.Size[A.Caller] + 1) / 2);
  }
  std::vector<uint64_t> Order =
      codelayout::computeCacheDirectedLayout(S.Size, S.Calls, Edges, Offsets);
  std::vector<uint32_t> Local(Order.begin(), Order.end());
  return S.toGlobal(Local);
}

// Ext-TSP treats node 0 as the entry and keeps it first; give it the
// hottest function so the fixed point is a sensible one.
std::vector<uint32_t> orderExtTsp(const CallGraph &G, ArrayRef<uint32_t> Nodes) {
  std::vector<uint32_t> ByWeight(Nodes);
  llvm::stable_sort(ByWeight, [&](uint32_t A, uint32_t B) {
    return G.Nodes[A].Weight > G.Nodes[B].Weight;
  });
  SubGraph S(G, ByWeight);
  std::vector<codelayout::EdgeCount> Edges;
  for (const CallArc &A : S.Arcs)
    Edges.push_back({A.Caller, A.Callee, A.Count});
  std::vector<uint64_t> Order =
      codelayout::computeExtTspLayout(S.Size, S.Weight, Edges);
  std::vector<uint32_t> Local(Order.begin(), Order.end());
  return S.toGlobal(Local);
}

std::vector<uint32_t> orderFunctions(OrderAlgorithm A, const CallGraph &G,
                                     ArrayRef<uint32_t> Nodes) {
  switch (A) {
  case OrderAlgorithm::C3:
    return orderC3(G, Nodes);
  case OrderAlgorithm::PettisHansen:
    return orderPettisHansen(G, Nodes);
  case OrderAlgorithm::CDSort:
    return orderCDSort(G, Nodes);
  case OrderAlgorithm::ExtTsp:
    return orderExtTsp(G, Nodes);
  case OrderAlgorithm::None:
    break;
  }
  std::vector<uint32_t> Out(Nodes);
  llvm::stable_sort(Out, [&](uint32_t A, uint32_t B) {
    return G.Nodes[A].Addr < G.Nodes[B].Addr;
  });
  return Out;
}

} // namespace keel
