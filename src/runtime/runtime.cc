#include "runtime/runtime.h"

#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include "common/doc_path.h"
#include "common/clock.h"
#include "jia.h"
#include "common/log.h"
#include "runtime/blocked_read.h"
#include "runtime/fault_handler.h"
#include "runtime/shared_access.h"

namespace scopedsm {

namespace {

// Whether thread `tid` is blocked reading the launcher's PMI socket
// (PMI_FD, set by MPICH's Hydra): inside MPI_Finalize, that is the final
// PMI barrier, which a process enters once its own part of the shutdown is
// done. False where no PMI_FD is set (Open MPI, Slurm's PMIx).
bool blocked_in_pmi_read(long tid) {
  const char* fd_text = std::getenv("PMI_FD");
  if (fd_text == nullptr) return false;
  char* end = nullptr;
  const long fd = std::strtol(fd_text, &end, 10);
  const bool valid = end != fd_text && *end == '\0' && fd >= 0 && fd <= INT32_MAX;
  return valid && thread_blocked_in_read(tid, static_cast<int>(fd));
}

// How long MPI_Finalize may take when SCOPEDSM_TIMEOUT is 0 (no limit, the
// default): a normal shutdown takes well under a second, even across nodes,
// and a program whose every process has finished its work must not hang
// for ever in the MPI library's.
constexpr double kFinalizeBoundS = 30;

// MPI_Finalize within SCOPEDSM_TIMEOUT (kFinalizeBoundS when that is 0). An
// MPI library can hang in its own shutdown after every message has been
// delivered: UCX's TCP transport does
// (openucx/ucx#8738; MPICH 4.0 ch4:ucx between namespaced hosts hangs in
// 1 run in 4 to 20 here under load, processes closing endpoints to peers
// that, already in their final PMI barrier, no longer progress; RELIABILITY.md
// §4 has the measurements). ScopeDSM's work
// is complete by then: every write is at its home, statistics and traces
// are written. A process whose MPI_Finalize outlasts the limit says so and
// exits with status 0, as a program does that returns after finalizing;
// code after the finalize call does not run. `hang` (test fault
// hang-in-finalize, rank 1 only) stands for such a library: it never
// enters MPI_Finalize at all.
void finalize_mpi(double timeout_s, int rank, bool hang) {
  const long main_tid = static_cast<long>(syscall(SYS_gettid));
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  const bool limit_set = timeout_s > 0;
  const double bound_s = limit_set ? timeout_s : kFinalizeBoundS;
  std::thread watch([&] {
    std::unique_lock<std::mutex> lock(mu);
    if (cv.wait_for(lock, std::chrono::duration<double>(bound_s), [&] { return done; })) return;
    std::fprintf(stderr,
                 "scopedsm: rank %d: warning: MPI_Finalize has not returned within %g s (%s); the MPI library "
                 "hangs in its own shutdown. Every ScopeDSM operation had completed, so the process exits "
                 "with status 0 (if the library still holds it once its peers have gone)\n",
                 rank, bound_s, limit_set ? "SCOPEDSM_TIMEOUT" : "ScopeDSM's bound on it without SCOPEDSM_TIMEOUT");
    std::fflush(stderr);
    // Every process whose finalize hangs says so before any of them goes:
    // a launcher ends the others' processes once one is gone (MPICH's
    // Hydra does), and their messages would be lost. Then the processes
    // waiting in the final PMI barrier, their part of the shutdown done,
    // go first. A process the library still holds waits up to 5 s more:
    // its peers' closed connections can end the flush it spins on, and
    // its MPI_Finalize then returns. Had it gone with the others, Hydra
    // could answer a barrier it completes as the process goes to
    // processes already gone, and fail the job (CI, MPICH 4.0.2 over
    // UCX's TCP transport). The process standing for the hung library
    // (test fault) goes after those in the barrier, as a process hung in
    // a library would: the peers must not see it die inside their own
    // MPI_Finalize, which some libraries answer with an error exit.
    if (hang) {
      std::this_thread::sleep_for(std::chrono::milliseconds(800));
    } else if (blocked_in_pmi_read(main_tid)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    } else if (cv.wait_for(lock, std::chrono::seconds(5), [&] { return done; })) {
      return;
    }
    _exit(0);
  });
  if (hang) {
    for (;;) pause();
  }
  MPI_Finalize();
  {
    std::lock_guard<std::mutex> lock(mu);
    done = true;
  }
  cv.notify_one();
  watch.join();
}

// The smallest and the largest of every process's `value` (collective).
std::pair<uint64_t, uint64_t> agree_on(uint64_t value, MPI_Comm comm) {
  unsigned long long mine[2] = {value, ~static_cast<unsigned long long>(value)};
  unsigned long long all[2];
  MPI_Allreduce(mine, all, 2, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm);
  return {~all[1], all[0]};
}

enum class Lifecycle { kNotStarted, kRunning, kFinished };
std::atomic<Lifecycle> g_lifecycle{Lifecycle::kNotStarted};
Runtime* g_runtime = nullptr;
std::atomic<Runtime*> g_fault_target{nullptr};
// The region's address range after finalize, to name touches after exit.
std::atomic<uintptr_t> g_retired_base{0};
std::atomic<uintptr_t> g_retired_end{0};

long current_tid() { return static_cast<long>(syscall(SYS_gettid)); }

void exit_now(int) { _exit(1); }

// Ends the job. Some MPI libraries' MPI_Abort can stall (MPICH with one
// process, a peer that no longer answers); the alarm guarantees this
// process still exits within seconds, and the launcher then ends the rest.
void abort_job(int code) {
  signal(SIGALRM, exit_now);
  alarm(3);
  // Give the launcher a moment to forward the message we just printed:
  // some launchers drop a process's pending output when they tear the job down.
  usleep(200000);
  // The whole job, also when the runtime runs on a communicator of the
  // program's (scopedsm_init_comm): the program's other processes would
  // otherwise wait for these ones for ever.
  MPI_Abort(MPI_COMM_WORLD, code);
  _exit(code);
}

// Before init the rank is unknown to us; the launcher usually says.
void guess_rank_for_messages() {
  if (log_rank() >= 0) return;
  for (const char* var : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"}) {
    if (const char* v = std::getenv(var)) {
      set_log_rank(std::atoi(v));
      return;
    }
  }
}

// A launcher of another MPI than the one this library was built with starts
// every process as a singleton: MPI sees a job of one while the launcher's
// own variables count the processes it started. Each would run the whole
// program alone, with nothing shared, so it is an error, not a job of one.
void refuse_foreign_launcher(const char* init, int size) {
  if (size != 1) return;
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    const char* v = std::getenv(var);
    if (v == nullptr || std::atoi(v) <= 1) continue;
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0;
    MPI_Get_library_version(version, &len);
    std::string library(version, static_cast<size_t>(len));
    library = library.substr(0, library.find_first_of(",\n"));
    for (char& c : library)
      if (c == '\t') c = ' ';
    fatal("%s: this process is one of %d that a launcher started (%s=%s), but its MPI library (%s) sees a job of "
          "1 process: the launcher belongs to another MPI, so every process would run the whole program alone "
          "with nothing shared. Start the program with 'scopedsm run', or with the mpiexec of the MPI it was "
          "built with",
          init, std::atoi(v), var, v, library.c_str());
  }
}

// At exit (main returned or exit() was called) while still running: the
// shutdown the program did not call, made implicitly. If every process ends
// this way (or calls the shutdown), the job ends as cleanly as with it; if
// another process still waits for this one in a collective call, the
// rendezvous or the barrier reports that (common/surface.h).
// Only where finalizing is possible: not while a fatal error ends the job
// (the process is on its way out through MPI_Abort), not in a child the
// program forked (not a process of the job), and not from another thread,
// which is reported. (A program that calls MPI_Finalize itself while the
// runtime runs fails inside MPI, before it gets here.)
pid_t g_init_pid = 0;

void finalize_at_exit() {
  if (g_lifecycle.load() != Lifecycle::kRunning) return;
  if (fatal_in_progress() || getpid() != g_init_pid) return;
  const Surface& s = *g_runtime->state().surface;
  if (!g_runtime->on_application_thread())
    fatal("exit() was called by thread %ld, not the thread that called %s; %s cannot be made for the program from "
          "there: call %s from that thread before the process ends",
          current_tid(), s.init, s.finalize, s.finalize);
  g_runtime->finalize(ApiCall{&s, s.finalize}, true);
}

const char* thread_level_name(int level) {
  if (level == MPI_THREAD_SINGLE) return "MPI_THREAD_SINGLE";
  if (level == MPI_THREAD_FUNNELED) return "MPI_THREAD_FUNNELED";
  if (level == MPI_THREAD_SERIALIZED) return "MPI_THREAD_SERIALIZED";
  if (level == MPI_THREAD_MULTIPLE) return "MPI_THREAD_MULTIPLE";
  return "unknown";
}

// The misuse of scopedsm_init_comm and its kin that MPI itself would answer
// with a crash or a hang, each reported in one line before any MPI call on
// the communicator.
void check_program_comm(ApiCall call, MPI_Comm comm, bool mpi_initialized) {
  if (!mpi_initialized)
    fatal("%s: MPI is not initialized; call MPI_Init_thread with MPI_THREAD_MULTIPLE first (or %s, which "
          "initializes MPI itself)",
          call.name, call.surface->init);
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized)
    fatal("%s: MPI has been finalized; ScopeDSM must start after MPI_Init and end before MPI_Finalize", call.name);
  set_abort_hook(&abort_job);
  if (comm == MPI_COMM_NULL)
    fatal("%s: the communicator is MPI_COMM_NULL; pass one this process belongs to (a process that MPI_Comm_split "
          "gave MPI_COMM_NULL takes no part in ScopeDSM and does not call %s)",
          call.name, call.name);
  int inter = 0;
  MPI_Comm_test_inter(comm, &inter);
  if (inter) fatal("%s: the communicator is an intercommunicator; pass an intracommunicator", call.name);
}

