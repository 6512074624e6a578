// Run-time configuration, read from SCOPEDSM_* environment variables.
//
// Every variable is a setting declared once, in the table of
// config_table.cc: its name, group, what it accepts, a line of
// documentation, and how it reads and writes its Config field. Parsing, the
// errors (a malformed or out-of-range value is an error naming the
// variable, the value and what is accepted), config_settings() (the
// statistics JSON, the start-up log, `scopedsm info`) and docs/CONFIG.md's
// tables all come from that table (docs/ARCHITECTURE.md, "How to add a
// setting").
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/limits.h"
#include "common/schedule_spec.h"
#include "common/status.h"

namespace scopedsm {

enum class HomePolicy { kCyclic, kFirstTouch };
// How pages homed on other nodes are read (SCOPEDSM_FETCH).
enum class FetchMode { kAuto, kRma, kMessage };
enum class LogLevel { kError = 0, kWarn = 1, kInfo = 2, kDebug = 3 };
// How scopedsm_release hints give memory back (SCOPEDSM_RELEASE_POLICY).
enum class ReleasePolicy { kBuffered, kAggressive };
// How a barrier's processes meet (SCOPEDSM_BARRIER, docs/PROTOCOL.md §4):
// the processes of a node in shared memory and one per node in rounds
// (kNode), every process in rounds (kDissemination), or at rank 0 (kCentral).
enum class BarrierForm : uint8_t { kNode, kDissemination, kCentral };

// Test-only protocol breakages (SCOPEDSM_TEST_FAULT), one bit each, so the
// protocol's hot paths test a bit rather than compare names.
enum class TestFault : uint64_t {
  kSkipInvalidate = 1u << 0,  // write notices invalidate nothing: stale reads
  kSkipDiff = 1u << 1,        // cached pages' diffs are dropped: lost writes
  kSkipNotices = 1u << 2,     // lock and condition-variable managers and barrier rounds drop received notices
  kSkipNodeRecord = 1u << 3,  // node peers copy home pages without recording the copy: stale reads
  kWholeWordMerge = 1u << 4,  // node peers merge whole changed words, not bytes: lost neighbour bytes
  kSkipSeenMark = 1u << 5,    // one-sided readers do not mark pages seen: homes untrap pages others hold
  kRmaIgnoreUntrapped = 1u << 6,  // one-sided readers treat untrapped pages as trapped (no RECORD, copies kept past acquires): stale reads
  kSlowUntrap = 1u << 7,      // not a breakage: a home with pages to untrap after a barrier does so 50 ms late (widens a race for tests)
  kSkipBarrierRound = 1u << 8,  // a barrier ignores the notices its last round brings: stale reads
  kStaleHomeOffer = 1u << 9,    // a barrier writer offers to become the home even of pages whose copy it lost: stale homes
  kKeepLostHome = 1u << 10,     // a home whose page migrated keeps using its own memory as the page: lost writes
  kSlowBarrierFinish = 1u << 11,  // not a breakage: a process a barrier moves homes to finishes it 50 ms late (requests for them wait)
  kSlowHandoffRelease = 1u << 12,  // not a breakage: a holder sends its REL 50 ms after handing the lock over (the successor's REL arrives first)
  kReleaseSkipDiff = 1u << 13,    // a release hint drops a written copy without sending its diff: lost writes
  kNoSteal = 1u << 14,            // loop scheduling never steals (AFS, AAFS, ABS): iterations of others' queues left undone
  kStaleIncarnation = 1u << 15,   // lock grants leave out the newest release's notices: stale reads
  kAtomicTorn = 1u << 16,        // atomics at the home load, yield, then store: lost updates
  kNextTouchStale = 1u << 17,    // a barrier merge keeps a reader's next-touch offer over another's write: the reader's stale copy becomes the home
  kNoTaskMigration = 1u << 19,   // jia_lbarrier decides migrations but never reassigns ranges: loads stay unbalanced
  kUnitFirstPageOnly = 1u << 18,  // twins and diffs cover only a coherence unit's first OS page: lost writes
  kWvecDropBlock = 1u << 20,     // a write-vector reply leaves out one written block: stale reads
  kCowdKeepCache = 1u << 21,     // cache-only write detection keeps the copies no notice names at an acquire: stale reads
  kAutoNoStream = 1u << 22,      // the automatic hints' stream detector never matches a stride: no stream, no automatic hint
  kUntrapCopied = 1u << 23,      // a home untraps pages copied in the interval the barrier ends: readers refetch them every interval
  kHangInFinalize = 1u << 24,    // not a breakage: rank 1's MPI_Finalize never returns, as some MPI libraries' shutdown does
  kAutoOverHints = 1u << 25,     // automatic hints act on faults in ranges the program's prefetch hints named: the two cut each other's runs
  kSlowRetrapQueue = 1u << 26,   // not a breakage: a home marks next-touch pages 50 ms late and leaves the point 150 ms late, and a node peer queues a copy of an untrapped page 100 ms after claiming it (widens a race for tests)
  kKeepUnrecorded = 1u << 27,    // acquires keep copies read one-sided from untrapped pages (RECORD still goes): stale reads
  kNoWaitReports = 1u << 28,     // no process reports its synchronization waits to rank 0: deadlocks go unfound
  kOmpLockScope = 1u << 29,      // OpenMP's locks and critical sections acquire only the lock's scope, not everything: stale reads
  kOmpKeepPinned = 1u << 30,     // copies of pinned pages (an OpenMP master's stack) survive acquires: stale reads
  kInterposeDirect = 1u << 31,   // interposed calls (read, write, fwrite, MPI_Send, ...) go straight to the real functions: EFAULT, short counts, failed single-copy transfers
  kReliefInTransition = 1ull << 32,  // map-pressure relief runs inside the transition that meets the budget, over pinned pages too: lost slots, EFAULT
  kStaleBroadcast = 1ull << 33,      // rank 0's barrier broadcast repeats its previous one: an OpenMP region starts with the last region's record
  kCheckpointSkipChanged = 1ull << 34,  // an incremental checkpoint references the previous generation's copy of pages changed since: a restart loses their writes
  kNoPeerWatch = 1ull << 40,         // no process watches the job's others on its machine: a death the launcher misses is a hang
  kProgramComm = 1ull << 35,         // the runtime talks on the program's communicator itself, not on duplicates: its messages and the program's match each other
  kWholeWordApply = 1ull << 36,      // a home applies each changed word of a DIFF whole, not its changed bytes: lost neighbour bytes
};
// The name SCOPEDSM_TEST_FAULT gives each, in bit order.
struct TestFaultName {
  TestFault fault;
  const char* name;
};
inline constexpr TestFaultName kTestFaultNames[] = {
    {TestFault::kSkipInvalidate, "skip-invalidate"},
    {TestFault::kSkipDiff, "skip-diff"},
    {TestFault::kSkipNotices, "skip-notices"},
    {TestFault::kSkipNodeRecord, "skip-node-record"},
    {TestFault::kWholeWordMerge, "whole-word-merge"},
    {TestFault::kSkipSeenMark, "skip-seen-mark"},
    {TestFault::kRmaIgnoreUntrapped, "rma-ignore-untrapped"},
    {TestFault::kSlowUntrap, "slow-untrap"},
    {TestFault::kSkipBarrierRound, "skip-barrier-round"},
    {TestFault::kStaleHomeOffer, "stale-home-offer"},
    {TestFault::kKeepLostHome, "keep-lost-home"},
    {TestFault::kSlowBarrierFinish, "slow-barrier-finish"},
    {TestFault::kSlowHandoffRelease, "slow-handoff-release"},
    {TestFault::kReleaseSkipDiff, "release-skip-diff"},
    {TestFault::kNoSteal, "no-steal"},
    {TestFault::kStaleIncarnation, "stale-incarnation"},
    {TestFault::kAtomicTorn, "atomic-torn"},
    {TestFault::kNoPeerWatch, "no-peer-watch"},
    {TestFault::kNextTouchStale, "next-touch-stale"},
    {TestFault::kNoTaskMigration, "no-task-migration"},
    {TestFault::kUnitFirstPageOnly, "unit-first-page-only"},
    {TestFault::kWvecDropBlock, "wvec-drop-block"},
    {TestFault::kCowdKeepCache, "cowd-keep-cache"},
    {TestFault::kAutoNoStream, "auto-no-stream"},
    {TestFault::kUntrapCopied, "untrap-copied"},
    {TestFault::kHangInFinalize, "hang-in-finalize"},
    {TestFault::kAutoOverHints, "auto-over-hints"},
    {TestFault::kSlowRetrapQueue, "slow-retrap-queue"},
    {TestFault::kKeepUnrecorded, "keep-unrecorded"},
    {TestFault::kNoWaitReports, "no-wait-reports"},
    {TestFault::kOmpLockScope, "omp-lock-scope"},
    {TestFault::kOmpKeepPinned, "omp-keep-pinned"},
    {TestFault::kInterposeDirect, "interpose-direct"},
    {TestFault::kReliefInTransition, "relief-in-transition"},
    {TestFault::kStaleBroadcast, "stale-broadcast"},
    {TestFault::kCheckpointSkipChanged, "checkpoint-skip-changed"},
    {TestFault::kProgramComm, "program-comm"},
    {TestFault::kWholeWordApply, "whole-word-apply"},
};

// SCOPEDSM_UNIT_PAGES: the coherence unit (the protocol's "page") is this
// many OS pages, a power of two. Its upper bound is the diff format's: a
// diff names 64-byte blocks in 13 bits (protocol/diff.h), so a unit holds
// at most 8192 blocks, 512 KiB (128 pages of 4 KiB).
inline constexpr uint32_t kMaxUnitPages = 128;
inline constexpr uint64_t kMaxUnitBytes = uint64_t{65536} * 8;
inline constexpr bool valid_unit_pages(uint64_t n) { return n >= 1 && n <= kMaxUnitPages && (n & (n - 1)) == 0; }
inline constexpr const char* kUnitPagesAccepted = "a power of two from 1 to 128 (OS pages per coherence unit)";

// The communication-cost model (SCOPEDSM_NET; transport/net_model.h says
// where each cost lands). Times in nanoseconds, bandwidth in MB/s (10^6
// bytes per second). Disabled by default; enabled with every cost 0 it
// injects nothing but still runs the model's code (a benchmark's baseline).
struct NetParams {
  bool enabled = false;
  uint64_t overhead_ns = 0;   // per message, on the sending thread
  uint64_t occupancy_ns = 0;  // per packet, on each end's network interface
  uint64_t mtu = 4096;        // bytes per packet
  uint64_t bandwidth_mbs = 0; // each node's I/O bandwidth per direction; 0 = unlimited
  uint64_t latency_ns = 0;    // per message, on the link
  uint64_t interrupt_ns = 0;  // each of issue and delivery, per request served
};
inline constexpr uint64_t kNetMaxNs = 100000000;  // 0.1 s: the largest time SCOPEDSM_NET accepts
// Parses SCOPEDSM_NET: "off", or comma-separated key=value pairs from
// overhead, occupancy, mtu, bandwidth, latency and interrupt (each at most
// once), as the setting does. Exposed for tests and the benchmark's
// run-time reconfiguration.
Status parse_net(const std::string& text, NetParams* out);
// The inverse: "off", or the pairs set, in the order above ("latency=0"
// when every cost is 0).
std::string net_text(const NetParams& net);

struct Config {
  uint64_t region_size = 16ull << 30;  // bytes of shared address space
  bool cache_remote_victim = false;    // SCOPEDSM_CACHE_POLICY=remote: near copies evicted before far ones
  uint64_t cache_pages = 65536;        // capacity of the remote-page cache, in coherence units
  uint32_t unit_pages = 1;             // OS pages per coherence unit (SCOPEDSM_UNIT_PAGES), a power of two
  HomePolicy home_policy = HomePolicy::kCyclic;
  std::string stats_file;              // JSON statistics path; empty = none
  std::string trace_file;              // trace-event JSON path (SCOPEDSM_TRACE); empty = no trace
  bool summary = true;                 // rank 0 prints a table at exit
  LogLevel log_level = LogLevel::kWarn;
  double timeout_s = 0;                // longest single wait (SCOPEDSM_TIMEOUT); 0 = no limit
  uint64_t spin_us = 50;               // busy-poll before sleeping
  uint64_t service_slice_us = 0;       // the service thread's time slice asked of the kernel; 0 = the kernel's
  uint64_t poll_us = 200;              // sleep bound when peers are off-node
  bool write_detect_all = false;       // trap every home write (disable ADWD)
  bool write_detect_cache_only = false;  // SCOPEDSM_WRITE_DETECT=cache-only: never trap home writes, drop every copy at acquires (CO-WD)
  bool home_migration = false;         // single writers become homes at barriers (HMIG)
  uint32_t next_touch_barriers = 0;    // SCOPEDSM_NEXT_TOUCH=barrier:N: the first N barriers after an allocation are next-touch points
  bool next_touch_write = false;       // SCOPEDSM_NEXT_TOUCH_ON=write: only a write re-homes a pending page (else any touch)
  bool lock_incarnations = true;       // lock grants carry only notices newer than the acquirer's version
  bool writer_retention = true;        // a notice whose only writer is us does not invalidate our copy
  bool write_vector = false;           // SCOPEDSM_WRITE_VECTOR: refetches bring only the blocks written since (WVEC)
  uint32_t write_vector_block = 0;     // its block size in bytes (also for jia_config(WVEC, ON)); 0 = 1/32 page
  BarrierForm barrier_form = BarrierForm::kDissemination;  // SCOPEDSM_BARRIER; jia_config(BROADCAST, ...) switches it
  bool node_sharing = true;            // same-node processes read and write each other's homes directly
  uint32_t node_procs = 0;             // SCOPEDSM_NODE_PROCS: at most this many processes per node; 0 = all
  FetchMode fetch = FetchMode::kAuto;  // how pages homed on other nodes are read
  uint32_t fetch_pages = 16;           // most pages one fault fetches (a run), 1 = no runs
  int locks = kMaxLocks;               // lock ids are 0 .. locks - 1 (SCOPEDSM_LOCKS)
  Schedule schedule;                   // DOALL loops' default schedule (SCOPEDSM_SCHEDULE)
  int task_migration = 2;              // jia_lbarrier: 0 off, 1 compute, 2 data (SCOPEDSM_TASK_MIGRATION)
  int64_t task_migration_alpha = 0;    // calls between measurements; 0: a tenth of the iterations (or 10)
  double task_migration_beta = 0.2;    // migrate when sigma/E of the compute times exceeds this
  NetParams net;                       // communication costs injected between nodes (SCOPEDSM_NET)
  uint64_t test_faults = 0;            // TestFault bits: test-only protocol breakages
  uint64_t test_delay_us = 0;          // test-only: random delays up to this before sends and serves
  std::string home_backing_dir;        // SCOPEDSM_HOME_BACKING=file:DIR; empty = memory (a memfd)
  uint64_t home_memory = 0;            // SCOPEDSM_HOME_MEMORY: bytes of home pages kept resident; 0 = no limit
  ReleasePolicy release_policy = ReleasePolicy::kBuffered;  // SCOPEDSM_RELEASE_POLICY
  bool prefetch_sync = false;          // SCOPEDSM_PREFETCH=sync: hints wait for their runs (for comparison)
  bool auto_hints = false;             // SCOPEDSM_AUTO_HINTS: the runtime's own prefetch and release hints
  uint64_t test_hints = 0;             // test-only: seed of random prefetch and release hints; 0 = none
  uint64_t omp_stack = 0;              // SCOPEDSM_OMP_STACK: bytes of an OpenMP master's stack; 0 = as ulimit -s says
  std::string checkpoint_dir;          // SCOPEDSM_CHECKPOINT_DIR; empty = <program>.checkpoint in the current directory
  std::string restart_dir;             // SCOPEDSM_RESTART: the checkpoint directory to restart from; empty = a fresh start
  std::string test_checkpoint_kill;    // SCOPEDSM_TEST_CHECKPOINT_KILL=RANK:SEQ:POINT (test only): that rank raises SIGKILL there
  bool strict = false;                 // an unknown SCOPEDSM_* variable is an error, not a warning
  // SCOPEDSM_* variables set that no part of ScopeDSM reads (misspellings,
  // most likely), each with the known variable closest to it.
  struct UnknownVariable {
    std::string name;
    std::string closest;
  };
  std::vector<UnknownVariable> unknown;
};

// Where a setting belongs: its group in docs/CONFIG.md and `scopedsm info`.
enum class SettingGroup { kMemory, kCoherence, kSync, kProcesses, kLoops, kOpenMP, kOutput, kTesting };
inline constexpr SettingGroup kSettingGroups[] = {SettingGroup::kMemory,    SettingGroup::kCoherence,
                                                  SettingGroup::kSync,      SettingGroup::kProcesses,
                                                  SettingGroup::kLoops,     SettingGroup::kOpenMP,
                                                  SettingGroup::kOutput,    SettingGroup::kTesting};
const char* setting_group_title(SettingGroup group);

// One setting: a SCOPEDSM_* variable and the Config field(s) it selects,
// declared once in config_table.cc (the kinds there make most of it).
struct Setting {
  std::string name;      // SCOPEDSM_UNIT_PAGES
  SettingGroup group = SettingGroup::kMemory;
  std::string accepted;  // what it takes, as its error says: "NAME='value' is invalid: expected <accepted>"
  std::string doc;       // one sentence: what it selects (docs/CONFIG.md's table, `scopedsm info --variables`)
  std::string example;   // a valid value other than the default, written as print() writes it (the tests read it)
  // Left out of config_settings() at its default: unset paths, test-only
  // settings and other switches a user seldom sets.
  bool quiet_at_default = false;
  // Reads `text` into `c`; false if it is not accepted, `detail` (empty if
  // nothing more is to be said) naming the part that is wrong.
  std::function<bool(const std::string& text, Config* c, std::string* detail)> parse;
  // The value `c` holds, as a user would write the variable; "" only while
  // it is unset (a path, SCOPEDSM_OMP_STACK).
  std::function<std::string(const Config& c)> print;

