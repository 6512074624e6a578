#include "stats/stats_record.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <sstream>

#include "stats/json_text.h"

namespace scopedsm {

namespace {

uint64_t sum_prefix(const StatsRecord& r, const std::string& prefix) {
  uint64_t s = 0;
  for (const auto& [k, v] : r.values)
    if (k.compare(0, prefix.size(), prefix) == 0) s += v;
  return s;
}

}  // namespace

uint64_t StatsRecord::get(const std::string& name) const {
  for (const auto& [k, v] : values)
    if (k == name) return v;
  return 0;
}

std::vector<std::byte> StatsRecord::serialize() const {
  std::vector<std::byte> out;
  auto put = [&](const void* p, size_t n) {
    size_t at = out.size();
    out.resize(at + n);
    std::memcpy(out.data() + at, p, n);
  };
  put(&rank, sizeof rank);
  put(&elapsed_s, sizeof elapsed_s);
  put(&segv_cost_ns, sizeof segv_cost_ns);
  uint32_t n = static_cast<uint32_t>(values.size());
  put(&n, sizeof n);
  for (const auto& [k, v] : values) {
    uint32_t len = static_cast<uint32_t>(k.size());
    put(&len, sizeof len);
    put(k.data(), len);
    put(&v, sizeof v);
  }
  return out;
}

bool StatsRecord::deserialize(const std::byte* data, size_t n, StatsRecord* out) {
  size_t pos = 0;
  auto get = [&](void* p, size_t k) {
    if (n - pos < k) return false;
    std::memcpy(p, data + pos, k);
    pos += k;
    return true;
  };
  uint32_t count = 0;
  if (!get(&out->rank, sizeof out->rank) || !get(&out->elapsed_s, sizeof out->elapsed_s) ||
      !get(&out->segv_cost_ns, sizeof out->segv_cost_ns) || !get(&count, sizeof count))
    return false;
  out->values.clear();
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t len = 0;
    if (!get(&len, sizeof len) || n - pos < len) return false;
    std::string k(reinterpret_cast<const char*>(data + pos), len);
    pos += len;
    uint64_t v = 0;
    if (!get(&v, sizeof v)) return false;
    out->values.push_back({std::move(k), v});
  }
  return pos == n;
}

namespace {

struct Breakdown {
  double total, busy, data, segv, syn, atomic, server, diff;
};

Breakdown breakdown(const StatsRecord& r) {
  Breakdown b{};
  b.total = r.elapsed_s;
  b.data = static_cast<double>(r.get("t_data_ns")) / 1e9;
  uint64_t faults = r.get("read_faults") + r.get("write_faults");
  b.segv = static_cast<double>(faults) * r.segv_cost_ns / 1e9;
  b.syn = static_cast<double>(r.get("t_syn_ns")) / 1e9;
  b.atomic = static_cast<double>(r.get("t_atomic_ns")) / 1e9;
  b.server = static_cast<double>(r.get("t_server_ns")) / 1e9;
  b.diff = static_cast<double>(r.get("t_diff_make_ns") + r.get("t_diff_apply_ns")) / 1e9;
  b.busy = b.total - b.data - b.segv - b.syn - b.atomic;
  if (b.busy < 0) b.busy = 0;
  return b;
}

// The time the communication-cost model injected (SCOPEDSM_NET), by
// category, in seconds: the counters net_<category>_ns.
constexpr const char* kInjected[] = {"overhead", "occupancy", "bandwidth", "latency", "queue", "interrupt"};

double injected_s(const StatsRecord& r, const char* category) {
  return static_cast<double>(r.get(std::string("net_") + category + "_ns")) / 1e9;
}

bool net_modelled(const StatsRecord& r) {
  return r.get("net_msgs") + r.get("net_one_sided") + r.get("net_interrupts") != 0;
}

// "nodes: vm (ranks 0-1), w2 (ranks 2, 5)\n": each node's host (its first
// rank's) and ranks, in node order, the first kSummaryNodes of them.
std::string nodes_line(const std::vector<StatsRecord>& records, const std::vector<std::string>& hosts) {
  std::map<uint64_t, std::vector<int>> ranks;  // node -> its ranks, ascending
  for (const auto& r : records) ranks[r.get("node")].push_back(r.rank);
  std::string out = "nodes:";
  size_t shown = 0;
  for (auto& [node, list] : ranks) {
    if (shown == kSummaryNodes) {
      out += " and " + std::to_string(ranks.size() - shown) + " more (the statistics file lists every node)";
      break;
    }
    std::sort(list.begin(), list.end());
    const auto first = static_cast<size_t>(list.front());
    out += std::string(shown == 0 ? " " : ", ") + (first < hosts.size() ? hosts[first] : std::string("?"));
    out += list.size() == 1 ? " (rank " : " (ranks ";
    const bool contiguous = list.back() - list.front() + 1 == static_cast<int>(list.size());
    if (contiguous && list.size() > 2) {
      out += std::to_string(list.front()) + "-" + std::to_string(list.back());
    } else {
      for (size_t i = 0; i < list.size(); ++i) out += (i ? ", " : "") + std::to_string(list[i]);
    }
    out += ")";
    ++shown;
  }
  return out + "\n";
}

}  // namespace

