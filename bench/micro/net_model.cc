// net_model: validates the communication-cost model (SCOPEDSM_NET,
// src/transport/net_model.h) by sweeping each of its knobs in one run and
// comparing the measured delta with the injected one (digest seed-002 §6.8).
//
// Rank 0 faults on pages homed at rank 1 (another node: run with
// SCOPEDSM_NODE_SHARING=off, or across hosts), one page per fault
// (SCOPEDSM_FETCH_PAGES=1) and every page trapped at its home
// (SCOPEDSM_WRITE_DETECT=all, so one-sided reads never fall back); the
// program sets both unless the environment does. Before each round the home
// rewrites the pages and a barrier invalidates the reader's copies, so each
// timed read is one fetch. For each point of each sweep every process
// switches its model (scopedsm_test_set_net), and the points are interleaved
// round by round with two baselines measured the same way:
//
//   native   the model off: the native floor every knob sits on;
//   zero     the model on, every cost 0: the baseline of every delta (the
//            difference from `native` is the model's own cost).
//
// A point's injected delta is what the model adds to one fetch:
//   by message (GETP, answered with the page):
//     2 overhead + 2 interrupt + 2 end(GETP) + 2 end(page) + 2 latency
//   one-sided (MPI_Rget):
//     overhead + 2 end(0) + 2 end(page) + 2 latency
// where end(n) = ceil(n / mtu) * occupancy + n / bandwidth (the model's own
// fetch_injected_ns and end_cost, whose arithmetic the unit tests pin). The
// report gives, per knob and value, the measured median delta, the injected
// delta and their ratio, and the native figures (`native_floor`, the MPI
// round trip of a page, an MPI_Get of a page).
//
//   net_model [--reps=50] [--rounds=5] [--warmup=20] [--knob=all|overhead|occupancy|bandwidth|latency|interrupt]
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "api/test_hooks.h"
#include "common/config.h"
#include "common/local_costs.h"
#include "common/mpi_baseline.h"
#include "common/options.h"
#include "common/report.h"
#include "scopedsm.h"
#include "transport/net_model.h"

namespace {

constexpr const char* kName = "net_model";

struct Point {
  std::string knob;   // "native", "zero" or a SCOPEDSM_NET key
  uint64_t value;     // the key's value
  std::string spec;   // SCOPEDSM_NET text
  bench::Rounds samples;
};

// The sweeps: the paper's ranges (digest §3) in ns at 200 MHz, cut to what
// a loaded machine resolves, plus 0.
const struct {
  const char* knob;
  std::vector<uint64_t> values;
} kSweeps[] = {
    {"overhead", {1000, 3000, 10000, 30000}},
    {"occupancy", {1000, 5000, 10000, 30000}},
    {"bandwidth", {2000, 400, 100, 50}},
    {"latency", {1000, 5000, 10000, 30000}},
    {"interrupt", {500, 2500, 5000, 15000}},
};

}  // namespace

