#include "common/config.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <sstream>

#include "common/limits.h"

namespace scopedsm {

namespace {

Status bad(const char* name, const std::string& value, const char* accepted) {
  return Status::Error(std::string(name) + "='" + value + "' is invalid: expected " + accepted);
}

Status parse_uint(const std::string& text, uint64_t* out) {
  if (text.empty() || text[0] == '-' || text[0] == '+') return Status::Error("not a number");
  errno = 0;
  char* end = nullptr;
  unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (errno != 0 || end == text.c_str() || *end != '\0') return Status::Error("not a number");
  *out = v;
  return Status::Ok();
}

// "none", or a comma-separated list of kTestFaultNames.
Status parse_test_faults(const std::string& v, uint64_t* out) {
  std::string accepted = "a comma-separated list of ";
  const size_t n = std::size(kTestFaultNames);
  for (size_t i = 0; i < n; ++i) {
    if (i != 0) accepted += i + 1 == n ? " and " : ", ";
    accepted += kTestFaultNames[i].name;
  }
  accepted += ", or none";
  *out = 0;
  if (v == "none") return Status::Ok();
  size_t start = 0;
  for (;;) {
    const size_t comma = v.find(',', start);
    const std::string name = v.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    bool known = false;
    for (const TestFaultName& f : kTestFaultNames) {
      if (name != f.name) continue;
      *out |= static_cast<uint64_t>(f.fault);
      known = true;
    }
    if (!known) return bad("SCOPEDSM_TEST_FAULT", v, (accepted + " ('" + name + "' is none of them)").c_str());
    if (comma == std::string::npos) return Status::Ok();
    start = comma + 1;
  }
}

// Exactly "on" or "off", as docs/CONFIG.md says: one spelling per value, so
// that a setting reads the same in every script and log.
Status parse_bool(const char* name, const std::string& v, bool* out) {
  if (v == "on") { *out = true; return Status::Ok(); }
  if (v == "off") { *out = false; return Status::Ok(); }
  return bad(name, v, "on or off");
}

// Levenshtein distance: single-character insertions, deletions and substitutions.
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({above + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

bool is_known_variable(const std::string& name) {
  for (const auto* table : {&config_variables(), &tool_variables()})
    for (const ConfigVariable& v : *table)
      if (name == v.name) return true;
  return false;
}

// The unknown ones of `names`, each with its closest known variable.
std::vector<Config::UnknownVariable> unknown_variables(const std::vector<std::string>& names) {
  std::vector<Config::UnknownVariable> unknown;
  for (const std::string& name : names) {
    if (name.rfind("SCOPEDSM_", 0) != 0 || is_known_variable(name)) continue;
    bool seen = false;
    for (const auto& u : unknown) seen = seen || u.name == name;
    if (!seen) unknown.push_back({name, closest_known_variable(name)});
  }
  return unknown;
}

}  // namespace

const std::vector<ConfigVariable>& config_variables() {
  static const std::vector<ConfigVariable> vars = {
      {"SCOPEDSM_REGION_SIZE", "16G",
       "Shared address space reserved in every process (suffix K, M, G or T). Allocations beyond it fail, and "
       "beyond its first 2^32 pages (16 TiB of 4 KiB pages), which is all that 32-bit page numbers name. "
       "Only touched pages use memory."},
      {"SCOPEDSM_UNIT_PAGES", "1",
       "The coherence unit, in OS pages: a power of two from 1 to 128 (up to 512 KiB with 4 KiB pages). Faults, "
       "fetches, twins, diffs, write notices, homes and allocation all work in units of this many pages; "
       "scopedsm_page_size() returns the unit's bytes. Every process must use the same value."},
      {"SCOPEDSM_CACHE_PAGES", "65536",
       "Capacity of each process's cache of remote pages, in coherence units (SCOPEDSM_UNIT_PAGES) (at least 4: one instruction may touch "
       "four pages, a string copy whose source and destination both straddle a page boundary, and all must be "
       "resident at once)."},
      {"SCOPEDSM_CACHE_POLICY", "fifo",
       "Replacement in the cache of remote pages: 'fifo' (the page fetched longest ago goes first) or 'remote' "
       "(remote-aware: copies of pages homed on this node, which cost a memory copy to bring back, go before "
       "copies of pages homed on other nodes, which cost a network round trip; far copies stay up to twice as "
       "long, in a victim part of at most half the cache, as the RVC of the SHPSEC paper)."},
      {"SCOPEDSM_HOME_POLICY", "cyclic",
       "Home placement of scopedsm_alloc, jia_alloc and jia_alloc1: 'cyclic' (scopedsm_alloc deals pages one by "
       "one from rank 0; jia_alloc and jia_alloc1 put a whole allocation on one rank, as JIAJIA 2.1 did) or "
       "'first-touch' (each page homed where first touched). docs/ALLOCATION.md has every call's placement."},
      {"SCOPEDSM_STATS_FILE", "(none)", "Path where rank 0 writes the statistics of every process as JSON at exit."},
      {"SCOPEDSM_TRACE", "(none)",
       "Path where rank 0 writes every process's events (faults, fetches, diffs, lock waits, barriers, serving) "
       "as Chrome/Perfetto trace-event JSON at exit."},
      {"SCOPEDSM_SUMMARY", "on", "Whether rank 0 prints the statistics table at exit (on or off)."},
      {"SCOPEDSM_LOG", "warn", "Log level: error, warn, info or debug."},
      {"SCOPEDSM_TIMEOUT", "0",
       "Seconds any single wait may last before the job ends with a report of who waits for whom; 0 (the default) = "
       "no limit: a process may compute as long as it likes while others wait, and only a deadlock (every waiting "
       "process waits on another that waits) ends the job, within seconds. Also bounds a hung MPI_Finalize, the MPI "
       "library's own, which is left with status 0 (after 30 s when 0)."},
      {"SCOPEDSM_SPIN_US", "50", "Microseconds a waiting thread polls before it sleeps (0 to 100000)."},
      {"SCOPEDSM_SERVICE_SLICE_US", "0",
       "Time slice in microseconds the service thread asks of the kernel (Linux 6.12 and later), so that a request "
       "wakes it ahead of a thread computing on its core: 0 (the kernel's own), or 100 to 100000."},
      {"SCOPEDSM_POLL_US", "200", "Longest sleep between polls when some processes are on other nodes (1 to 1000000)."},
      {"SCOPEDSM_WRITE_DETECT", "adaptive",
       "'adaptive' traps writes to a home page only while another process holds a copy; 'all' traps every write; 'cache-only' traps none and drops every cached copy at every acquire and barrier "
       "(JIAJIA's CO-WD; not with SCOPEDSM_HOME_MIGRATION=on)."},
      {"SCOPEDSM_NODE_SHARING", "on",
       "'on': processes on one node copy pages straight from each other's home memory and apply diffs to it, "
       "with no message and no wait for the home's threads. 'off': every process is a node of its own (pages, "
       "diffs and wake-ups go through MPI), to exercise and measure the cross-node path on one machine."},
      {"SCOPEDSM_NODE_PROCS", "all",
       "At most this many processes per node: each machine's processes are split into nodes of this many "
       "consecutive ranks, which share memory only among themselves, so one machine can stand for several "
       "nodes of a given size (for studies of processes per node, and of a mix of near and far homes). "
       "'all': one node per machine."},
      {"SCOPEDSM_HOME_MIGRATION", "off",
       "'on': at a barrier, a page written since the previous barrier by one process only, which still holds "
       "its copy, gets that process as its new home (JIAJIA's HMIG), decided alike on every process from the "
       "barrier's write notices, with no extra message. jia_config(HMIG, ON/OFF) sets it at run time."},
      {"SCOPEDSM_NEXT_TOUCH", "off",
       "'barrier:N' (N from 1 to 1000): the first N barriers after each allocation act as next-touch points for "
       "its pages, as if every process called scopedsm_next_touch on it there; 'off': only the explicit calls."},
      {"SCOPEDSM_NEXT_TOUCH_ON", "touch",
       "What re-homes a page marked by a next-touch point: 'touch', the first read or write fault of another "
       "process on it (the lowest such rank, a lone writer first); 'write', only a lone writer."},
      {"SCOPEDSM_LOCK_INCARNATIONS", "on",
       "'on': a lock grant carries only the write notices of releases the acquirer has not seen (JIAJIA's "
       "incarnation numbers); 'off': every notice the lock holds since the last barrier."},
      {"SCOPEDSM_WRITER_RETENTION", "on",
       "'on': a write notice whose only writer is this process leaves its copy valid (single-writer retention); "
       "'off': it invalidates the copy like any other notice."},
      {"SCOPEDSM_WRITE_VECTOR", "off",
       "'on' (blocks of 1/32 page: 128 bytes with 4 KiB pages) or a block size (a power of two, 64 to 32768, giving 2 to 64 blocks a page): "
       "a refetch by message of a page whose stale copy is still here brings only the blocks written since "
       "(JIAJIA's WVEC); 'off': whole pages. jia_config(WVEC, ON/OFF) sets it at run time."},
      {"SCOPEDSM_BARRIER", "dissemination",
       "'dissemination': barrier rounds among all processes, ceil(log2 N) messages each; 'central': every process "
       "sends its notices to rank 0, which merges them and sends the result back (JIAJIA's barrier without "
       "BROADCAST). jia_config(BROADCAST, ON/OFF) selects them at run time."},
      {"SCOPEDSM_FETCH", "auto",
       "How a page homed on another node is read. 'rma': one-sided MPI_Get from the home's memory, which needs "
       "no home CPU where the MPI library and network progress it without the target. 'message': a request "
       "that the home's service thread answers. 'auto': 'rma' if a start-up check finds one-sided reads "
       "progressing while their target computes, else 'message'."},
      {"SCOPEDSM_FETCH_PAGES", "16",
       "Most pages one fault fetches: a fault right after the previous page's copy fetches the run of invalid "
       "pages after it that share its home, up to this many (1 to 64; 1 fetches single pages). The run grows while "
       "its pages are used and shrinks when they are not."},
      {"SCOPEDSM_HOME_BACKING", "memory",
       "Where each process keeps its memory of the region (its home pages and its cached copies): 'memory' (an "
       "anonymous memfd, RAM and swap) or 'file:DIR' (a file in the directory DIR on local disk, mapped, created "
       "without a name or unlinked at once, so it is gone at any kind of exit). With a file the home pages "
       "are bounded by the disk, not by RAM; disk space is reserved when pages are placed, and a full disk "
       "ends the job naming the rank and the file."},
      {"SCOPEDSM_HOME_MEMORY", "0",
       "With SCOPEDSM_HOME_BACKING=file:DIR, the home memory (suffix K, M, G or T) a process keeps resident "
       "before buffered scopedsm_release hints give home pages back to the kernel; 0 = no limit of ours."},
      {"SCOPEDSM_RELEASE_POLICY", "buffered",
       "What scopedsm_release does with the pages it names (after the one-call lag per call site): 'buffered' "
       "keeps them in a priority-ordered buffer and gives them back only when room is needed (a cache slot, "
       "or home memory over SCOPEDSM_HOME_MEMORY), lowest priority first; 'aggressive' gives them back at once."},
      {"SCOPEDSM_PREFETCH", "async",
       "How a prefetch hint fetches runs of pages homed on other nodes: 'async' starts each run and returns, "
       "leaving it in flight until the first touch of one of its pages, an eviction or the next synchronization "
       "call (at most 32 runs at once); 'sync' waits for every run before the hint returns, as a fault's fetch "
       "does (for comparison). Pages homed on this node are copied at once either way."},
      {"SCOPEDSM_AUTO_HINTS", "off",
       "'on': the runtime makes its own hints: each process detects sequential and strided streams of page faults, "
       "prefetches ahead of them (a distance of 1 to 64 steps and at most half the cache, longer when pages "
       "arrive late, shorter when prefetched pages go unused) and releases behind streams that sweep more than half the cache; a fault then "
       "fetches one page (SCOPEDSM_FETCH_PAGES runs are off). 'off': only the program's hints."},
      {"SCOPEDSM_TEST_HINTS", "0",
       "Test only: a seed; every synchronization call first issues random prefetch and release hints over the "
       "allocated pages (hints must never change results). 0 = none."},
      {"SCOPEDSM_LOCKS", "1024",
       "How many lock ids a job has: ids are 0 to this - 1 (1 to 2147482622; the default is JIAJIA's Maxlocks). "
       "Only the locks a program uses take memory; an id past the limit ends the job with an error."},
      {"SCOPEDSM_SCHEDULE", "static",
       "The schedule of DOALL loops (scopedsm_loop_init, scopedsm::parallel_for, jia_settask) that pass none, in "
       "OMP_SCHEDULE's form: a scheme, then its parameters after commas: static, ss, bss[,K], gss, fs, "
       "tss[,first[,last]], afs[,k], sss[,alpha], aafs[,k], abs[,gss[,k]] or abs,bss[,K]. docs/SCHEDULING.md "
       "describes each."},
      {"SCOPEDSM_TASK_MIGRATION", "data",
       "What jia_lbarrier (scopedsm_lbarrier, scopedsm::lbarrier) does: 'off', a plain barrier (ranges stay as "
       "allocated); 'compute', it also reassigns the ranges in proportion to measured power; 'data', it also moves "
       "the homes of the pages the new owners write to them, at the barriers of the next two calls (the dissertation's "
       "TaskMig). docs/SCHEDULING.md, \"Task migration\"."},
      {"SCOPEDSM_TASK_MIGRATION_ALPHA", "0",
       "jia_lbarrier measures every this many calls (the dissertation's alpha); 0: a tenth of the iterations "
       "jia_lbarrier_setup names (at least 1), or 10 without a setup. A value in the setup call overrides it."},
      {"SCOPEDSM_TASK_MIGRATION_BETA", "0.2",
       "jia_lbarrier reassigns ranges when sigma/E of the processes' compute times exceeds this (the dissertation's "
       "beta; 0 or more). A value in the setup call overrides it."},
      {"SCOPEDSM_NET", "off",
       "Communication costs injected between nodes, to study which one a program is sensitive to: 'off', or "
       "comma-separated key=value pairs: overhead (ns per message, on the sending thread), occupancy (ns per "
       "packet on each end's network interface), mtu (bytes per packet, default 4096), bandwidth (MB/s per node "
       "and direction), latency (ns per message on the link), interrupt (ns for each of issue and delivery, per "
       "request the home's threads serve). E.g. overhead=3000,occupancy=5000,bandwidth=100,interrupt=2500."},
      {"SCOPEDSM_TEST_DELAY_US", "0",
       "Test only: inject a random delay of up to this many microseconds before every protocol message is sent "
       "and before every request is served, to shake out timing-dependent bugs (0 to 1000000)."},
      {"SCOPEDSM_TEST_FAULT", "(none)",
       "Test only: deliberately break protocol steps (a comma-separated list of skip-invalidate, skip-diff, "
       "skip-notices, skip-node-record, whole-word-merge, skip-seen-mark, rma-ignore-untrapped, keep-unrecorded (acquires keep "
       "copies read one-sided from untrapped pages), skip-barrier-round, "
       "stale-home-offer, keep-lost-home, release-skip-diff, no-steal (loops never steal), next-touch-stale, "
       "no-task-migration (jia_lbarrier never reassigns ranges), unit-first-page-only (twins and diffs cover only a "
       "unit's first OS page), wvec-drop-block (a write-vector reply leaves out a written block), cowd-keep-cache "
       "(cache-only write detection keeps copies at an acquire), auto-no-stream (automatic hints never find a "
       "stream), untrap-copied (homes untrap pages copied in the interval a barrier ends, so readers refetch them every interval), "
       "auto-over-hints (automatic hints act inside ranges the program's prefetch hints named), no-wait-reports "
       "(no process reports its synchronization waits, so deadlocks go unfound), omp-lock-scope (OpenMP locks and "
       "critical sections acquire only the lock's scope), omp-keep-pinned (copies of an OpenMP master's stack survive "
       "acquires), interpose-direct (system calls, stdio and MPI calls on shared memory go straight to the real "
       "functions), relief-in-transition (map-pressure relief runs inside the page transition that meets the "
       "budget, over pinned pages too); "
       "and slow-untrap, which breaks nothing but delays untrapping after barriers to widen a race, and "
       "hang-in-finalize, in which rank 1's MPI_Finalize never returns) to prove tests can fail."},
      {"SCOPEDSM_STRICT", "off",
       "'on': a SCOPEDSM_* variable that ScopeDSM does not know (a misspelling) ends the job at start-up; "
       "'off': it is reported once, with the closest known variable, and ignored. `scopedsm run --strict` sets it."},
  };
  return vars;
}

const std::vector<ConfigVariable>& tool_variables() {
  static const std::vector<ConfigVariable> vars = {
      {"SCOPEDSM_MPIEXEC", "(the build's)", "The MPI launcher `scopedsm run` and `scopedsm bench` start jobs with."},
      {"SCOPEDSM_IP", "ip", "The ip command (iproute2) `scopedsm run --hosts` and `scopedsm cleanup` use."},
      {"SCOPEDSM_CC", "(the build's)", "The C compiler scopedsm-cc calls."},
      {"SCOPEDSM_CXX", "(the build's)", "The C++ compiler scopedsm-c++ calls."},
      {"SCOPEDSM_FC", "(the build's)", "The Fortran compiler (gfortran) scopedsm-fc calls."},
      {"SCOPEDSM_BENCH_COMMIT", "(git)", "The source commit bench/run_micro.sh records in its reports."},
  };
  return vars;
}

std::vector<std::string> scopedsm_variable_names() {
  std::vector<std::string> names;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    if (std::strncmp(*e, "SCOPEDSM_", 9) != 0) continue;
    const char* eq = std::strchr(*e, '=');
    names.emplace_back(*e, eq == nullptr ? std::strlen(*e) : static_cast<size_t>(eq - *e));
  }
  return names;
}

std::string closest_known_variable(const std::string& name) {
  std::string best;
  size_t best_distance = SIZE_MAX;
  for (const auto* table : {&config_variables(), &tool_variables()}) {
    for (const ConfigVariable& v : *table) {
      const size_t d = edit_distance(name, v.name);
      if (d < best_distance) {
        best = v.name;
        best_distance = d;
      }
    }
  }
  return best;
}

std::string describe_unknown(const Config::UnknownVariable& u) {
  return u.name + " is not a ScopeDSM variable (did you mean " + u.closest + "?)";
}

Status parse_size(const std::string& text, uint64_t* out) {
  if (text.empty()) return Status::Error("empty");
  std::string digits = text;
  uint64_t mult = 1;
  char last = text.back();
  switch (last) {
    case 'K': case 'k': mult = 1ull << 10; break;
    case 'M': case 'm': mult = 1ull << 20; break;
    case 'G': case 'g': mult = 1ull << 30; break;
    case 'T': case 't': mult = 1ull << 40; break;
    default: break;
  }
  if (mult != 1) digits.pop_back();
  uint64_t v = 0;
  Status s = parse_uint(digits, &v);
  if (!s.ok()) return s;
  if (v > UINT64_MAX / mult) return Status::Error("too large");
  *out = v * mult;
  return Status::Ok();
}

EnvLookup process_environment() {
  return [](const char* name) -> std::optional<std::string> {
    const char* v = std::getenv(name);
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
}

Status parse_config(const EnvLookup& lookup, Config* out, const std::vector<std::string>& names) {
  Config c;
  if (auto v = lookup("SCOPEDSM_REGION_SIZE")) {
    uint64_t size = 0;
    if (!parse_size(*v, &size).ok() || size < (1ull << 20) || size > (1ull << 45))
      return bad("SCOPEDSM_REGION_SIZE", *v, "a size from 1M to 32T, e.g. 16G");
    c.region_size = size;
  }
  if (auto v = lookup("SCOPEDSM_CACHE_PAGES")) {
    uint64_t n = 0;
    if (!parse_uint(*v, &n).ok() || n < 4 || n > (1ull << 28))
      return bad("SCOPEDSM_CACHE_PAGES", *v, "a page count from 4 to 268435456");
    c.cache_pages = n;
  }
  if (auto v = lookup("SCOPEDSM_CACHE_POLICY")) {
    if (*v == "fifo") c.cache_remote_victim = false;
    else if (*v == "remote") c.cache_remote_victim = true;
    else return bad("SCOPEDSM_CACHE_POLICY", *v, "fifo or remote");
  }
  if (auto v = lookup("SCOPEDSM_UNIT_PAGES")) {
    uint64_t n = 0;
    if (!parse_uint(*v, &n).ok() || !valid_unit_pages(n)) return bad("SCOPEDSM_UNIT_PAGES", *v, kUnitPagesAccepted);
    c.unit_pages = static_cast<uint32_t>(n);
  }
  if (auto v = lookup("SCOPEDSM_HOME_POLICY")) {
    if (*v == "cyclic") c.home_policy = HomePolicy::kCyclic;
    else if (*v == "first-touch") c.home_policy = HomePolicy::kFirstTouch;
    else return bad("SCOPEDSM_HOME_POLICY", *v, "cyclic or first-touch");
  }
  if (auto v = lookup("SCOPEDSM_STATS_FILE")) {
    if (v->empty()) return bad("SCOPEDSM_STATS_FILE", *v, "a file path");
    c.stats_file = *v;
  }
  if (auto v = lookup("SCOPEDSM_TRACE")) {
    if (v->empty()) return bad("SCOPEDSM_TRACE", *v, "a file path");
    c.trace_file = *v;
  }
  if (auto v = lookup("SCOPEDSM_SUMMARY")) {
    Status s = parse_bool("SCOPEDSM_SUMMARY", *v, &c.summary);
    if (!s.ok()) return s;
  }
  if (auto v = lookup("SCOPEDSM_LOG")) {
    if (*v == "error") c.log_level = LogLevel::kError;
    else if (*v == "warn") c.log_level = LogLevel::kWarn;
    else if (*v == "info") c.log_level = LogLevel::kInfo;
    else if (*v == "debug") c.log_level = LogLevel::kDebug;
    else return bad("SCOPEDSM_LOG", *v, "error, warn, info or debug");
  }
  if (auto v = lookup("SCOPEDSM_TIMEOUT")) {
    errno = 0;
    char* end = nullptr;
    double t = std::strtod(v->c_str(), &end);
    if (v->empty() || errno != 0 || *end != '\0' || !(t >= 0) || t > 1e7)
      return bad("SCOPEDSM_TIMEOUT", *v, "seconds from 0 (no limit) to 10000000");
    c.timeout_s = t;
  }
  if (auto v = lookup("SCOPEDSM_SPIN_US")) {
    uint64_t n = 0;
    if (!parse_uint(*v, &n).ok() || n > 100000)
      return bad("SCOPEDSM_SPIN_US", *v, "microseconds from 0 to 100000");
    c.spin_us = n;
  }
  if (auto v = lookup("SCOPEDSM_SERVICE_SLICE_US")) {
    uint64_t n = 0;
    if (!parse_uint(*v, &n).ok() || (n != 0 && (n < 100 || n > 100000)))
      return bad("SCOPEDSM_SERVICE_SLICE_US", *v, "0 (the kernel's slice) or microseconds from 100 to 100000");
    c.service_slice_us = n;
  }
  if (auto v = lookup("SCOPEDSM_POLL_US")) {
    uint64_t n = 0;
    if (!parse_uint(*v, &n).ok() || n < 1 || n > 1000000)
      return bad("SCOPEDSM_POLL_US", *v, "microseconds from 1 to 1000000");
    c.poll_us = n;
  }
  if (auto v = lookup("SCOPEDSM_WRITE_DETECT")) {
    if (*v == "adaptive") c.write_detect_all = false;
    else if (*v == "all") c.write_detect_all = true;
    else if (*v == "cache-only") c.write_detect_cache_only = true;
    else return bad("SCOPEDSM_WRITE_DETECT", *v, "adaptive, all or cache-only");
  }
  if (auto v = lookup("SCOPEDSM_NODE_SHARING")) {
    Status s = parse_bool("SCOPEDSM_NODE_SHARING", *v, &c.node_sharing);
    if (!s.ok()) return s;
  }
  if (auto v = lookup("SCOPEDSM_NODE_PROCS")) {
    uint64_t n = 0;
    if (*v == "all") c.node_procs = 0;
    else if (parse_uint(*v, &n).ok() && n >= 1 && n <= 65536) c.node_procs = static_cast<uint32_t>(n);
    else return bad("SCOPEDSM_NODE_PROCS", *v, "'all' or a process count from 1 to 65536");
  }
  if (auto v = lookup("SCOPEDSM_HOME_MIGRATION")) {
    Status s = parse_bool("SCOPEDSM_HOME_MIGRATION", *v, &c.home_migration);
    if (!s.ok()) return s;
  }
  if (auto v = lookup("SCOPEDSM_NEXT_TOUCH")) {
    uint64_t n = 0;
    if (*v == "off") c.next_touch_barriers = 0;
    else if (v->rfind("barrier:", 0) == 0 && parse_uint(v->substr(8), &n).ok() && n >= 1 && n <= 1000)
      c.next_touch_barriers = static_cast<uint32_t>(n);
    else return bad("SCOPEDSM_NEXT_TOUCH", *v, "off, or barrier:N with N from 1 to 1000");
  }
  if (auto v = lookup("SCOPEDSM_NEXT_TOUCH_ON")) {
    if (*v == "touch") c.next_touch_write = false;
    else if (*v == "write") c.next_touch_write = true;
    else return bad("SCOPEDSM_NEXT_TOUCH_ON", *v, "touch or write");
  }
  if (c.next_touch_barriers != 0 && c.write_detect_cache_only)
    return Status::Error("SCOPEDSM_NEXT_TOUCH=barrier:N cannot be combined with SCOPEDSM_WRITE_DETECT=cache-only: a "
                         "page moves to its toucher only if its home did not write it, and cache-only detection does "
                         "not observe the home's writes; choose one");
  if (c.home_migration && c.write_detect_cache_only)
    return Status::Error("SCOPEDSM_HOME_MIGRATION=on cannot be combined with SCOPEDSM_WRITE_DETECT=cache-only: a page "
                         "moves to its single writer only if its home did not write it, and cache-only detection "
                         "does not observe the home's writes (docs/PROTOCOL.md §6b); choose one");
  if (auto v = lookup("SCOPEDSM_LOCK_INCARNATIONS")) {
    Status s = parse_bool("SCOPEDSM_LOCK_INCARNATIONS", *v, &c.lock_incarnations);
    if (!s.ok()) return s;
  }
  if (auto v = lookup("SCOPEDSM_WRITER_RETENTION")) {
    Status s = parse_bool("SCOPEDSM_WRITER_RETENTION", *v, &c.writer_retention);
    if (!s.ok()) return s;
  }
  if (auto v = lookup("SCOPEDSM_WRITE_VECTOR")) {
    uint64_t n = 0;
    if (*v == "off") c.write_vector = false;
    else if (*v == "on") c.write_vector = true;
    else if (parse_uint(*v, &n).ok() && n >= 64 && n <= 32768 && (n & (n - 1)) == 0) {
      c.write_vector = true;
      c.write_vector_block = static_cast<uint32_t>(n);
    } else {
      return bad("SCOPEDSM_WRITE_VECTOR", *v, "on, off, or a block size in bytes: a power of two from 64 to 32768");
    }
  }
  if (auto v = lookup("SCOPEDSM_BARRIER")) {
    if (*v == "dissemination") c.central_barrier = false;
    else if (*v == "central") c.central_barrier = true;
    else return bad("SCOPEDSM_BARRIER", *v, "dissemination or central");
  }
  if (auto v = lookup("SCOPEDSM_FETCH")) {
    if (*v == "auto") c.fetch = FetchMode::kAuto;
    else if (*v == "rma") c.fetch = FetchMode::kRma;
    else if (*v == "message") c.fetch = FetchMode::kMessage;
    else return bad("SCOPEDSM_FETCH", *v, "auto, rma or message");
  }
  if (auto v = lookup("SCOPEDSM_FETCH_PAGES")) {
    uint64_t n = 0;
    if (!parse_uint(*v, &n).ok() || n < 1 || n > kMaxFetchPages)
      return bad("SCOPEDSM_FETCH_PAGES", *v, "a page count from 1 to 64");
    c.fetch_pages = static_cast<uint32_t>(n);
  }
  if (auto v = lookup("SCOPEDSM_LOCKS")) {
    uint64_t n = 0;
    if (!parse_uint(*v, &n).ok() || n < 1 || n > static_cast<uint64_t>(kMaxLockIds))
      return bad("SCOPEDSM_LOCKS", *v, "a lock count from 1 to 2147482622");
    c.locks = static_cast<int>(n);
  }
  if (auto v = lookup("SCOPEDSM_SCHEDULE")) {
    if (!parse_schedule(*v, &c.schedule).ok()) return bad("SCOPEDSM_SCHEDULE", *v, schedule_grammar());
  }
  if (auto v = lookup("SCOPEDSM_TASK_MIGRATION")) {
    if (*v == "off") c.task_migration = 0;
    else if (*v == "compute") c.task_migration = 1;
    else if (*v == "data") c.task_migration = 2;
    else return bad("SCOPEDSM_TASK_MIGRATION", *v, "off, compute or data");
  }
  if (auto v = lookup("SCOPEDSM_TASK_MIGRATION_ALPHA")) {
    uint64_t n = 0;
    if (!parse_uint(*v, &n).ok() || n > 1000000000)
      return bad("SCOPEDSM_TASK_MIGRATION_ALPHA", *v, "a number of calls from 0 (a tenth of the iterations) to 1000000000");
    c.task_migration_alpha = static_cast<int64_t>(n);
  }
  if (auto v = lookup("SCOPEDSM_TASK_MIGRATION_BETA")) {
    char* end = nullptr;
    errno = 0;
    const double b = std::strtod(v->c_str(), &end);
    if (errno != 0 || end == v->c_str() || *end != '\0' || !(b >= 0) || std::isinf(b))
      return bad("SCOPEDSM_TASK_MIGRATION_BETA", *v, "a number, 0 or more");
    c.task_migration_beta = b;
  }
  if (auto v = lookup("SCOPEDSM_NET")) {
    Status s = parse_net(*v, &c.net);
    if (!s.ok()) return s;
  }
  if (auto v = lookup("SCOPEDSM_TEST_DELAY_US")) {
    uint64_t n = 0;
    if (!parse_uint(*v, &n).ok() || n > 1000000)
      return bad("SCOPEDSM_TEST_DELAY_US", *v, "microseconds from 0 to 1000000");
    c.test_delay_us = n;
  }
  if (auto v = lookup("SCOPEDSM_HOME_BACKING")) {
    if (*v == "memory") c.home_backing_dir.clear();
    else if (v->rfind("file:", 0) == 0 && v->size() > 5 && (*v)[5] == '/') c.home_backing_dir = v->substr(5);
    else return bad("SCOPEDSM_HOME_BACKING", *v, "'memory' or 'file:DIR' with DIR an absolute directory path");
  }
  if (auto v = lookup("SCOPEDSM_HOME_MEMORY")) {
    uint64_t n = 0;
    if (!parse_size(*v, &n).ok()) return bad("SCOPEDSM_HOME_MEMORY", *v, "a size such as 512M, or 0 for no limit");
    c.home_memory = n;
  }
  if (auto v = lookup("SCOPEDSM_RELEASE_POLICY")) {
    if (*v == "buffered") c.release_policy = ReleasePolicy::kBuffered;
    else if (*v == "aggressive") c.release_policy = ReleasePolicy::kAggressive;
    else return bad("SCOPEDSM_RELEASE_POLICY", *v, "buffered or aggressive");
  }
  if (auto v = lookup("SCOPEDSM_PREFETCH")) {
    if (*v == "async") c.prefetch_sync = false;
    else if (*v == "sync") c.prefetch_sync = true;
    else return bad("SCOPEDSM_PREFETCH", *v, "async or sync");
  }
  if (auto v = lookup("SCOPEDSM_AUTO_HINTS")) {
    Status s = parse_bool("SCOPEDSM_AUTO_HINTS", *v, &c.auto_hints);
    if (!s.ok()) return s;
  }
  if (auto v = lookup("SCOPEDSM_TEST_HINTS")) {
    uint64_t n = 0;
    if (!parse_uint(*v, &n).ok()) return bad("SCOPEDSM_TEST_HINTS", *v, "a seed (a non-negative integer), 0 = off");
    c.test_hints = n;
  }
  if (auto v = lookup("SCOPEDSM_TEST_FAULT")) {
    Status s = parse_test_faults(*v, &c.test_faults);
    if (!s.ok()) return s;
  }
  if (auto v = lookup("SCOPEDSM_STRICT")) {
    Status s = parse_bool("SCOPEDSM_STRICT", *v, &c.strict);
    if (!s.ok()) return s;
  }
  c.unknown = unknown_variables(names);
  if (c.strict && !c.unknown.empty()) {
    std::string message;
    for (const auto& u : c.unknown) message += (message.empty() ? "" : "; ") + describe_unknown(u);
    return Status::Error("an unknown variable under SCOPEDSM_STRICT=on: " + message);
  }
  *out = c;
  return Status::Ok();
}

namespace {

// SCOPEDSM_NET's keys, in the order net_text writes them, with their ranges.
struct NetKey {
  const char* name;
  uint64_t NetParams::*field;
  uint64_t min, max;
};
constexpr NetKey kNetKeys[] = {
    {"overhead", &NetParams::overhead_ns, 0, kNetMaxNs},  {"occupancy", &NetParams::occupancy_ns, 0, kNetMaxNs},
    {"mtu", &NetParams::mtu, 64, 1u << 20},               {"bandwidth", &NetParams::bandwidth_mbs, 1, 1000000},
    {"latency", &NetParams::latency_ns, 0, kNetMaxNs},    {"interrupt", &NetParams::interrupt_ns, 0, kNetMaxNs},
};

}  // namespace

Status parse_net(const std::string& text, NetParams* out) {
  const char* accepted =
      "off, or comma-separated key=value pairs of overhead, occupancy, latency, interrupt (ns, 0 to 100000000), "
      "mtu (bytes, 64 to 1048576) and bandwidth (MB/s, 1 to 1000000), e.g. overhead=3000,bandwidth=100";
  NetParams net;
  if (text == "off") {
    *out = net;
    return Status::Ok();
  }
  net.enabled = true;
  uint32_t seen = 0;
  size_t start = 0;
  for (;;) {
    const size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const size_t eq = item.find('=');
    const std::string key = item.substr(0, eq);
    const NetKey* found = nullptr;
    for (const NetKey& k : kNetKeys)
      if (key == k.name) found = &k;
    if (eq == std::string::npos || found == nullptr)
      return bad("SCOPEDSM_NET", text, (std::string(accepted) + " ('" + item + "' is not key=value of one of them)").c_str());
    const uint32_t bit = 1u << (found - kNetKeys);
    if ((seen & bit) != 0)
      return bad("SCOPEDSM_NET", text, (std::string(accepted) + " (" + key + " is given twice)").c_str());
    seen |= bit;
    uint64_t v = 0;
    if (!parse_uint(item.substr(eq + 1), &v).ok() || v < found->min || v > found->max)
      return bad("SCOPEDSM_NET", text,
                 (std::string(accepted) + " (" + key + " must be a whole number from " + std::to_string(found->min) + " to " +
                  std::to_string(found->max) + ")")
                     .c_str());
    net.*(found->field) = v;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  *out = net;
  return Status::Ok();
}

std::string net_text(const NetParams& net) {
  if (!net.enabled) return "off";
  const NetParams defaults;
  std::string out;
  for (const NetKey& k : kNetKeys) {
    if (net.*(k.field) == defaults.*(k.field)) continue;
    out += (out.empty() ? "" : ",") + std::string(k.name) + "=" + std::to_string(net.*(k.field));
  }
  return out.empty() ? "latency=0" : out;
}

const char* fetch_mode_name(FetchMode mode) {
  switch (mode) {
    case FetchMode::kAuto: return "auto";
    case FetchMode::kRma: return "rma";
    case FetchMode::kMessage: return "message";
  }
  return "?";
}

namespace {

// A byte count as the largest exact K, M, G or T multiple: 16G, 1536M, 4097.
std::string size_text(uint64_t bytes) {
  static const char kSuffix[] = "KMGT";
  std::string suffix;
  for (int i = 3; i >= 0; --i) {
    const uint64_t unit = 1ull << (10 * (i + 1));
    if (bytes != 0 && bytes % unit == 0) return std::to_string(bytes / unit) + kSuffix[i];
  }
  return std::to_string(bytes);
}

const char* log_level_text(LogLevel level) {
  switch (level) {
    case LogLevel::kError: return "error";
    case LogLevel::kWarn: return "warn";
    case LogLevel::kInfo: return "info";
    case LogLevel::kDebug: return "debug";
  }
  return "warn";
}

}  // namespace

std::vector<std::pair<std::string, std::string>> config_settings(const Config& c) {
  std::ostringstream timeout;
  timeout << c.timeout_s;
  std::vector<std::pair<std::string, std::string>> out = {
      {"region_size", size_text(c.region_size)},
      {"cache_pages", std::to_string(c.cache_pages)},
      {"cache_policy", c.cache_remote_victim ? "remote" : "fifo"},
      {"unit_pages", std::to_string(c.unit_pages)},
      {"home_policy", c.home_policy == HomePolicy::kCyclic ? "cyclic" : "first-touch"},
  };
  if (!c.stats_file.empty()) out.push_back({"stats_file", c.stats_file});
  if (!c.trace_file.empty()) out.push_back({"trace", c.trace_file});
  out.push_back({"summary", c.summary ? "on" : "off"});
  out.push_back({"log", log_level_text(c.log_level)});
  out.push_back({"timeout", timeout.str()});
  out.push_back({"spin_us", std::to_string(c.spin_us)});
  out.push_back({"service_slice_us", std::to_string(c.service_slice_us)});
  out.push_back({"poll_us", std::to_string(c.poll_us)});
  out.push_back({"write_detect", c.write_detect_cache_only ? "cache-only" : c.write_detect_all ? "all" : "adaptive"});
  out.push_back({"node_sharing", c.node_sharing ? "on" : "off"});
  out.push_back({"node_procs", c.node_procs == 0 ? "all" : std::to_string(c.node_procs)});
  out.push_back({"home_migration", c.home_migration ? "on" : "off"});
  out.push_back({"next_touch", c.next_touch_barriers == 0 ? "off" : "barrier:" + std::to_string(c.next_touch_barriers)});
  out.push_back({"next_touch_on", c.next_touch_write ? "write" : "touch"});
  out.push_back({"lock_incarnations", c.lock_incarnations ? "on" : "off"});
  out.push_back({"writer_retention", c.writer_retention ? "on" : "off"});
  out.push_back({"write_vector", !c.write_vector ? std::string("off") : c.write_vector_block == 0 ? std::string("on") : std::to_string(c.write_vector_block)});
  out.push_back({"barrier", c.central_barrier ? "central" : "dissemination"});
  out.push_back({"fetch", fetch_mode_name(c.fetch)});
  out.push_back({"fetch_pages", std::to_string(c.fetch_pages)});
  out.push_back({"home_backing", c.home_backing_dir.empty() ? "memory" : "file:" + c.home_backing_dir});
  out.push_back({"home_memory", c.home_memory == 0 ? "0" : size_text(c.home_memory)});
  out.push_back({"release_policy", c.release_policy == ReleasePolicy::kBuffered ? "buffered" : "aggressive"});
  out.push_back({"prefetch", c.prefetch_sync ? "sync" : "async"});
  out.push_back({"auto_hints", c.auto_hints ? "on" : "off"});
  out.push_back({"locks", std::to_string(c.locks)});
  out.push_back({"schedule", schedule_text(c.schedule)});
  {
    static const char* const modes[] = {"off", "compute", "data"};
    char beta[32];
    std::snprintf(beta, sizeof beta, "%g", c.task_migration_beta);
    out.push_back({"task_migration", modes[c.task_migration]});
    out.push_back({"task_migration_alpha", std::to_string(c.task_migration_alpha)});
    out.push_back({"task_migration_beta", beta});
  }
  out.push_back({"net", net_text(c.net)});
  if (c.test_faults != 0) {
    std::string names;
    for (const TestFaultName& f : kTestFaultNames) {
      if ((c.test_faults & static_cast<uint64_t>(f.fault)) == 0) continue;
      names += (names.empty() ? "" : ",") + std::string(f.name);
    }
    out.push_back({"test_fault", names});
  }
  if (c.test_delay_us != 0) out.push_back({"test_delay_us", std::to_string(c.test_delay_us)});
  if (c.test_hints != 0) out.push_back({"test_hints", std::to_string(c.test_hints)});
  return out;
}

std::string describe_config(const Config& c) {
  std::string out;
  for (const auto& [name, value] : config_settings(c)) out += (out.empty() ? "" : " ") + name + "=" + value;
  return out;
}

}  // namespace scopedsm