// MPI_Finalize while the runtime runs: MPI deletes the attributes of
// MPI_COMM_SELF first thing in MPI_Finalize (MPI 3.1 section 8.7.1), from any
// language's binding, so the deletion of ours reports it, MPI still intact.
int g_finalize_keyval = MPI_KEYVAL_INVALID;

int on_mpi_finalize(MPI_Comm, int, void*, void*) {
  if (g_lifecycle.load() == Lifecycle::kRunning && !fatal_in_progress()) {
    const Surface& s = *g_runtime->state().surface;
    fatal("MPI_Finalize was called while ScopeDSM still runs; ScopeDSM must end first: call %s before MPI_Finalize",
          s.finalize);
  }
  return MPI_SUCCESS;
}

void watch_mpi_finalize() {
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_mpi_finalize, &g_finalize_keyval, nullptr);
  MPI_Comm_set_attr(MPI_COMM_SELF, g_finalize_keyval, nullptr);
}

void unwatch_mpi_finalize() {
  if (g_finalize_keyval == MPI_KEYVAL_INVALID) return;
  MPI_Comm_delete_attr(MPI_COMM_SELF, g_finalize_keyval);
  MPI_Comm_free_keyval(&g_finalize_keyval);
}

}  // namespace

bool Runtime::running() { return g_lifecycle.load() == Lifecycle::kRunning; }

