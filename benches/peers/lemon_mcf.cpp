//! LEMON's min-cost-flow solvers on one network, as a peer for placer's flow engine
//! (Kovács, "Minimum-cost flow algorithms: an experimental evaluation", Optimization Methods
//! and Software 30(1), 2015, which measured these LEMON implementations).
//!
//! Not part of the build and not a project dependency: `benches/peers/build-lemon.sh` compiles
//! it against Debian's liblemon-dev into a scratch directory. `peers.py`, `scaling.py` and
//! `lemon_warm.py` write the network placer's structured engine solves (source -> task ->
//! replica node / rack / cluster -> node -> sink, integer costs) and run this program on it.
//!
//! Usage:
//!
//!     lemon_mcf NETWORK [--repeats R] [--algo ns|cs|both] [--cs-method push|augment|partial]
//!               [--delta DELTA]
//!
//! NETWORK is DIMACS min-cost flow (`p min N M`, `n ID SUPPLY`, `a TAIL HEAD LOW CAP COST`,
//! 1-based ids, `c` comments). DELTA lists changes to it in the same syntax: `a K LOW CAP COST`
//! sets arc K (1-based, in NETWORK's order) and `n ID SUPPLY` sets a node's supply.
//!
//! For each algorithm (NetworkSimplex with block search, CostScaling with partial augment
//! unless --cs-method says otherwise),
//! R times: "build" = a SmartDigraph, its arc and node maps, the solver and its parameter
//! maps, from the parsed arrays; "solve" = `run()` alone. With --delta, after each cold solve
//! of NETWORK the changed parameters are given to the same solver object ("update", timed) and
//! `run()` is called again ("rerun", timed), then NETWORK + DELTA is solved cold by a fresh
//! object. LEMON 1.3.1's `run()` starts every call from `init()` (zero flow, the artificial
//! spanning tree for NetworkSimplex; zero potentials for CostScaling), so the rerun keeps
//! the solver's allocations and nothing of the previous solution.
//!
//! Prints one JSON object: per algorithm the objective (sum of cost * flow, in the network's
//! integer units), the flow value out of sources, and lists of times in seconds.

#include <lemon/cost_scaling.h>
#include <lemon/network_simplex.h>
#include <lemon/smart_graph.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using Cost = long long;

struct Network {
  int nodes = 0;
  std::vector<Cost> supply;
  std::vector<int> tail, head;
  std::vector<Cost> low, cap, cost;
};

struct Delta {
  std::vector<int> arc;  // 0-based arc indices
  std::vector<Cost> low, cap, cost;
  std::vector<int> node;  // 0-based node ids
  std::vector<Cost> supply;
};

[[noreturn]] static void die(const std::string& msg) {
  std::fprintf(stderr, "lemon_mcf: %s\n", msg.c_str());
  std::exit(2);
}

static std::string slurp(const char* path) {
  FILE* f = std::fopen(path, "rb");
  if (!f) die(std::string("cannot open ") + path);
  std::string s;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
  std::fclose(f);
  return s;
}

// Reads the integers of one line after its letter; returns how many it read.
static int ints(const char*& p, const char* end, long long* out, int want) {
  int got = 0;
  while (p < end && *p != '\n') {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r')) ++p;
    if (p >= end || *p == '\n') break;
    char* q;
    long long v = std::strtoll(p, &q, 10);
    if (q == p) die("bad number");
    if (got < want) out[got] = v;
    ++got;
    p = q;
  }
  if (p < end) ++p;
  return got;
}

static Network read_network(const char* path) {
  std::string text = slurp(path);
  const char* p = text.data();
  const char* end = p + text.size();
  Network net;
  bool header = false;
  long long v[5];
  while (p < end) {
    char c = *p++;
    if (c == 'p') {
      while (p < end && *p == ' ') ++p;
      if (end - p < 3 || std::strncmp(p, "min", 3) != 0) die("not a min-cost flow problem");
      p += 3;
      if (ints(p, end, v, 2) != 2) die("bad p line");
      net.nodes = static_cast<int>(v[0]);
      net.supply.assign(net.nodes, 0);
      net.tail.reserve(v[1]), net.head.reserve(v[1]);
      net.low.reserve(v[1]), net.cap.reserve(v[1]), net.cost.reserve(v[1]);
      header = true;
    } else if (c == 'n') {
      if (!header || ints(p, end, v, 2) != 2 || v[0] < 1 || v[0] > net.nodes) die("bad n line");
      net.supply[v[0] - 1] = v[1];
    } else if (c == 'a') {
      if (!header || ints(p, end, v, 5) != 5) die("bad a line");
      if (v[0] < 1 || v[0] > net.nodes || v[1] < 1 || v[1] > net.nodes) die("arc end out of range");
      net.tail.push_back(static_cast<int>(v[0] - 1));
      net.head.push_back(static_cast<int>(v[1] - 1));
      net.low.push_back(v[2]), net.cap.push_back(v[3]), net.cost.push_back(v[4]);
    } else {
      while (p < end && *p != '\n') ++p;  // comment or blank line
      if (p < end) ++p;
    }
  }
  if (!header) die("no p line");
  return net;
}

