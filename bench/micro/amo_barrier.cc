// amo_barrier: barriers built on atomics at the home (the AMO paper's
// three codes, written on ScopeDSM's primitives) beside the runtime's
// barrier, at whatever rank count it runs with (run_micro.sh: 2, 4, 8).
// Each sample is the mean of a batch of consecutive episodes as rank 0 sees
// them; every variant also reports the messages all ranks sent per episode.
//
//   runtime      scopedsm_barrier: the dissemination barrier with write
//                notices (docs/PROTOCOL.md §4), nothing written
//   amo          scopedsm_amo_barrier, relaxed: fetch_add at the counter's
//                home; the last arriver notifies each process once
//   amo_acq_rel  scopedsm_amo_barrier, acq_rel: the same with a release
//                before arriving and an acquire (dropping cached copies)
//                after leaving
//   naive        the paper's naive code: fetch_add on the counter, then
//                every process polls the counter at its home (atomic loads)
//   spin_var     the paper's "separate spin variable": the last arriver
//                stores the episode's value into a spin word on another
//                page, which the others poll
//   paper_amo    the paper's AMO code: amo_inc with the episode's test
//                value, then amo_wait (the same protocol as amo, spelled
//                with the two calls)
// The polls of naive and spin_var cost nothing but memory reads when the
// home is on the node (node sharing on) and one ATOMIC round trip each
// otherwise. The baseline is runtime; "ratio" is amo / runtime.
//
//   amo_barrier [--reps=200] [--rounds=5] [--warmup=20] [--batch=10]
#include <sched.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <mpi.h>

#include "common/options.h"
#include "common/report.h"
#include "scopedsm.h"

namespace {

constexpr const char* kName = "amo_barrier";

// Messages this process has sent (its statistics' "messages_sent").
long long messages_sent() {
  std::vector<char> buf(1 << 16);
  for (;;) {
    const size_t need = scopedsm_stats_json(buf.data(), buf.size());
    if (need < buf.size()) break;
    buf.resize(need + 1);
  }
  const char* at = std::strstr(buf.data(), "\"messages_sent\":");
  return at == nullptr ? 0 : std::atoll(at + std::strlen("\"messages_sent\":"));
}

struct Words {
  int64_t* counter;  // the barrier variable, alone on a page at rank 0
  int64_t* spin;     // spin_var's spin word, on a page of its own at the last rank
  int64_t episodes = 0;  // episodes this process has completed in the paper's codes
};

void naive(Words& w, int64_t n) {
  const int64_t target = (++w.episodes) * n;
  scopedsm_atomic_fetch_add_i64(w.counter, 1, SCOPEDSM_RELAXED);
  while (scopedsm_atomic_load_i64(w.counter, SCOPEDSM_RELAXED) < target) sched_yield();
}

void spin_var(Words& w, int64_t n) {
  const int64_t expected = (++w.episodes) * n;
  if (scopedsm_atomic_fetch_add_i64(w.counter, 1, SCOPEDSM_RELAXED) + 1 == expected)
    scopedsm_atomic_store_i64(w.spin, expected, SCOPEDSM_RELAXED);
  else
    while (scopedsm_atomic_load_i64(w.spin, SCOPEDSM_RELAXED) != expected) sched_yield();
}

void paper_amo(Words& w, int64_t n) {
  const int64_t expected = (++w.episodes) * n;
  scopedsm_amo_inc(w.counter, expected, SCOPEDSM_RELAXED);
  scopedsm_amo_wait(w.counter, expected, SCOPEDSM_RELAXED);
}

struct Variant {
  const char* name;
  std::function<void()> episode;
  bench::Rounds latency;
  long long messages = 0;  // sent by all ranks in the measured episodes
  long long episodes = 0;
};

std::vector<double> run(Variant& v, size_t reps, size_t batch) {
  std::vector<double> samples;
  const long long m0 = messages_sent();
  for (size_t i = 0; i < reps; ++i) {
    const uint64_t t0 = bench::now_ns();
    for (size_t k = 0; k < batch; ++k) v.episode();
    samples.push_back(bench::ns_to_us(bench::now_ns() - t0) / static_cast<double>(batch));
  }
  long long mine = messages_sent() - m0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  v.messages += all;
  v.episodes += static_cast<long long>(reps * batch);
  return samples;
}

}  // namespace