Runtime* Runtime::active() { return running() ? g_runtime : nullptr; }

bool Runtime::on_application_thread() const { return current_tid() == app_tid_; }

Runtime& Runtime::require_running(ApiCall call) {
  Lifecycle l = g_lifecycle.load();
  if (l == Lifecycle::kRunning) return *g_runtime;
  guess_rank_for_messages();
  if (l == Lifecycle::kNotStarted) fatal("%s", before_init_error(call).c_str());
  fatal("%s", after_finalize_error(call).c_str());
}

void Runtime::init(int* argc, char*** argv, ApiCall call) { launch(argc, argv, call, {}, nullptr); }

void Runtime::init_fixed(int* argc, char*** argv, ApiCall call, Region::FixedPlace fixed) {
  launch(argc, argv, call, fixed, nullptr);
}

void Runtime::init_comm(MPI_Comm comm, ApiCall call) { launch(nullptr, nullptr, call, {}, &comm); }

void Runtime::launch(int* argc, char*** argv, ApiCall call, Region::FixedPlace fixed, const MPI_Comm* program_comm) {
  if (const Lifecycle l = g_lifecycle.load(); l != Lifecycle::kNotStarted) {
    guess_rank_for_messages();
    fatal("%s", init_again_error(call, l != Lifecycle::kRunning).c_str());
  }
  g_runtime = new Runtime();
  g_runtime->start(argc, argv, call, fixed, program_comm);
  g_lifecycle.store(Lifecycle::kRunning);
}