  // "unit_pages": the name without SCOPEDSM_, in lower case (the statistics
  // JSON's key, `describe_config`'s).
  std::string key() const;
  // The default as written: print(Config{}), or "none" if that is unset.
  std::string default_text() const;
  // parse() with the error in its final words: "NAME='text' is invalid:
  // expected <accepted>" and, if parse gave one, " (<detail>)".
  Status read(const std::string& text, Config* c) const;
};
// Every setting, in the order of the table (grouped, and the order of
// config_settings()).
const std::vector<Setting>& settings();
// The setting named `name` (SCOPEDSM_...), or null.
const Setting* find_setting(const std::string& name);

// A combination of settings that is refused, with the error that says so.
struct SettingRule {
  std::function<bool(const Config& c)> refused;
  std::string message;
};
const std::vector<SettingRule>& setting_rules();

// A SCOPEDSM_* variable that the tools, benchmarks and tests read rather
// than the runtime (SCOPEDSM_MPIEXEC, SCOPEDSM_CC, ...): known, so never
// reported as unknown, but not part of the runtime's configuration.
struct ToolVariable {
  const char* name;
  const char* read_by;  // Markdown: `scopedsm run`, ...
  const char* meaning;
};
const std::vector<ToolVariable>& tool_variables();

// The names of the SCOPEDSM_* variables in this process's environment.
std::vector<std::string> scopedsm_variable_names();

// The known variable (of settings() and tool_variables()) closest
// to `name` by edit distance; ties go to the first in table order.
std::string closest_known_variable(const std::string& name);
// "SCOPEDSM_X is not a ScopeDSM variable (did you mean SCOPEDSM_Y?)"
std::string describe_unknown(const Config::UnknownVariable& unknown);

// Reads the configuration through `lookup` (getenv in production, a map in
// tests). Returns the first invalid variable as an error. `names` are the
// SCOPEDSM_* variables set (scopedsm_variable_names() in production): those
// no part of ScopeDSM knows are listed in out->unknown, and are an error
// naming each of them and its closest known variable when
// SCOPEDSM_STRICT=on.
using EnvLookup = std::function<std::optional<std::string>(const char*)>;
Status parse_config(const EnvLookup& lookup, Config* out, const std::vector<std::string>& names = {});
EnvLookup process_environment();

// Parses "4096", "64K", "16M", "2G", "1T" (binary multiples). Exposed for tests.
Status parse_size(const std::string& text, uint64_t* out);

// The effective configuration as (setting, value) pairs, each value written
// as a user would write the variable: ("log", "warn"), ("region_size",
// "16G"), in the order of settings(). A setting's name is its variable's
// without SCOPEDSM_, in lower case (Setting::key). Settings quiet at their
// default (unset paths, test-only settings, ...) are left out while there.
std::vector<std::pair<std::string, std::string>> config_settings(const Config& config);

// The same, as one line of setting=value pairs (for `info` and the log).
std::string describe_config(const Config& config);

}  // namespace scopedsm
