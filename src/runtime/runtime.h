// The runtime of one process: start-up, allocation and shut-down, and the
// single instance every API call goes through.
//
// Lifecycle: not started -> running (init) -> finished (finalize). Calls
// outside "running" are misuse and are reported (require_running).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "common/surface.h"
#include "protocol/coherence.h"
#include "runtime/checkpoint.h"
#include "runtime/alloc_plan.h"
#include "runtime/exit_reports.h"
#include "runtime/load_balance.h"
#include "runtime/loop.h"
#include "runtime/service.h"
#include "runtime/state.h"
#include "runtime/task_migration.h"
#include "sync/sync_client.h"

namespace scopedsm {

class Runtime {
 public:
  // Every method that can report misuse takes the ApiCall the program made
  // (common/surface.h) and phrases its messages in that call's words.

  // Collective. Reports misuse (a second init) naming `call`. The call's
  // surface becomes the process's: messages that concern no call speak it.
  static void init(int* argc, char*** argv, ApiCall call);
  // init for an OpenMP program (omp/): the region starts at `fixed`, over
  // the program's shared globals (memory/region.h).
  static void init_fixed(int* argc, char*** argv, ApiCall call, Region::FixedPlace fixed);
  // init inside a program that runs MPI itself (scopedsm_init_comm): MPI is
  // initialized, and stays so after finalize; the runtime's processes are
  // those of `comm`, and its ranks theirs in it. Misuse (MPI not
  // initialized or finalized, MPI_COMM_NULL, an intercommunicator, a thread
  // level below MPI_THREAD_MULTIPLE) is reported naming `call`.
  static void init_comm(MPI_Comm comm, ApiCall call);
  // The running instance; reports a call before init or after finalize.
  static Runtime& require_running(ApiCall call);
  static bool running();
  // The running instance, or null (before init, after finalize).
  static Runtime* active();
  // The thread that called init: the one application thread.
  bool on_application_thread() const;

  // Collective. `at_exit`: the implicit shutdown of a process that ended
  // (returned from main or called exit()) without calling it; it meets the
  // explicit calls of the others at the same rendezvous.
  void finalize(ApiCall call, bool at_exit = false);

  // Collective: every process passes the same arguments. `call_text` is the
  // call as the user wrote it, for mismatch reports and for the report of a
  // size, block or start rank that plan_allocation refuses.
  void* allocate(ApiCall call, const std::string& call_text, uint64_t bytes, const Placement& placement);
  // allocate, for the OpenMP runtime's own areas (omp/): `pinned` pages
  // keep their home for good and are never write-trapped there; every
  // other process's copy of one is dropped at its next acquire
  // (Coherence::place_pages).
  void* allocate_pinned(ApiCall call, const std::string& call_text, uint64_t bytes, int home);

  // Pages [0, pages) stay mapped read-write after finalize, holding what
  // this process saw (Region::retire): an OpenMP program's globals and
  // master stack, which its exit handlers use after the runtime ends.
  void keep_after_finalize(uint64_t pages) { keep_pages_ = pages; }
  // Collective: leaves the next page of the region to no allocation, a
  // guard page: touching it ends the job saying `what`
  // (Coherence::note_guard). Returns its address.
  void* add_guard_page(const char* what);

  // Makes the shared part of [addr, addr+len) safe for kernel or MPI access
  // (no faults needed); the rest is not ours. Reports a range that reaches
  // unallocated shared pages, naming `call`.
  void prepare(const void* addr, size_t len, bool for_write, ApiCall call);

  int home_of(const void* addr, ApiCall call);

  // Collective: a next-touch point (docs/PROTOCOL.md §6c). Every process
  // passes the same range, which must lie wholly in allocated shared
  // memory; a checked rendezvous, then a barrier, then the pages the range
  // touches become next-touch pending. Misuse is reported naming `call`.
  void next_touch(ApiCall call, const void* addr, size_t len);