void Runtime::start(int* argc, char*** argv, ApiCall call, Region::FixedPlace fixed, const MPI_Comm* program_comm) {
  start_ns_ = now_ns();
  state_ = std::make_unique<RuntimeState>();
  state_->surface = call.surface;
  const char* const init = call.name;
  guess_rank_for_messages();
  Status cs = parse_config(process_environment(), &state_->config, scopedsm_variable_names());
  if (!cs.ok())
    fatal("%s: bad configuration: %s (see %s)", init, cs.message().c_str(), doc_path("CONFIG.md").c_str());
  const Config& cfg = state_->config;
  set_log_level(cfg.log_level);

  int initialized = 0;
  MPI_Initialized(&initialized);
  if (program_comm != nullptr) check_program_comm(call, *program_comm, initialized != 0);
  int provided = MPI_THREAD_SINGLE;
  // Before the MPI library sets its own (fault_handler.h).
  remember_program_segv_handler();
  if (!initialized) {
    // A GETP answer is one page; keep pages on Open MPI's shared-memory
    // eager path instead of its slower rendezvous. Users may override.
    setenv("OMPI_MCA_btl_vader_eager_limit", "8192", 0);
    MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
    we_initialized_mpi_ = true;
  } else {
    MPI_Query_thread(&provided);
  }
  // The processes of this runtime: the program's communicator, or every
  // process of the job. Ranks inside ScopeDSM are ranks in it.
  const MPI_Comm program = program_comm != nullptr ? *program_comm : MPI_COMM_WORLD;
  int rank = 0, size = 1, job_size = 1;
  MPI_Comm_rank(program, &rank);
  MPI_Comm_size(program, &size);
  MPI_Comm_size(MPI_COMM_WORLD, &job_size);
  set_log_rank(rank);
  set_abort_hook(&abort_job);
  // The launcher's count is of the whole job: compared with the job's size
  // as MPI sees it, not with a communicator the program chose.
  refuse_foreign_launcher(init, job_size);
  if (provided < MPI_THREAD_MULTIPLE && initialized)
    fatal("%s: MPI was initialized with thread level %s, but ScopeDSM needs MPI_THREAD_MULTIPLE (its service thread "
          "and the application thread both use MPI): initialize MPI with MPI_Init_thread(..., MPI_THREAD_MULTIPLE, "
          "...)%s",
          init, thread_level_name(provided), program_comm != nullptr ? "" : (std::string(" or let ") + init + " do it").c_str());
  if (provided < MPI_THREAD_MULTIPLE)
    fatal("%s: MPI provides thread level %s but ScopeDSM needs MPI_THREAD_MULTIPLE: its service thread and the "
          "application thread both use MPI. Use an MPI library built with thread support.",
          init, thread_level_name(provided));
  // Every collective call and message of the runtime goes on communicators
  // of its own, duplicated from the program's: nothing the program sends,
  // whatever its tags, can match them, and no collective call of the program
  // on its communicator meets one of the runtime's. (Test fault program-comm,
  // the negative control, uses the program's communicator itself.)
  shares_program_comm_ = (cfg.test_faults & static_cast<uint64_t>(TestFault::kProgramComm)) != 0;
  if (shares_program_comm_) own_comm_ = program;
  else MPI_Comm_dup(program, &own_comm_);
  watch_mpi_finalize();
  state_->rank = rank;
  state_->size = size;
  reports_.start(&state_->config, rank, size, &state_->stats, own_comm_);
  jia_pid = rank;  // the JIAJIA names, whichever init was called
  hostc = size;
  // A misspelt setting would otherwise do nothing without a word. Rank 0
  // speaks for the job (every process should see the same variables).
  if (rank == 0)
    for (const Config::UnknownVariable& u : cfg.unknown)
      SCOPEDSM_LOG(LogLevel::kWarn, "%s: ignored (%s lists the variables, and SCOPEDSM_STRICT=on or "
                   "'scopedsm run --strict' makes this an error)", describe_unknown(u).c_str(),
                   doc_path("CONFIG.md").c_str());

  // Every process must agree on the region size, or addresses would differ.
  if (const auto sizes = agree_on(cfg.region_size, own_comm_); sizes.first != sizes.second)
    fatal("%s: SCOPEDSM_REGION_SIZE differs between processes; give every process the same value", init);
  // And on the coherence unit, or page numbers would name different memory.
  if (const auto units = agree_on(cfg.unit_pages, own_comm_); units.first != units.second)
    fatal("%s: SCOPEDSM_UNIT_PAGES differs between processes: some use %" PRIu64 " and others %" PRIu64
          " (this one %" PRIu32 "); give every process the same value",
          init, units.first, units.second, cfg.unit_pages);
  if (const uint64_t os_page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE)); os_page * cfg.unit_pages > kMaxUnitBytes)
    fatal("%s: SCOPEDSM_UNIT_PAGES=%" PRIu32 " makes a coherence unit of %" PRIu64 " bytes with this system's %" PRIu64
          "-byte pages, more than the %" PRIu64 " bytes a diff can address; use at most %" PRIu64,
          init, cfg.unit_pages, os_page * cfg.unit_pages, os_page, kMaxUnitBytes, kMaxUnitBytes / os_page);

  Status s = state_->node.init(own_comm_, cfg.node_sharing, cfg.node_procs);
  if (!s.ok()) fatal("%s: %s", init, s.message().c_str());
  s = state_->transport.init(own_comm_, state_->node, cfg, !shares_program_comm_);
  if (!s.ok()) fatal("%s: %s", init, s.message().c_str());
  MPI_Comm_dup(own_comm_, &user_comm_);
  MPI_Comm_dup(own_comm_, &coll_comm_);
  s = state_->region.reserve(own_comm_, cfg.region_size, cfg.unit_pages, cfg.home_backing_dir, fixed);
  if (!s.ok()) fatal("%s: %s", init, s.message().c_str());
  // A diff names its first word in 16 bits (protocol/diff.h): pages of more
  // than 65536 words would have their high words written at the wrong offset.
  if (state_->region.page_size() / 8 > 65536)
    fatal("%s: the page size of %zu bytes is larger than the 512 KiB the diff format can address", init,
          state_->region.page_size());
  s = state_->pages.init(state_->region.num_pages());
  if (!s.ok()) fatal("%s: %s", init, s.message().c_str());
  s = state_->cache.init(cfg.cache_pages, state_->region.page_size(),
                         cfg.cache_remote_victim ? CachePolicy::kRemoteVictim : CachePolicy::kFifo);
  if (!s.ok()) fatal("%s: %s", init, s.message().c_str());

  const bool node_shared = share_node_memory();
  const bool one_sided = open_one_sided(node_shared);
  // Barriers meet in the node's memory where it is shared (sync/node_meet.h).
  s = state_->meet.init(own_comm_, state_->node, node_shared, state_->region.num_pages());
  if (!s.ok())
    SCOPEDSM_LOG(LogLevel::kWarn, "the processes on this node cannot meet in shared memory (%s); barriers use messages",
                 s.message().c_str());
  RuntimeState& st = *state_;
  CoherenceParts parts;
  parts.rank = rank;
  parts.size = size;
  parts.config = &st.config;
  {
    // Write vectors: 2 to 64 blocks a page; the default block is 1/32 page.
    const size_t ps = state_->region.page_size();
    const size_t block = cfg.write_vector_block != 0 ? cfg.write_vector_block : ps / 32;
    if (block == 0 || ps % block != 0 || ps / block < 2 || ps / block > WriteVectors::kMaxBlocks)
      fatal("%s: SCOPEDSM_WRITE_VECTOR=%zu: a page of %zu bytes must hold 2 to %u blocks; use a block size from %zu "
            "to %zu",
            init, block, ps, WriteVectors::kMaxBlocks, ps / WriteVectors::kMaxBlocks, ps / 2);
    // Node peers write our memory unobserved (diff merges, atomics), and so
    // do we under cache-only write detection: then the home never tracks,
    // and answers whole pages.
    state_->wvec_tracking_ok = !node_shared && !cfg.write_detect_cache_only;
    state_->wvec.init(ps, block, cfg.write_vector && state_->wvec_tracking_ok);
  }
  parts.write_vector = cfg.write_vector;
  parts.wvec = &state_->wvec;
  parts.test_faults = cfg.test_faults;
  parts.node_shared = node_shared;
  parts.node = &st.node;
  parts.rma = one_sided ? &st.rma : nullptr;
  parts.transport = &st.transport;
  parts.region = &st.region;
  parts.pages = &st.pages;
  parts.cache = &st.cache;
  parts.stack = &st.stack;
  parts.stats = &st.stats.app;
  parts.surface = st.surface;
  // The service first: the engine moves homes under its serve mutex.
  service_ = std::make_unique<Service>(st.sync_parts(), &st.region, &st.pages, &st.stats.service, cfg.spin_us,
                                       &st.wvec);
  parts.serve_mutex = service_->serve_here().mutex;
  coherence_ = std::make_unique<Coherence>(parts);
  sync_ = std::make_unique<SyncClient>(st.sync_parts(), coherence_.get(), &st.stack, &st.stats.app,
                                       service_->serve_here());
  state_->transport.set_wait_context([this] { return state_->stack.describe(); });
  app_tid_ = current_tid();
  shared_access::set_application_thread();
  install_fault_handler(&Runtime::on_region_fault);
  set_shared_extent(state_->region.base(), state_->region.base() + state_->region.bytes(), 0);
  state_->stats.set_segv_cost_ns(calibrate_fault_cost());
  state_->stats.set_origin_ns(start_ns_);
  state_->stats.set_net(&state_->transport.net().counters());
  state_->stats.set_layout(state_->node.node_of(rank), state_->node.nodes(), state_->node.local_size(), node_shared,
                            one_sided);
  g_fault_target.store(this, std::memory_order_release);
  g_init_pid = getpid();
  std::atexit(finalize_at_exit);

  state_->transport.set_idle_work([this] { return service_->serve_pending(); });
  state_->peers.init(state_->transport.comm(), rank, size);
  if ((cfg.test_faults & static_cast<uint64_t>(TestFault::kNoPeerWatch)) == 0) service_->watch_peers(&state_->peers);
  service_->start(cfg.service_slice_us * 1000);
  // With SCOPEDSM_RESTART, our home pages are loaded here, before the
  // program runs on; its allocations then find them (runtime/checkpoint.h).
  ckpt_.open(own_comm_, &state_->config, rank, size, &state_->region, (argv != nullptr && *argv != nullptr) ? (*argv)[0] : nullptr,
             init);
  MPI_Barrier(own_comm_);
  load_ = std::make_unique<LoadBalancer>(size, rank);
  tasks_ = std::make_unique<TaskMigrator>(rank, static_cast<TaskMigrationMode>(cfg.task_migration),
                                          cfg.task_migration_alpha, cfg.task_migration_beta,
                                          (cfg.test_faults & static_cast<uint64_t>(TestFault::kNoTaskMigration)) != 0);
  reports_.set_origin(now_ns());
  SCOPEDSM_LOG(LogLevel::kInfo, "started: %d processes on %s%s, region %p + %" PRIu64 " bytes; %s", size,
               state_->node.describe().c_str(), node_shared ? ", homes shared within each node" : "",
               static_cast<void*>(state_->region.base()), state_->region.bytes(), describe_config(cfg).c_str());
}