int main(int argc, char** argv) {
  scopedsm_init(&argc, &argv);
  bench::Options opt(argc, argv, {"reps", "rounds", "warmup", "batch"});
  const size_t reps = static_cast<size_t>(opt.integer("reps", 200));
  const size_t rounds = static_cast<size_t>(opt.integer("rounds", 5));
  const size_t warmup = static_cast<size_t>(opt.integer("warmup", 20));
  size_t batch = static_cast<size_t>(opt.integer("batch", 10));
  if (!opt.ok()) bench::die(kName, opt.error());
  if (batch == 0) batch = 1;
  const int nprocs = scopedsm_size();
  const int64_t n = nprocs;

  // Each variant has a counter of its own (they must not mix episodes).
  const size_t ps = scopedsm_page_size();
  auto* counters = static_cast<int64_t*>(scopedsm_alloc_on(6 * ps, 0));
  auto* spin = static_cast<int64_t*>(scopedsm_alloc_on(ps, nprocs - 1));
  auto at = [&](int k) { return counters + static_cast<size_t>(k) * ps / sizeof(int64_t); };
  Words w_naive{at(0), spin}, w_spin{at(1), spin}, w_amo{at(2), spin};
  int64_t* amo_counter = at(3);
  int64_t* amo_acq_counter = at(4);
  std::vector<Variant> variants;
  variants.push_back({"runtime", [] { scopedsm_barrier(); }, {}, 0, 0});
  variants.push_back({"amo", [&] { scopedsm_amo_barrier(amo_counter, SCOPEDSM_RELAXED); }, {}, 0, 0});
  variants.push_back({"amo_acq_rel", [&] { scopedsm_amo_barrier(amo_acq_counter, SCOPEDSM_ACQ_REL); }, {}, 0, 0});
  variants.push_back({"naive", [&] { naive(w_naive, n); }, {}, 0, 0});
  variants.push_back({"spin_var", [&] { spin_var(w_spin, n); }, {}, 0, 0});
  variants.push_back({"paper_amo", [&] { paper_amo(w_amo, n); }, {}, 0, 0});

  for (Variant& v : variants) run(v, warmup, 1);
  for (Variant& v : variants) v.messages = v.episodes = 0;
  scopedsm_barrier();
  for (size_t r = 0; r < rounds; ++r)
    for (Variant& v : variants) {
      scopedsm_barrier();  // every variant starts together
      v.latency.add_round(run(v, reps, batch));
    }
  // Every episode of every variant completed: each counter holds n per episode.
  const long long per_variant = static_cast<long long>(warmup + rounds * reps * batch);
  for (int k = 0; k < 5; ++k)
    if (scopedsm_atomic_load_i64(at(k), SCOPEDSM_RELAXED) != per_variant * n)
      bench::die(kName, std::string("a barrier variant's counter is wrong: ") + std::to_string(k));
  const bench::Json stats = bench::gather_runtime_stats();

  if (scopedsm_rank() == 0) {
    bench::Report report;
    report.bench = "amo_barrier_np" + std::to_string(nprocs);
    report.procs = nprocs;
    report.reps = static_cast<long>(reps);
    report.rounds = static_cast<long>(rounds);
    report.measured = variants[1].latency;
    report.has_baseline = true;
    report.baseline_what = "scopedsm_barrier";
    report.baseline = variants[0].latency.all();
    report.extra["batch"] = static_cast<long long>(batch);
    bench::Json per = bench::Json::object();
    for (const Variant& v : variants) {
      bench::Json one = bench::summary_json(v.latency.all());
      one["messages_per_episode"] =
          v.episodes == 0 ? 0.0 : static_cast<double>(v.messages) / static_cast<double>(v.episodes);
      per[v.name] = one;
    }
    report.extra["variants"] = per;
    report.extra["runtime_stats"] = stats;
    bench::print_report(report);
  }
  scopedsm_finalize();
  return 0;
}