  // Hints (scopedsm_prefetch, scopedsm_release): non-binding, so never an
  // error. Only the allocated shared part of the range counts; anything
  // else, and a call from another thread than the application thread, is
  // ignored. prefetch names every page the range touches, release only the
  // pages wholly inside it (a neighbour's data may share a partial page).
  // `tag` names the call site (the lag-by-one filter, protocol/hints.h).
  void prefetch(const void* addr, size_t len);
  void release(const void* addr, size_t len, int priority, uint64_t tag);
  // SCOPEDSM_TEST_HINTS: random hints before a synchronization call.
  void inject_test_hints();

  // Collective: a checkpoint (scopedsm_checkpoint): a barrier, then every
  // process saves its home pages and registered buffers (runtime/checkpoint.h).
  void checkpoint(ApiCall call);
  // scopedsm_checkpoint_register (Checkpoints::register_buffer).
  void checkpoint_register(ApiCall call, void* addr, size_t len) { ckpt_.register_buffer(call, addr, len); }
  // The sequence number of the checkpoint this run restarted from; 0 on a fresh start.
  uint64_t restarted() const { return ckpt_.restarted(); }

  // scopedsm_test_hold_requests: this process serves no request while held.
  void hold_requests(bool on);
  RuntimeState& state() { return *state_; }
  Coherence& coherence() { return *coherence_; }
  SyncClient& sync() { return *sync_; }
  LoadBalancer& load() { return *load_; }
  TaskMigrator& tasks() { return *tasks_; }
  LoopScheduler& loops() { return loops_; }
  MPI_Comm user_comm() const { return user_comm_; }
  MPI_Comm collective_comm() const { return coll_comm_; }
  double seconds_since_init() const;

 private:
  Runtime() = default;
  // Every init: `program_comm` is scopedsm_init_comm's communicator, or
  // null for the whole job (MPI initialized here if the program has not).
  static void launch(int* argc, char*** argv, ApiCall call, Region::FixedPlace fixed, const MPI_Comm* program_comm);
  void start(int* argc, char*** argv, ApiCall call, Region::FixedPlace fixed, const MPI_Comm* program_comm);
  static bool on_region_fault(void* addr, Access access);
  // Records next_page_ as the allocated extent (page table, fault reports).
  void note_allocated();
  // The collective part of an allocation laid out as `layout`.
  void place(ApiCall call, const std::string& call_text, const AllocLayout& layout, bool pinned);
  // Maps the memory of this node's other processes; true if every one could.
  bool share_node_memory();
  // Collective: opens the one-sided path to other nodes' homes if
  // SCOPEDSM_FETCH and the start-up check allow it. Returns whether it did.
  bool open_one_sided(bool node_shared);

  std::unique_ptr<RuntimeState> state_;
  std::unique_ptr<Coherence> coherence_;
  std::unique_ptr<SyncClient> sync_;
  std::unique_ptr<Service> service_;
  std::unique_ptr<LoadBalancer> load_;
  std::unique_ptr<TaskMigrator> tasks_;
  LoopScheduler loops_{this};
  ExitReports reports_;
  Checkpoints ckpt_;
  MPI_Comm user_comm_ = MPI_COMM_NULL;
  MPI_Comm coll_comm_ = MPI_COMM_NULL;
  // The runtime's duplicate of the program's communicator (or of
  // MPI_COMM_WORLD): start-up's and shut-down's collective calls, and the
  // communicator every other one of the runtime's is duplicated or split from.
  MPI_Comm own_comm_ = MPI_COMM_NULL;
  bool shares_program_comm_ = false;  // test fault program-comm: own_comm_ is the program's
  bool we_initialized_mpi_ = false;
  uint64_t start_ns_ = 0;
  uint64_t next_page_ = 0;
  uint64_t keep_pages_ = 0;  // keep_after_finalize
  uint64_t hint_rng_ = 0;  // SCOPEDSM_TEST_HINTS state
  long app_tid_ = 0;
};

}  // namespace scopedsm