bool Runtime::share_node_memory() {
  NodeTopology& node = state_->node;
  if (node.local_size() < 2) return false;
  std::vector<int> fds;
  Status e = node.exchange_fds(state_->region.memfd(), &fds);
  if (e.ok()) e = state_->region.map_peers(fds, node.local_rank());
  int ok = e.ok() ? 1 : 0, all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, node.node_comm());
  if (!all)
    SCOPEDSM_LOG(LogLevel::kWarn, "processes on this node cannot map each other's memory (%s); pages and diffs go "
                 "through messages instead", e.ok() ? "a peer failed" : e.message().c_str());
  return all != 0;
}

bool Runtime::open_one_sided(bool node_shared) {
  RuntimeState& s = *state_;
  const FetchMode mode = s.config.fetch;
  // Does any process have pages homed on another node? (Node sharing may
  // have failed on some nodes only, so every process says.)
  int remote = s.size > 1 && (!node_shared || s.node.nodes() > 1) ? 1 : 0, any = 0;
  MPI_Allreduce(&remote, &any, 1, MPI_INT, MPI_MAX, own_comm_);
  if (!any || mode == FetchMode::kMessage) return false;
  Status st = s.rma.create(s.transport.comm(), s.region.alias_base(), s.region.bytes(), s.region.share_base(),
                           s.region.share_bytes());
  if (!st.ok()) {
    if (mode == FetchMode::kRma)
      fatal("%s: SCOPEDSM_FETCH=rma, but one-sided access cannot be set up: %s; use SCOPEDSM_FETCH=auto or "
            "message",
            s.surface->init, st.message().c_str());
    SCOPEDSM_LOG(LogLevel::kInfo, "one-sided access cannot be set up (%s); pages of other nodes travel by message",
                 st.message().c_str());
    return false;
  }
  if (mode == FetchMode::kAuto &&
      !s.rma.probe(&s.region.share().probe_word(), HomeShare::probe_offset(s.region.num_pages()), 0.05)) {
    SCOPEDSM_LOG(LogLevel::kInfo, "one-sided reads wait for their target's CPU with this MPI library and network; "
                 "pages of other nodes travel by message (SCOPEDSM_FETCH=rma forces one-sided reads)");
    s.rma.free();
    return false;
  }
  return true;
}