int main(int argc, char** argv) {
  setenv("SCOPEDSM_FETCH_PAGES", "1", 0);
  setenv("SCOPEDSM_WRITE_DETECT", "all", 0);
  scopedsm_init(&argc, &argv);
  bench::Options opt(argc, argv, {"reps", "rounds", "warmup", "knob"});
  const size_t reps = static_cast<size_t>(opt.integer("reps", 50));
  const size_t rounds = static_cast<size_t>(opt.integer("rounds", 5));
  const size_t warmup = static_cast<size_t>(opt.integer("warmup", 20));
  const std::string only = opt.text("knob", "all");
  if (!opt.ok()) bench::die(kName, opt.error());
  if (scopedsm_size() != 2) bench::die(kName, "needs exactly 2 processes");
  if (bench::runtime_counter(kName, "nodes") < 2)
    bench::die(kName, "needs its 2 processes on different nodes (SCOPEDSM_NODE_SHARING=off, or two hosts)");
  const int rank = scopedsm_rank();
  const int reader = 0, home = 1;
  const bool one_sided = bench::runtime_counter(kName, "rma") != 0;

  std::vector<Point> points;
  points.push_back({"native", 0, "off", {}});
  points.push_back({"zero", 0, "latency=0", {}});
  bool known = only == "all";
  for (const auto& sweep : kSweeps) {
    if (only != "all" && only != sweep.knob) continue;
    known = true;
    for (uint64_t v : sweep.values)
      points.push_back({sweep.knob, v, std::string(sweep.knob) + "=" + std::to_string(v), {}});
  }
  if (!known) bench::die(kName, "--knob must be all, overhead, occupancy, bandwidth, latency or interrupt");

  const size_t ps = scopedsm_page_size();
  const size_t pages = std::max(reps, warmup);
  auto* base = static_cast<char*>(scopedsm_alloc_cyclic(pages * ps, pages * ps, home));
  uint64_t generation = 0, wrong = 0;
  // One round of `n` fetches under `spec`: the home writes a new generation,
  // the barrier invalidates the reader's copies, the reader times each read.
  auto fetches = [&](const std::string& spec, size_t n) {
    scopedsm_test_set_net(spec.c_str());
    ++generation;
    if (rank == home)
      for (size_t p = 0; p < n; ++p) *reinterpret_cast<uint64_t*>(base + p * ps) = p + generation * pages;
    scopedsm_barrier();
    std::vector<double> samples;
    if (rank == reader) {
      samples.reserve(n);
      for (size_t p = 0; p < n; ++p) {
        const volatile uint64_t* word = reinterpret_cast<const volatile uint64_t*>(base + p * ps);
        const uint64_t t0 = bench::now_ns();
        const uint64_t v = *word;
        const uint64_t t1 = bench::now_ns();
        if (v != p + generation * pages) ++wrong;
        samples.push_back(bench::ns_to_us(t1 - t0));
      }
    }
    scopedsm_barrier();  // no message in flight when the model changes next
    return samples;
  };

  for (const Point& pt : points) fetches(pt.spec, warmup);
  bench::Rounds rtt, get;
  for (size_t r = 0; r < rounds; ++r) {
    for (Point& pt : points) {
      std::vector<double> s = fetches(pt.spec, reps);
      if (rank == reader) pt.samples.add_round(std::move(s));
    }
    scopedsm_test_set_net("off");
    bench::quiesce();
    std::vector<double> trips = bench::mpi_round_trips(reader, home, ps, reps, 10);
    std::vector<double> gets = bench::mpi_gets(reader, home, ps, reps, 10);
    if (rank == reader) {
      rtt.add_round(std::move(trips));
      get.add_round(std::move(gets));
    }
  }
  scopedsm_test_set_net("off");
  const uint64_t getps = bench::runtime_counter(kName, "msgs_sent_GETP");
  const uint64_t getp_bytes = bench::runtime_counter(kName, "bytes_sent_GETP");

  if (rank == reader) {
    if (wrong != 0) bench::die(kName, std::to_string(wrong) + " fetched pages held the wrong contents");
    const size_t getp = getps == 0 ? 0 : static_cast<size_t>(getp_bytes / getps);
    bench::Report report;
    report.bench = one_sided ? "net_model_one_sided" : "net_model_message";
    report.procs = scopedsm_size();
    report.reps = static_cast<long>(reps);
    report.rounds = static_cast<long>(rounds);
    const bench::Summary zero = points[1].samples.all();
    const bench::Summary native = points[0].samples.all();
    report.measured = points[1].samples;
    report.has_baseline = true;
    report.baseline_what = "fetch_with_model_off";
    report.baseline = native;
    bench::Json sweeps = bench::Json::object();
    double worst = 0;
    for (size_t i = 2; i < points.size(); ++i) {
      const Point& pt = points[i];
      scopedsm::NetParams params;
      if (scopedsm::Status st = scopedsm::parse_net(pt.spec, &params); !st.ok()) bench::die(kName, st.message());
      const double injected = static_cast<double>(scopedsm::fetch_injected_ns(params, one_sided, getp, ps)) / 1000.0;
      const bench::Summary m = pt.samples.all();
      const double delta = m.median - zero.median;
      const double ratio = injected > 0 ? delta / injected : 0;
      worst = std::max(worst, std::abs(ratio - 1));
      bench::Json row;
      row["value"] = pt.value;
      row["spec"] = pt.spec;
      row["median_us"] = m.median;
      row["measured_delta_us"] = delta;
      row["injected_delta_us"] = injected;
      row["ratio"] = ratio;
      row["round_medians"] = {{"min", pt.samples.round_medians().min}, {"max", pt.samples.round_medians().max}};
      sweeps[pt.knob].push_back(std::move(row));
    }
    report.extra["path"] = one_sided ? "one-sided" : "message";
    report.extra["getp_bytes"] = static_cast<long long>(getp);
    report.extra["page_bytes"] = static_cast<long long>(ps);
    report.extra["sweeps"] = std::move(sweeps);
    report.extra["worst_ratio_error"] = worst;
    report.extra["native_floor"] = {{"fetch_model_off", bench::summary_json(native)},
                                    {"fetch_model_zero", bench::summary_json(zero)},
                                    {"model_cost_us", zero.median - native.median},
                                    {"mpi_rtt_page", bench::summary_json(rtt.all())},
                                    {"mpi_get_page", bench::summary_json(get.all())}};
    bench::print_report(report);
  }
  scopedsm_finalize();
  return 0;
}
