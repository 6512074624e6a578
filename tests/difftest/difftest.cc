// Randomized differential test: runs random data-race-free programs
// (program.h) on ScopeDSM and checks every read against the reference model
// (oracle.h), using the lock order the run actually took.
//
//   difftest [--seed S] [--programs K | --minutes M] [--min-ops N]
//            [--first-touch | --block-pages B] [--drop FILE]
//       Runs programs S, S+1, ... (K of them, or until M minutes have
//       passed). Rank 0 checks each program after it ran and prints
//       "DIFFTEST OK ..." with the operations checked, or
//       "DIFFTEST MISMATCH seed=..." with the failing read and the slice of
//       the program that decides it, and exits non-zero. --min-ops fails the
//       run if fewer memory operations were checked (a budget guard).
//       The region is homed cyclically in blocks of B pages (default 1), or
//       at first touch. --drop FILE leaves out the ops whose ids FILE lists (used by
//       difftest_driver's shrinking). --wrong-oracle orders critical
//       sections by rank instead of by the recorded versions (a control:
//       correct runs must then be reported as mismatches).
//   difftest --print --np N [--seed S] [--drop FILE]
//       Prints the program without running anything.
//
// A seed fixes the program (every rank's operations); the interleaving is
// whatever the run takes, so a mismatch may need several runs to recur.
#include <mpi.h>
#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "api/test_hooks.h"
#include "jia.h"
#include "oracle.h"
#include "program.h"
#include "scopedsm.h"

using namespace difftest;

namespace {

struct Options {
  uint64_t seed = 1;
  long programs = 1;
  double minutes = 0;
  uint64_t min_ops = 0;
  bool first_touch = false;
  size_t block_pages = 1;
  bool print = false;
  bool wrong_oracle = false;
  int np = 0;
  std::string drop_file;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "difftest: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--seed") o.seed = std::strtoull(next(), nullptr, 10);
    else if (a == "--programs") o.programs = std::strtol(next(), nullptr, 10);
    else if (a == "--minutes") o.minutes = std::strtod(next(), nullptr);
    else if (a == "--min-ops") o.min_ops = std::strtoull(next(), nullptr, 10);
    else if (a == "--first-touch") o.first_touch = true;
    else if (a == "--block-pages") o.block_pages = std::strtoul(next(), nullptr, 10);
    else if (a == "--print") o.print = true;
    else if (a == "--wrong-oracle") o.wrong_oracle = true;
    else if (a == "--np") o.np = std::atoi(next());
    else if (a == "--drop") o.drop_file = next();
    else {
      std::fprintf(stderr, "difftest: unknown option %s\n", a.c_str());
      std::exit(2);
    }
  }
  return o;
}

std::set<uint32_t> read_drop(const std::string& path) {
  std::set<uint32_t> ids;
  if (path.empty()) return ids;
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "difftest: cannot read %s\n", path.c_str());
    std::exit(2);
  }
  uint32_t id;
  while (in >> id) ids.insert(id);
  return ids;
}

uint64_t load(const char* p, uint32_t size) {
  switch (size) {
    case 1: return *reinterpret_cast<const uint8_t*>(p);
    case 2: return *reinterpret_cast<const uint16_t*>(p);
    case 4: return *reinterpret_cast<const uint32_t*>(p);
    default: return *reinterpret_cast<const uint64_t*>(p);
  }
}

void store(char* p, uint32_t size, uint64_t v) {
  switch (size) {
    case 1: *reinterpret_cast<uint8_t*>(p) = static_cast<uint8_t>(v); break;
    case 2: *reinterpret_cast<uint16_t*>(p) = static_cast<uint16_t>(v); break;
    case 4: *reinterpret_cast<uint32_t*>(p) = static_cast<uint32_t>(v); break;
    default: *reinterpret_cast<uint64_t*>(p) = v; break;
  }
}

// Runs this rank's part of the program and returns its log.
RankLog run(const Program& p, char* region, int me) {
  RankLog log;
  for (const Phase& ph : p.phases) {
    for (const Op& op : ph.ops[static_cast<size_t>(me)]) {
      switch (op.kind) {
        case OpKind::kRead: {
          const Cell& c = p.cells[op.arg];
          log.reads.push_back(load(region + c.offset, c.size));
          break;
        }
        case OpKind::kWrite: {
          const Cell& c = p.cells[op.arg];
          store(region + c.offset, c.size, op.value);
          break;
        }
        case OpKind::kLock:
          jia_lock(p.locks[op.arg]);
          log.versions.push_back(scopedsm_test_lock_version(p.locks[op.arg]));
          break;
        case OpKind::kUnlock:
          jia_unlock(p.locks[op.arg]);
          break;
      }
    }
    jia_barrier();
  }
  return log;
}

std::vector<uint64_t> gather_u64(const std::vector<uint64_t>& mine, int np, std::vector<int>* counts_out) {
  int n = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<size_t>(np)), displs(static_cast<size_t>(np));
  MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  int total = 0;
  for (size_t r = 0; r < counts.size(); ++r) {
    displs[r] = total;
    total += counts[r];
  }
  std::vector<uint64_t> all(static_cast<size_t>(total));
  MPI_Gatherv(mine.data(), n, MPI_UINT64_T, all.data(), counts.data(), displs.data(), MPI_UINT64_T, 0, MPI_COMM_WORLD);
  *counts_out = counts;
  return all;
}