bool Runtime::on_region_fault(void* addr, Access access) {
  Runtime* rt = g_fault_target.load(std::memory_order_acquire);
  if (rt == nullptr) {
    auto a = reinterpret_cast<uintptr_t>(addr);
    if (a >= g_retired_base.load() && a < g_retired_end.load())
      fatal("touched shared memory at %p %s; shared memory ends with the runtime", addr,
            g_runtime->state().surface->after_finalize);
    return false;
  }
  RuntimeState& s = *rt->state_;
  if (!s.region.contains(addr)) return false;
  if (current_tid() != rt->app_tid_)
    fatal("shared memory at %p was touched by thread %ld, which is not the thread that called %s (%ld); "
          "ScopeDSM supports one application thread per process",
          addr, current_tid(), s.surface->init, rt->app_tid_);
  const uint64_t page = s.region.page_of(addr);
  TraceSpan span(s.stats.app.trace, &s.stats.app.t_data_ns,
                 access == Access::kWrite ? TraceKind::kWriteFault : TraceKind::kReadFault, static_cast<uint32_t>(page));
  rt->coherence_->handle_fault(page, access);
  return true;
}

void* Runtime::allocate(ApiCall call, const std::string& call_text, uint64_t bytes, const Placement& placement) {
  RuntimeState& s = *state_;
  // Sizes, blocks and start ranks are checked before the rendezvous, so a
  // bad value is reported as the call the program made. Every process
  // passes the same arguments, so every process reports the same thing.
  const AllocSpace space{s.region.page_size(), s.size, next_page_, s.region.num_pages()};
  AllocLayout layout;
  if (Status st = plan_allocation(bytes, placement, space, &layout); !st.ok())
    fatal("%s: %s", call_text.c_str(), st.message().c_str());
  if (s.stack.depth() > 1)
    fatal("%s: collective allocation inside a critical section (%s); allocate outside locks", call_text.c_str(),
          s.stack.describe().c_str());
  place(call, call_text, layout, false);
  return s.region.app(layout.first_page);
}

void Runtime::note_allocated() {
  RuntimeState& s = *state_;
  s.pages.set_allocated(next_page_);
  set_shared_extent(s.region.base(), s.region.base() + s.region.bytes(), next_page_ * s.region.page_size());
}

void Runtime::place(ApiCall call, const std::string& call_text, const AllocLayout& layout, bool pinned) {
  RuntimeState& s = *state_;
  // Phase 1: everyone asks for the same thing.
  sync_->collective(call_text, {});
  const int size = s.size;
  // On a restart, an allocation the checkpoint holds gets the homes it had
  // there, whose memory holds its pages already.
  const bool restored = ckpt_.on_allocation(call_text, layout.first_page, layout.pages, false);
  coherence_->place_pages(layout.first_page, layout.pages, [&](uint64_t p) -> int32_t {
    if (restored) return ckpt_.saved_home(p);
    return layout.first_touch ? kHomeUnknown : cyclic_home(layout, size, p);
  }, call.name, pinned);
  if (restored) coherence_->restored(layout.first_page, layout.pages);
  next_page_ = layout.first_page + layout.pages;
  note_allocated();
  // System calls and MPI calls on the new memory now prepare it
  // (runtime/shared_access.h); not under the negative control.
  if ((s.config.test_faults & static_cast<uint64_t>(TestFault::kInterposeDirect)) == 0) {
    const auto base = reinterpret_cast<uintptr_t>(s.region.base());
    shared_access::publish(base, base + next_page_ * s.region.page_size());
  }
  // Phase 2: nobody touches the new pages before every home has set them up.
  sync_->collective(call_text + " [pages placed]", {});
}