std::string format_summary(const std::vector<StatsRecord>& records, const std::vector<std::string>& hosts) {
  std::ostringstream os;
  char line[512];
  os << "ScopeDSM statistics (measured region; times in seconds)\n";
  std::snprintf(line, sizeof line, "%4s %8s %8s %8s %8s %8s %8s %8s %8s | %8s %8s %8s %9s %8s %9s %8s\n", "rank",
                "total", "busy", "data", "segv", "syn", "atomic", "server", "diff", "rfaults", "wfaults", "fetches", "diffKB", "invals",
                "sentMsgs", "sentKB");
  os << line;
  for (const auto& r : records) {
    Breakdown b = breakdown(r);
    uint64_t msgs = sum_prefix(r, "msgs_sent_");
    uint64_t bytes = sum_prefix(r, "bytes_sent_");
    std::snprintf(line, sizeof line,
                  "%4d %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f | %8llu %8llu %8llu %9.1f %8llu %9llu %8.1f\n",
                  r.rank, b.total, b.busy, b.data, b.segv, b.syn, b.atomic, b.server, b.diff,
                  static_cast<unsigned long long>(r.get("read_faults")),
                  static_cast<unsigned long long>(r.get("write_faults")),
                  static_cast<unsigned long long>(r.get("remote_fetches")),
                  static_cast<double>(r.get("diff_bytes_made")) / 1024.0,
                  static_cast<unsigned long long>(r.get("invalidations")), static_cast<unsigned long long>(msgs),
                  static_cast<double>(bytes) / 1024.0);
    os << line;
  }
  // DOALL loops (runtime/loop.h), when the program ran any: per rank, the
  // chunks taken, how many were stolen, and what each grab cost.
  for (const auto& r : records) {
    const uint64_t grabs = r.get("loop_grabs");
    if (grabs == 0) continue;
    std::snprintf(line, sizeof line, "loops: rank %d: %llu grabs, %llu steals, %.2f syncs/grab, %.2f msgs/grab\n",
                  r.rank, static_cast<unsigned long long>(grabs),
                  static_cast<unsigned long long>(r.get("loop_steals")),
                  static_cast<double>(r.get("loop_syncs")) / static_cast<double>(grabs),
                  static_cast<double>(r.get("loop_messages")) / static_cast<double>(grabs));
    os << line;
  }
  // Task migration (jia_lbarrier), when any was decided: per rank, the
  // decisions, the iterations it took over and the pages it became home of.
  for (const auto& r : records) {
    const uint64_t decided = r.get("taskmig_decisions");
    if (decided == 0) continue;
    std::snprintf(line, sizeof line, "task migration: rank %d: %llu migrations decided, %llu iterations taken over, "
                  "%llu pages re-homed\n", r.rank, static_cast<unsigned long long>(decided),
                  static_cast<unsigned long long>(r.get("taskmig_moved")),
                  static_cast<unsigned long long>(r.get("taskmig_rehomed")));
    os << line;
  }
  // Injected communication costs, when the model charged any.
  if (std::any_of(records.begin(), records.end(), net_modelled)) {
    os << "injected by SCOPEDSM_NET (seconds; included in the times above)\n";
    std::snprintf(line, sizeof line, "%4s %9s %9s %9s %9s %9s %9s | %8s %8s %8s %8s\n", "rank", "overhead", "occupancy",
                  "bandwidth", "latency", "queue", "interrupt", "netMsgs", "packets", "intrs", "oneSided");
    os << line;
    for (const auto& r : records) {
      std::snprintf(line, sizeof line, "%4d %9.4f %9.4f %9.4f %9.4f %9.4f %9.4f | %8llu %8llu %8llu %8llu\n", r.rank,
                    injected_s(r, "overhead"), injected_s(r, "occupancy"), injected_s(r, "bandwidth"),
                    injected_s(r, "latency"), injected_s(r, "queue"), injected_s(r, "interrupt"),
                    static_cast<unsigned long long>(r.get("net_msgs")),
                    static_cast<unsigned long long>(r.get("net_packets")),
                    static_cast<unsigned long long>(r.get("net_interrupts")),
                    static_cast<unsigned long long>(r.get("net_one_sided")));
      os << line;
    }
  }
  // The node layout every record carries (Stats::set_layout).
  if (!records.empty()) {
    uint64_t most = 0;
    bool shared = false, rma = false;
    for (const auto& r : records) {
      most = std::max(most, r.get("node_procs"));
      shared = shared || r.get("node_shared") != 0;
      rma = rma || r.get("rma") != 0;
    }
    const uint64_t nodes = records.front().get("nodes");
    const char* across = rma ? "pages of other nodes are read one-sided (MPI_Get)" : "pages of other nodes travel by message";
    std::snprintf(line, sizeof line, "layout: %zu process%s on %llu node%s, at most %llu per node; %s%s\n",
                  records.size(), records.size() == 1 ? "" : "es", static_cast<unsigned long long>(nodes), nodes == 1 ? "" : "s", static_cast<unsigned long long>(most),
                  shared ? "node peers copy pages from each other's memory; " : "", across);
    os << line;
    if (!hosts.empty()) os << nodes_line(records, hosts);
  }
  return os.str();
}