std::vector<RankLog> gather_logs(const RankLog& mine, int np) {
  std::vector<int> rc, vc;
  std::vector<uint64_t> reads = gather_u64(mine.reads, np, &rc);
  std::vector<uint64_t> versions = gather_u64(mine.versions, np, &vc);
  std::vector<RankLog> logs;
  if (scopedsm_rank() != 0) return logs;
  logs.resize(static_cast<size_t>(np));
  size_t ro = 0, vo = 0;
  for (size_t r = 0; r < logs.size(); ++r) {
    logs[r].reads.assign(reads.begin() + static_cast<long>(ro), reads.begin() + static_cast<long>(ro) + rc[r]);
    logs[r].versions.assign(versions.begin() + static_cast<long>(vo), versions.begin() + static_cast<long>(vo) + vc[r]);
    ro += static_cast<size_t>(rc[r]);
    vo += static_cast<size_t>(vc[r]);
  }
  return logs;
}

std::string env_summary() {
  std::string s;
  for (const char* v : {"SCOPEDSM_CACHE_PAGES", "SCOPEDSM_TEST_DELAY_US", "SCOPEDSM_TEST_FAULT", "SCOPEDSM_HOME_POLICY",
                        "SCOPEDSM_WRITE_DETECT"})
    if (const char* x = std::getenv(v)) s += std::string(v) + "=" + x + " ";
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  Options o = parse(argc, argv);
  const uint32_t page_size = static_cast<uint32_t>(sysconf(_SC_PAGESIZE));
  const std::set<uint32_t> drop = read_drop(o.drop_file);
  if (o.print) {
    if (o.np <= 0) {
      std::fprintf(stderr, "difftest: --print needs --np\n");
      return 2;
    }
    Program p = without(generate(o.seed, o.np, page_size), drop);
    std::fputs(describe(p).c_str(), stdout);
    return 0;
  }

  scopedsm_init(&argc, &argv);
  const int me = scopedsm_rank(), np = scopedsm_size();
  const size_t bytes = static_cast<size_t>(kRegionPages) * page_size;
  char* region = static_cast<char*>(o.first_touch ? scopedsm_alloc_first_touch(bytes)
                                                  : scopedsm_alloc_cyclic(bytes, o.block_pages * page_size, 0));
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed_min = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / 60.0; };

  Counts total;
  long programs = 0;
  int failed = 0;
  std::vector<uint8_t> bytes_state(bytes, 0);  // rank 0: the region's contents according to the model
  double last_progress = 0;
  for (long k = 0;; ++k) {
    // Rank 0 decides whether to go on; everyone follows (bytes only).
    int go = 1;
    if (me == 0) go = o.minutes > 0 ? elapsed_min() < o.minutes : k < o.programs;
    jia_bcast(&go, sizeof go, 0);
    if (!go) break;
    const uint64_t seed = o.seed + static_cast<uint64_t>(k);
    Program p = without(generate(seed, np, page_size), drop);
    RankLog log = run(p, region, me);
    std::vector<RankLog> logs = gather_logs(log, np);
    if (me == 0) {
      std::vector<uint64_t> cells(p.cells.size());
      for (size_t c = 0; c < p.cells.size(); ++c) {
        uint64_t v = 0;
        std::memcpy(&v, &bytes_state[p.cells[c].offset], p.cells[c].size);
        cells[c] = v;
      }
      CheckResult r = check(p, logs, &cells, !o.wrong_oracle);
      if (!r.mismatches.empty()) {
        std::printf("%s", r.report.c_str());
        std::printf("DIFFTEST program %ld of this run; rerun it: mpirun -n %d %s --seed %" PRIu64 "%s%s with %s\n", k, np,
                    argv[0], seed, o.first_touch ? " --first-touch" : "",
                    o.drop_file.empty() ? "" : (" --drop " + o.drop_file).c_str(), env_summary().c_str());
        std::printf("DIFFTEST shrink it: difftest_driver shrink --np %d --seed %" PRIu64 "%s (same environment)\n", np, seed,
                    o.first_touch ? " --first-touch" : "");
        std::fflush(stdout);
        failed = 1;
      }
      for (size_t c = 0; c < p.cells.size(); ++c) std::memcpy(&bytes_state[p.cells[c].offset], &cells[c], p.cells[c].size);
    }
    jia_bcast(&failed, sizeof failed, 0);
    Counts c = count(p);
    total.reads += c.reads;
    total.writes += c.writes;
    total.locks += c.locks;
    total.barriers += c.barriers;
    ++programs;
    if (failed) break;
    if (me == 0 && o.minutes > 0 && elapsed_min() - last_progress >= 1.0) {
      last_progress = elapsed_min();
      std::printf("DIFFTEST progress np=%d minutes=%.1f programs=%ld ops=%" PRIu64 "\n", np, last_progress, programs,
                  total.reads + total.writes);
      std::fflush(stdout);
    }
  }
  const uint64_t ops = total.reads + total.writes;
  if (me == 0 && !failed) {
    std::printf("DIFFTEST OK np=%d seeds=%" PRIu64 "..%" PRIu64 " programs=%ld ops=%" PRIu64 " reads=%" PRIu64
                " writes=%" PRIu64 " critical_sections=%" PRIu64 " barriers=%" PRIu64 " seconds=%.1f %s\n",
                np, o.seed, o.seed + static_cast<uint64_t>(programs) - 1, programs, ops, total.reads, total.writes,
                total.locks, total.barriers, elapsed_min() * 60, env_summary().c_str());
    if (ops < o.min_ops) {
      std::printf("DIFFTEST BUDGET NOT MET: %" PRIu64 " operations checked, --min-ops %" PRIu64 "\n", ops, o.min_ops);
      failed = 1;
    }
    std::fflush(stdout);
  }
  jia_bcast(&failed, sizeof failed, 0);
  scopedsm_finalize();
  return failed;
}