void* Runtime::add_guard_page(const char* what) {
  RuntimeState& s = *state_;
  if (next_page_ >= s.region.num_pages()) fatal("%s: no room for a guard page in the shared region", what);
  const uint64_t page = next_page_++;
  ckpt_.on_allocation(what, page, 1, true);
  // Never placed, so it stays unallocated (no access) on every process.
  coherence_->note_guard(page, what);
  note_allocated();
  return s.region.app(page);
}

void* Runtime::allocate_pinned(ApiCall call, const std::string& call_text, uint64_t bytes, int home) {
  RuntimeState& s = *state_;
  const AllocSpace space{s.region.page_size(), s.size, next_page_, s.region.num_pages()};
  Placement placement;
  placement.start_rank = home;
  placement.block_bytes = bytes;  // one block: every page at `home`
  AllocLayout layout;
  if (Status st = plan_allocation(bytes, placement, space, &layout); !st.ok())
    fatal("%s: %s", call_text.c_str(), st.message().c_str());
  place(call, call_text, layout, true);
  return s.region.app(layout.first_page);
}

void Runtime::prepare(const void* addr, size_t len, bool for_write, ApiCall call) {
  RuntimeState& s = *state_;
  // Only the part inside the region is ours. Computing addr + len - 1 as a
  // pointer would wrap for a huge len, and a range running past the region
  // would index page metadata beyond its end.
  std::optional<PageSpan> span = region_pages_of(reinterpret_cast<uintptr_t>(s.region.base()), s.region.bytes(),
                                                 s.region.page_size(), reinterpret_cast<uintptr_t>(addr), len);
  if (!span) return;
  if (span->count > s.pages.allocated() || span->first > s.pages.allocated() - span->count)
    fatal("%s(%p, %zu): the range reaches shared pages that are not allocated (allocated: %" PRIu64
          " pages from %p); prepare only allocated memory",
          call.name, addr, len, s.pages.allocated(), static_cast<void*>(s.region.base()));
  coherence_->prepare(span->first, span->count, for_write ? Access::kWrite : Access::kRead, call.name);
}

int Runtime::home_of(const void* addr, ApiCall call) {
  RuntimeState& s = *state_;
  if (!s.region.contains(addr) || s.region.page_of(addr) >= s.pages.allocated())
    fatal("%s(%p): the address is not allocated shared memory", call.name, addr);
  return s.pages[s.region.page_of(addr)].home.load(std::memory_order_acquire);
}

void Runtime::next_touch(ApiCall call, const void* addr, size_t len) {
  RuntimeState& s = *state_;
  char text[160];
  std::snprintf(text, sizeof text, "%s(%p, %zu)", call.name, addr, len);
  const uint64_t base = reinterpret_cast<uintptr_t>(s.region.base());
  const uint64_t a = reinterpret_cast<uintptr_t>(addr);
  const uint64_t allocated_end = base + s.pages.allocated() * s.region.page_size();
  if (len == 0)
    fatal("%s: the range is empty; name the allocated shared memory whose pages should move to their next toucher",
          text);
  if (a < base || a >= allocated_end || len > allocated_end - a)
    fatal("%s: the range is not all allocated shared memory (allocated: %" PRIu64
          " pages from %p); name memory that %s returned",
          text, s.pages.allocated(), static_cast<void*>(s.region.base()), call.surface->alloc);
  if (s.stack.depth() > 1) fatal("%s", barrier_in_lock_error(call, s.stack.describe()).c_str());
  if (s.config.write_detect_cache_only)
    fatal("%s: next touch cannot be used with SCOPEDSM_WRITE_DETECT=cache-only: a page moves to its toucher only "
          "if its home did not write it, and cache-only detection does not observe the home's writes",
          text);
  // Everyone names the same range at the same point: checked at rank 0.
  sync_->collective(text, {});
  sync_->barrier(call);
  const uint64_t first = (a - base) / s.region.page_size();
  const uint64_t last = (a + len - 1 - base) / s.region.page_size();
  coherence_->mark_next_touch(first, last - first + 1);
}

void Runtime::checkpoint(ApiCall call) {
  RuntimeState& s = *state_;
  if (s.stack.depth() > 1) fatal("%s", barrier_in_lock_error(call, s.stack.describe()).c_str());
  sync_->barrier(call);
  ckpt_.take(call, *sync_, *coherence_);
}

void Runtime::hold_requests(bool on) { service_->hold(on); }

void Runtime::prefetch(const void* addr, size_t len) {
  RuntimeState& s = *state_;
  if (!on_application_thread()) return;
  std::optional<PageSpan> span = region_pages_of(reinterpret_cast<uintptr_t>(s.region.base()), s.region.bytes(),
                                                 s.region.page_size(), reinterpret_cast<uintptr_t>(addr), len);
  if (!span || span->first >= s.pages.allocated()) return;
  // The hint's fetches are synchronous: the program waits for data here as
  // at a fault, so the wait counts as data time (the fetches themselves are
  // traced as fetches).
  TraceSpan wait(nullptr, &s.stats.app.t_data_ns, TraceKind::kFetch);
  coherence_->prefetch(span->first, std::min(span->count, s.pages.allocated() - span->first));
}