static Delta read_delta(const char* path, const Network& net) {
  std::string text = slurp(path);
  const char* p = text.data();
  const char* end = p + text.size();
  Delta d;
  long long v[4];
  while (p < end) {
    char c = *p++;
    if (c == 'a') {
      if (ints(p, end, v, 4) != 4 || v[0] < 1 || v[0] > static_cast<long long>(net.tail.size()))
        die("bad delta a line");
      d.arc.push_back(static_cast<int>(v[0] - 1));
      d.low.push_back(v[1]), d.cap.push_back(v[2]), d.cost.push_back(v[3]);
    } else if (c == 'n') {
      if (ints(p, end, v, 2) != 2 || v[0] < 1 || v[0] > net.nodes) die("bad delta n line");
      d.node.push_back(static_cast<int>(v[0] - 1));
      d.supply.push_back(v[1]);
    } else {
      while (p < end && *p != '\n') ++p;
      if (p < end) ++p;
    }
  }
  return d;
}

static Network apply(Network net, const Delta& d) {
  for (size_t i = 0; i < d.arc.size(); ++i) {
    net.low[d.arc[i]] = d.low[i], net.cap[d.arc[i]] = d.cap[i], net.cost[d.arc[i]] = d.cost[i];
  }
  for (size_t i = 0; i < d.node.size(); ++i) net.supply[d.node[i]] = d.supply[i];
  return net;
}

static double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

using G = lemon::SmartDigraph;

// The graph and its parameter maps, built from the arrays.
struct Built {
  G g;
  std::vector<G::Arc> arcs;
  std::vector<G::Node> nodes;
  G::ArcMap<Cost> low, cap, cost;
  G::NodeMap<Cost> supply;
  explicit Built(const Network& net) : low(g), cap(g), cost(g), supply(g) {
    g.reserveNode(net.nodes);
    g.reserveArc(static_cast<int>(net.tail.size()));
    nodes.reserve(net.nodes);
    for (int i = 0; i < net.nodes; ++i) nodes.push_back(g.addNode());
    arcs.reserve(net.tail.size());
    for (size_t i = 0; i < net.tail.size(); ++i) arcs.push_back(g.addArc(nodes[net.tail[i]], nodes[net.head[i]]));
    // SmartDigraph's maps were sized when constructed (empty graph); they grow with the graph.
    for (size_t i = 0; i < arcs.size(); ++i) {
      low[arcs[i]] = net.low[i], cap[arcs[i]] = net.cap[i], cost[arcs[i]] = net.cost[i];
    }
    for (int i = 0; i < net.nodes; ++i) supply[nodes[i]] = net.supply[i];
  }
  bool has_lower() const {
    for (G::ArcIt a(g); a != lemon::INVALID; ++a)
      if (low[a] != 0) return true;
    return false;
  }
  void update(const Delta& d) {
    for (size_t i = 0; i < d.arc.size(); ++i) {
      G::Arc a = arcs[d.arc[i]];
      low[a] = d.low[i], cap[a] = d.cap[i], cost[a] = d.cost[i];
    }
    for (size_t i = 0; i < d.node.size(); ++i) supply[nodes[d.node[i]]] = d.supply[i];
  }
};

struct Result {
  Cost objective = 0;
  Cost flow_out = 0;
  std::vector<double> build, solve, update, rerun, cold_build, cold_solve;
  Cost rerun_objective = 0, cold_objective = 0;
};

template <typename Solver>
static void give(Solver& s, Built& b, bool lower) {
  if (lower) s.lowerMap(b.low);
  // Supplies sum to zero here, so LEMON's default (GEQ) constraints are equalities.
  s.upperMap(b.cap).costMap(b.cost).supplyMap(b.supply);
}

template <typename Solver>
static Cost outflow(const Solver& s, const Built& b) {
  Cost out = 0;
  for (G::NodeIt n(b.g); n != lemon::INVALID; ++n) {
    if (b.supply[n] <= 0) continue;
    for (G::OutArcIt a(b.g, n); a != lemon::INVALID; ++a) out += s.flow(a);
  }
  return out;
}