namespace {

// One rank's object; `host` is left out when unknown.
Json rank_object(const StatsRecord& r, const std::string* host) {
  const Breakdown b = breakdown(r);
  Json j;
  j["rank"] = r.rank;
  if (host != nullptr) j["host"] = *host;
  j["elapsed_s"] = r.elapsed_s;
  j["segv_cost_ns"] = r.segv_cost_ns;
  j["time_s"] = {{"total", b.total}, {"busy", b.busy},     {"data", b.data}, {"segv", b.segv},
                 {"syn", b.syn},     {"atomic", b.atomic}, {"server", b.server}, {"diff", b.diff}};
  Json injected = Json::object();
  for (const char* category : kInjected) injected[category] = injected_s(r, category);
  j["injected_s"] = std::move(injected);
  Json counters = Json::object();
  for (const auto& [k, v] : r.values) counters[k] = v;
  j["counters"] = std::move(counters);
  j["messages_sent"] = sum_prefix(r, "msgs_sent_");
  j["bytes_sent"] = sum_prefix(r, "bytes_sent_");
  return j;
}

// The nodes, in node order, from the layout values every record carries:
// each node's ranks, the host of its first rank, and whether its processes
// copy pages from each other's memory.
Json node_list(const std::vector<StatsRecord>& records, const std::vector<std::string>& hosts) {
  std::vector<std::pair<uint64_t, size_t>> by_node;  // (node, index of record)
  for (size_t i = 0; i < records.size(); ++i) by_node.push_back({records[i].get("node"), i});
  std::stable_sort(by_node.begin(), by_node.end(), [](auto& a, auto& b) { return a.first < b.first; });
  Json nodes = Json::array();
  for (size_t i = 0; i < by_node.size(); ++i) {
    const StatsRecord& r = records[by_node[i].second];
    if (i == 0 || by_node[i - 1].first != by_node[i].first) {
      Json node;
      node["node"] = by_node[i].first;
      const auto rank = static_cast<size_t>(r.rank);
      node["host"] = rank < hosts.size() ? hosts[rank] : std::string();
      node["ranks"] = Json::array();
      node["shared"] = r.get("node_shared") != 0;
      nodes.push_back(std::move(node));
    }
    nodes.back()["ranks"].push_back(r.rank);
  }
  return nodes;
}

}  // namespace

std::string record_json(const StatsRecord& r) { return json_text(rank_object(r, nullptr)); }

std::string format_json(const std::vector<StatsRecord>& records, const RunInfo& run) {
  Json j;
  j["scopedsm_stats"] = 2;
  j["program"] = run.program;
  j["argv"] = run.argv;
  j["started"] = run.started;
  j["processes"] = records.size();
  j["nodes"] = node_list(records, run.hosts);
  Json config = Json::object();
  for (const auto& [name, value] : run.config) config[name] = value;
  j["config"] = std::move(config);
  Json ranks = Json::array();
  for (const StatsRecord& r : records) {
    const auto rank = static_cast<size_t>(r.rank);
    ranks.push_back(rank_object(r, rank < run.hosts.size() ? &run.hosts[rank] : nullptr));
  }
  j["ranks"] = std::move(ranks);
  return json_text(j) + "\n";
}

}  // namespace scopedsm