void Runtime::release(const void* addr, size_t len, int priority, uint64_t tag) {
  RuntimeState& s = *state_;
  if (!on_application_thread() || len == 0) return;
  const uintptr_t a = reinterpret_cast<uintptr_t>(addr);
  const uintptr_t base = reinterpret_cast<uintptr_t>(s.region.base());
  const uint64_t ps = s.region.page_size();
  if (a < base || a - base >= s.region.bytes()) return;
  // Whole pages only: from the first page boundary at or after addr to the
  // last one at or before its end.
  const uint64_t off = a - base;
  const uint64_t end = off + std::min<uint64_t>(len, s.region.bytes() - off);
  const uint64_t first = (off + ps - 1) / ps;
  const uint64_t last = std::min<uint64_t>(end / ps, s.pages.allocated());
  if (last <= first) return;
  coherence_->release(first, last - first, static_cast<uint32_t>(std::max(priority, 0)), tag);
}

void Runtime::inject_test_hints() {
  RuntimeState& s = *state_;
  if (s.config.test_hints == 0 || s.pages.allocated() == 0 || !on_application_thread()) return;
  if (hint_rng_ == 0) hint_rng_ = s.config.test_hints * 0x9e3779b97f4a7c15ull + static_cast<uint64_t>(s.rank) + 1;
  auto next = [this](uint64_t bound) {
    hint_rng_ ^= hint_rng_ << 13;
    hint_rng_ ^= hint_rng_ >> 7;
    hint_rng_ ^= hint_rng_ << 17;
    return hint_rng_ % bound;
  };
  const uint64_t pages = s.pages.allocated();
  const uint64_t ps = s.region.page_size();
  for (int i = 0; i < 2; ++i) {
    // Ranges of up to 80 pages, at any byte offset, some past the end.
    const uint64_t first = next(pages + 4);
    const uint64_t len = next(80 * ps) + 1;
    std::byte* at = s.region.app(0) + first * ps + next(ps);
    if (next(2) == 0) prefetch(at, len);
    else release(at, len, static_cast<int>(next(4)), next(3));
  }
}

double Runtime::seconds_since_init() const { return static_cast<double>(now_ns() - start_ns_) / 1e9; }

void Runtime::finalize(ApiCall call, bool at_exit) {
  RuntimeState& s = *state_;
  if (s.stack.depth() > 1) {
    if (at_exit)
      fatal("the process is exiting (returned from main or called exit()) %s while holding locks (%s); release every "
            "lock before the process ends",
            call.surface->exit_without_finalize, s.stack.describe().c_str());
    fatal("%s", finalize_in_lock_error(call, s.stack.describe()).c_str());
  }
  // Leave nothing behind: every write reaches its home.
  coherence_->close_interval();
  coherence_->flush_diffs(-1);

  StatsRecord mine = s.stats.snapshot(s.rank, s.transport.sent(), s.transport.received());
  auto records = sync_->collective(at_exit ? implicit_exit_call(*call.surface) : call.name, mine.serialize());
  if (s.rank == 0) {
    std::vector<StatsRecord> all(records.size());
    for (size_t i = 0; i < records.size(); ++i)
      if (!StatsRecord::deserialize(records[i].data(), records[i].size(), &all[i]))
        fatal("%s: malformed statistics record from rank %zu", call.name, i);
    reports_.write_statistics(all);
  }

  // Every process tells every process it is done; each service thread stops
  // after hearing from all of them.
  Transport& t = s.transport;
  auto bye = std::make_shared<const Bytes>(encode(ShutdownMsg{}, t.next_seq()));
  t.set_idle_work(nullptr);
  for (int p = 0; p < s.size; ++p) t.send_shared(p, kTagRequest, bye);
  service_->join();
  // Before the collective MPI calls below. Not the service thread's job at
  // its end: it may stop (every SHUTDOWN heard, ours to ourselves included)
  // before this thread has even posted its SHUTDOWNs to the others.
  t.release_held_sends();
  s.rma.free();
  t.finalize();
  s.node.finalize();
  reports_.write_trace(s.stats);

  shared_access::publish(0, 0);
  set_shared_extent(nullptr, nullptr, 0);
  g_fault_target.store(nullptr, std::memory_order_release);
  g_retired_base.store(reinterpret_cast<uintptr_t>(s.region.app(keep_pages_)));
  g_retired_end.store(reinterpret_cast<uintptr_t>(s.region.base()) + s.region.bytes());
  s.region.retire(keep_pages_);
  MPI_Comm_free(&user_comm_);
  MPI_Comm_free(&coll_comm_);
  if (!shares_program_comm_) MPI_Comm_free(&own_comm_);
  g_lifecycle.store(Lifecycle::kFinished);
  unwatch_mpi_finalize();
  set_abort_hook(nullptr);
  if (we_initialized_mpi_)
    finalize_mpi(s.config.timeout_s, s.rank, s.rank == 1 && (s.config.test_faults & static_cast<uint64_t>(TestFault::kHangInFinalize)) != 0);
}

}  // namespace scopedsm