template <typename Solver, typename Run>
static Result measure(const Network& net, const Delta* delta, int repeats, Run run) {
  Result r;
  Network changed;
  if (delta) changed = apply(net, *delta);
  for (int k = 0; k < repeats; ++k) {
    double t0 = now();
    Built b(net);
    bool lower = b.has_lower();
    Solver s(b.g);
    give(s, b, lower);
    double t1 = now();
    if (run(s) != Solver::OPTIMAL) die("not optimal");
    double t2 = now();
    r.build.push_back(t1 - t0), r.solve.push_back(t2 - t1);
    r.objective = s.template totalCost<Cost>();
    r.flow_out = outflow(s, b);
    if (!delta) continue;
    // The same object after the delta: new parameter values, then run() again.
    double t3 = now();
    b.update(*delta);
    give(s, b, lower || b.has_lower());
    double t4 = now();
    if (run(s) != Solver::OPTIMAL) die("rerun not optimal");
    double t5 = now();
    r.update.push_back(t4 - t3), r.rerun.push_back(t5 - t4);
    r.rerun_objective = s.template totalCost<Cost>();
    // Cold on the changed network: a fresh graph and solver.
    double t6 = now();
    Built c(changed);
    Solver s2(c.g);
    give(s2, c, c.has_lower());
    double t7 = now();
    if (run(s2) != Solver::OPTIMAL) die("cold after delta not optimal");
    double t8 = now();
    r.cold_build.push_back(t7 - t6), r.cold_solve.push_back(t8 - t7);
    r.cold_objective = s2.template totalCost<Cost>();
  }
  return r;
}

static std::string list(const std::vector<double>& xs) {
  std::string s = "[";
  char buf[32];
  for (size_t i = 0; i < xs.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%s%.9f", i ? ", " : "", xs[i]);
    s += buf;
  }
  return s + "]";
}

static std::string json(const Result& r, bool delta) {
  std::string s = "{\"objective\": " + std::to_string(r.objective) +
                  ", \"flow\": " + std::to_string(r.flow_out) + ", \"build\": " + list(r.build) +
                  ", \"solve\": " + list(r.solve);
  if (delta) {
    s += ", \"update\": " + list(r.update) + ", \"rerun\": " + list(r.rerun) +
         ", \"rerun_objective\": " + std::to_string(r.rerun_objective) +
         ", \"cold_build\": " + list(r.cold_build) + ", \"cold_solve\": " + list(r.cold_solve) +
         ", \"cold_objective\": " + std::to_string(r.cold_objective);
  }
  return s + "}";
}

int main(int argc, char** argv) {
  if (argc < 2) die("usage: lemon_mcf NETWORK [--repeats R] [--algo ns|cs|both] "
        "[--cs-method push|augment|partial] [--delta DELTA]");
  const char* network = argv[1];
  const char* delta_path = nullptr;
  int repeats = 1;
  std::string algo = "both";
  std::string cs_method = "partial";
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--repeats" && i + 1 < argc) {
      repeats = std::atoi(argv[++i]);
      if (repeats < 1) die("--repeats must be at least 1");
    } else if (a == "--algo" && i + 1 < argc) {
      algo = argv[++i];
      if (algo != "ns" && algo != "cs" && algo != "both") die("--algo is ns, cs or both");
    } else if (a == "--cs-method" && i + 1 < argc) {
      cs_method = argv[++i];
      if (cs_method != "push" && cs_method != "augment" && cs_method != "partial")
        die("--cs-method is push, augment or partial");
    } else if (a == "--delta" && i + 1 < argc) {
      delta_path = argv[++i];
    } else {
      die("unknown argument " + a);
    }
  }
  double t0 = now();
  Network net = read_network(network);
  Delta delta;
  if (delta_path) delta = read_delta(delta_path, net);
  double read_s = now() - t0;
  const Delta* dp = delta_path ? &delta : nullptr;

  std::string out = "{\"nodes\": " + std::to_string(net.nodes) +
                    ", \"arcs\": " + std::to_string(net.tail.size()) +
                    ", \"read\": " + list({read_s});
  if (algo != "cs") {
    using NS = lemon::NetworkSimplex<G, Cost, Cost>;
    Result r = measure<NS>(net, dp, repeats, [](NS& s) { return s.run(NS::BLOCK_SEARCH); });
    out += ", \"network_simplex\": " + json(r, dp);
  }
  if (algo != "ns") {
    using CS = lemon::CostScaling<G, Cost, Cost>;
    const typename CS::Method method = cs_method == "push"      ? CS::PUSH
                                       : cs_method == "augment" ? CS::AUGMENT
                                                                : CS::PARTIAL_AUGMENT;
    Result r = measure<CS>(net, dp, repeats, [method](CS& s) { return s.run(method); });
    out += ", \"cost_scaling\": " + json(r, dp);
  }
  std::printf("%s}\n", out.c_str());
  return 0;
}
