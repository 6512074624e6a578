#include "omp/team.h"

#include <dlfcn.h>
#include <link.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "common/doc_path.h"
#include "common/clock.h"
#include "common/log.h"
#include "runtime/fault_handler.h"
#include "runtime/runtime.h"

namespace scopedsm::omp {

namespace {

// Counter slots for the worksharing constructs in flight: a thread may be
// at most this many constructs ahead of the slowest of its team (nowait).
constexpr uint32_t kSlots = 64;
// A slot word: the construct's tag in the high 24 bits, a count in the low 40.
constexpr int kTagShift = 40;
constexpr uint64_t kCountMask = (uint64_t{1} << kTagShift) - 1;
constexpr uint32_t kTagMask = 0xffffff;

// Lock ids: 0 the unnamed critical section, 1 the atomic fallback, then
// named critical sections as they are first entered (OpenMP's locks are
// words of their own, not ids).
constexpr int kCriticalLock = 0;
constexpr int kAtomicLock = 1;
constexpr uint64_t kFirstNamedLock = 2;

enum RegionKind : uint32_t { kNone = 0, kParallel = 1, kEnd = 2 };
enum Combined : uint32_t { kPlain = 0, kLoop = 1, kSections = 2 };

}  // namespace

// What the master publishes for each region. It travels with the barrier
// that starts the region (rank 0's broadcast, Barrier::run), so a team
// thread learns its region at no message and no fault more than the
// barrier's. It is also kept in one pinned page of the master's
// (Coherence::place_pages), which the master writes without faults, for the
// processes outside a smaller team, which read it afresh after each of the
// region's barriers to learn when it ends.
struct RegionRecord {
  uint64_t seq;
  uint32_t kind;
  int32_t status;
  uint64_t fn;
  uint64_t data;
  uint32_t nthreads;
  // For processes outside a smaller team: how many barriers the region
  // made after its start, its last included; 0 until the master knows.
  uint32_t barriers;
  uint64_t construct_base;
  Icvs icvs;
  uint32_t combined;
  uint32_t sections;
  LoopSpec loop;
};

// Words only ever changed by atomics at their home (the master).
struct Counters {
  uint64_t next_lock;
  uint64_t pad[7];
  struct alignas(64) Slot {
    uint64_t next;  // tag | the next iteration (or section) not yet handed out
    uint64_t turn;  // tag | the first iteration whose ordered turn it is
  } slot[kSlots];
};

struct Control {
  RegionRecord* region;
  Counters* counters;
};

namespace {

Team* g_team = nullptr;

std::vector<std::byte> bytes_of(const void* p, size_t n) {
  const auto* b = static_cast<const std::byte*>(p);
  return std::vector<std::byte>(b, b + n);
}

// The master's broadcast of `n` bytes into `p`, or a protocol error naming `what`.
void take_broadcast(const std::vector<std::byte>& b, void* p, size_t n, const char* what) {
  if (b.size() != n)
    fatal("protocol error: %s came with %zu bytes of the master's where %zu were due", what, b.size(), n);
  std::memcpy(p, b.data(), n);
}

// The program's code and libstdc++'s (allocates_for_program).
const void* g_text_start = nullptr;
const void* g_text_end = nullptr;
uintptr_t g_cxx_start = 0;
uintptr_t g_cxx_end = 0;
// How deep this thread is in the runtime's own work (RuntimeCall).
thread_local int t_runtime_depth = 0;

// Marks the runtime's own work on this thread: the allocations libstdc++
// makes meanwhile are the runtime's, not the program's.
struct RuntimeCall {
  RuntimeCall() { ++t_runtime_depth; }
  ~RuntimeCall() { --t_runtime_depth; }
  RuntimeCall(const RuntimeCall&) = delete;
  RuntimeCall& operator=(const RuntimeCall&) = delete;
};

int find_cxx_library(struct dl_phdr_info* info, size_t, void*) {
  if (info->dlpi_name == nullptr || std::strstr(info->dlpi_name, "libstdc++") == nullptr) return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || (ph.p_flags & PF_X) == 0) continue;
    g_cxx_start = info->dlpi_addr + ph.p_vaddr;
    g_cxx_end = g_cxx_start + ph.p_memsz;
    return 1;
  }
  return 0;
}

// run_main's context switch to the shared stack.
struct MainCall {
  int argc;
  char** argv;
  char** envp;
  int (*main)(int, char**, char**);
  int status;
  ucontext_t caller;
  ucontext_t program;
};
MainCall g_main;

void call_main() { g_main.status = g_main.main(g_main.argc, g_main.argv, g_main.envp); }

ApiCall call(const char* name) { return omp_call(name); }

// The environment's integer, or `fallback`.
int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  char* end = nullptr;
  const long x = std::strtol(v, &end, 10);  // the first of a list ("4,2")
  if (end == v || x < 1 || x > 1000000) return fallback;
  return static_cast<int>(x);
}

bool env_bool(const char* name, bool fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr) return fallback;
  std::string s(v);
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (s == "true" || s == "1" || s == "yes") return true;
  if (s == "false" || s == "0" || s == "no") return false;
  return fallback;
}

}  // namespace

void set_program_text(const void* start, const void* end) {
  g_text_start = start;
  g_text_end = end;
  dl_iterate_phdr(find_cxx_library, nullptr);
}

bool allocates_for_program(const void* caller) {
  if (t_runtime_depth > 0 || in_region_fault()) return false;
  if (caller >= g_text_start && caller < g_text_end) return true;
  const auto c = reinterpret_cast<uintptr_t>(caller);
  return c >= g_cxx_start && c < g_cxx_end;
}

Team& Team::get() { return *g_team; }
bool Team::booted() { return g_team != nullptr; }

void Team::unsupported(const char* construct, const char* why) {
  fatal("%s: %s (%s lists what ScopeDSM's OpenMP runs)", construct, why, doc_path("OPENMP.md").c_str());
}

void Team::boot(int argc, char** argv, std::byte* start, std::byte* data_end, std::byte* end) {
  // OpenMP programs name their locks by address, not by JIAJIA's ids.
  setenv("SCOPEDSM_LOCKS", "1073741824", 0);
  // An OpenMP program's output is the program's: the statistics table only on request.
  setenv("SCOPEDSM_SUMMARY", "off", 0);
  // The usual OpenMP program initializes its data serially and then writes
  // it in parallel: a page's single writer becomes its home at a barrier
  // (docs/OPENMP.md, "Placement"). Pages first written in a parallel region
  // are homed at their writer by first touch (the heap).
  setenv("SCOPEDSM_HOME_MIGRATION", "on", 0);
  // AddressSanitizer keeps its shadow memory from 2 GiB up: the region, which
  // starts right after the program's globals (near 4 MiB), must end below it.
  if (dlsym(RTLD_DEFAULT, "__asan_init") != nullptr) setenv("SCOPEDSM_REGION_SIZE", "1G", 0);
  const size_t image_bytes = static_cast<size_t>(end - start);
  // The initialized globals as the program image has them (the region
  // replaces them; the zeros after them need no copy, however large).
  const size_t data_bytes = static_cast<size_t>(data_end - start);
  std::byte* saved = static_cast<std::byte*>(std::malloc(data_bytes == 0 ? 1 : data_bytes));
  if (saved == nullptr) fatal("the OpenMP runtime's start: no memory to save %zu bytes of globals", data_bytes);
  copy_image(saved, start, data_bytes);

  Runtime::init_fixed(&argc, &argv, call(kOmpSurface.init),
                      Region::FixedPlace{reinterpret_cast<uintptr_t>(start), image_bytes});
  Runtime& rt = Runtime::require_running(call(kOmpSurface.init));
  auto* team = new Team();
  team->rt_ = &rt;
  team->rank_ = rt.state().rank;
  team->size_ = rt.state().size;
  Region& region = rt.state().region;
  const size_t page = region.page_size();

  // 1. The globals: pages [0, g), homed at the master, with the image's values.
  uint64_t global_pages = 0;
  if (image_bytes > 0) {
    Placement at_master;
    at_master.block_bytes = image_bytes;
    void* g = rt.allocate(call(kOmpSurface.init), "the program's globals", image_bytes, at_master);
    if (g != start) fatal("the OpenMP runtime's start: the globals landed at %p, not at %p", g, static_cast<void*>(start));
    global_pages = (image_bytes + page - 1) / page;
    if (team->rank_ == 0) {
      copy_image(start, saved, data_bytes);
    } else {
      // Until main, the program's constructors here see a private copy.
      if (Status st = region.shadow(0, global_pages, saved, data_bytes); !st.ok())
        fatal("the OpenMP runtime's start: %s", st.message().c_str());
    }
  }
  std::free(saved);

  // 2. The master's stack: as large as the stack limit says (256 MiB if
  // unlimited; its pages take memory only when used), with a guard page
  // below it that ends the job when the stack overflows.
  struct rlimit lim {};
  uint64_t stack = 8ull << 20;
  if (getrlimit(RLIMIT_STACK, &lim) == 0) {
    if (lim.rlim_cur == RLIM_INFINITY) stack = 256ull << 20;
    else if (lim.rlim_cur >= (1u << 20)) stack = lim.rlim_cur;
  }
  if (rt.state().config.omp_stack != 0) stack = rt.state().config.omp_stack;
  stack = (stack + page - 1) / page * page;
  rt.add_guard_page("the master's stack overflowed (it is SCOPEDSM_OMP_STACK bytes, or as large as ulimit -s "
                    "says); raise either");
  team->stack_ = static_cast<std::byte*>(rt.allocate_pinned(call(kOmpSurface.init), "the master's stack", stack, 0));
  team->stack_bytes_ = stack;
  const uint64_t stack_pages = stack / page + 1;
  rt.keep_after_finalize(global_pages + stack_pages);

  // 3. The control block: the region record (pinned at the master) and the counters.
  auto* rec = static_cast<RegionRecord*>(
      rt.allocate_pinned(call(kOmpSurface.init), "the OpenMP region record", sizeof(RegionRecord), 0));
  Placement at_master;
  at_master.block_bytes = sizeof(Counters);
  auto* counters = static_cast<Counters*>(
      rt.allocate(call(kOmpSurface.init), "the OpenMP counters", sizeof(Counters), at_master));
  team->ctl_ = new Control{rec, counters};
  if (team->rank_ == 0) counters->next_lock = kFirstNamedLock;

  // 4. The heap: the rest of the region, one arena per process, homes by first touch.
  {
    const uint64_t used = rt.state().pages.allocated() * page;
    const uint64_t total = region.bytes() - used;
    const uint64_t arena = total / static_cast<uint64_t>(team->size_) / page * page;
    if (arena < 16 * page) fatal("the OpenMP runtime's start: SCOPEDSM_REGION_SIZE leaves no room for the heap");
    Placement first_touch;
    first_touch.kind = Placement::kFirstTouch;
    auto* heap = static_cast<std::byte*>(
        rt.allocate(call(kOmpSurface.init), "the shared heap", arena * static_cast<uint64_t>(team->size_), first_touch));
    team->heap_.init(heap + arena * static_cast<uint64_t>(team->rank_), arena, static_cast<uint32_t>(team->rank_), page);
  }
  team->region_begin_ = region.base();
  team->region_end_ = region.base() + region.bytes();

  // The ICVs (OpenMP 5.1 §2.4, the environment variables of §6).
  Icvs& icv = team->icvs_;
  icv.thread_limit = team->size_;
  icv.nthreads = std::min(env_int("OMP_NUM_THREADS", team->size_), team->size_);
  icv.dynamic = env_bool("OMP_DYNAMIC", false);
  icv.max_active_levels = env_int("OMP_MAX_ACTIVE_LEVELS", 1);
  if (const char* s = std::getenv("OMP_SCHEDULE"); s != nullptr && *s != '\0') {
    std::string why;
    int kind = 0, chunk = 0;
    bool mono = false;
    if (!parse_schedule(s, &kind, &chunk, &mono, &why)) fatal("OMP_SCHEDULE=%s: %s", s, why.c_str());
    icv.run_sched = kind;
    icv.run_chunk = chunk;
    icv.run_monotonic = mono;
  }
  if (env_bool("OMP_CANCELLATION", false))
    unsupported("OMP_CANCELLATION=true", "cancellation is not supported; leave OMP_CANCELLATION unset");
  // The master's SIGSEGV handler runs on a stack of its own, so that an
  // overflow of the shared stack into its guard page is still reported.
  {
    constexpr size_t kAltStack = 4u << 20;
    void* alt = mmap(nullptr, kAltStack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    stack_t ss{};
    ss.ss_sp = alt;
    ss.ss_size = kAltStack;
    if (alt == MAP_FAILED || sigaltstack(&ss, nullptr) != 0)
      SCOPEDSM_LOG(LogLevel::kWarn, "no alternate signal stack: a stack overflow ends the job without a report");
  }
  g_team = team;
  // The master's program may end while others wait for regions: at its
  // exit (after its own exit handlers, which were registered later).
  if (team->rank_ == 0) on_exit(&Team::at_exit, nullptr);
  team->heap_ready_ = team->rank_ == 0;  // the others' constructors allocate privately until main
}

bool Team::contains(const void* p) const {
  auto* b = static_cast<const std::byte*>(p);
  return b >= region_begin_ && b < region_end_;
}

int Team::run_main(int argc, char** argv, char** envp, int (*main)(int, char**, char**)) {
  if (rank_ != 0) {
    Region& region = rt_->state().region;
    const uint64_t global_pages = static_cast<uint64_t>(stack_ - region.base()) / region.page_size() - 1;
    if (global_pages > 0)
      if (Status st = region.unshadow(0, global_pages); !st.ok()) fatal("the OpenMP runtime's start: %s", st.message().c_str());
    heap_ready_ = true;
    work_loop();
  }
  // The master runs main on the shared stack, where the regions' data live.
  g_main.argc = argc;
  g_main.argv = argv;
  g_main.envp = envp;
  g_main.main = main;
  getcontext(&g_main.program);
  g_main.program.uc_stack.ss_sp = stack_;
  g_main.program.uc_stack.ss_size = stack_bytes_;
  g_main.program.uc_link = &g_main.caller;
  makecontext(&g_main.program, call_main, 0);
  swapcontext(&g_main.caller, &g_main.program);
  return g_main.status;
}

void Team::at_exit(int status, void*) {
  if (g_team == nullptr || !Runtime::running()) return;
  g_team->end_program(status);
}

void Team::end_program(int status) {
  RuntimeCall in_runtime;
  if (in_region_ || level_ > 0)
    fatal("exit() was called inside a parallel region (thread %d of %d); the program can end only on the master "
          "thread, outside parallel regions",
          thread_num_, team_size_);
  Runtime& rt = *rt_;
  if (rt.state().stack.depth() > 1)
    fatal("the program ended inside a critical section or while holding an OpenMP lock (%s)",
          rt.state().stack.describe().c_str());
  RegionRecord& r = *ctl_->region;
  r.kind = kEnd;
  r.status = status;
  r.seq += 1;
  std::vector<std::byte> end = bytes_of(&r, sizeof r);
  rt.sync().barrier(call("omp parallel"), &end);
  rt.finalize(call(kOmpSurface.finalize));
}

void Team::work_loop() {
  Runtime& rt = *rt_;
  for (;;) {
    RegionRecord r;
    {
      RuntimeCall in_runtime;
      std::vector<std::byte> start;
      rt.sync().barrier(call("omp parallel"), &start);
      take_broadcast(start, &r, sizeof r, "the barrier that starts a parallel region");
    }
    if (r.kind == kEnd) {
      RuntimeCall in_runtime;
      rt.finalize(call(kOmpSurface.finalize));
      std::fflush(nullptr);
      _exit(r.status);
    }
    if (rank_ < static_cast<int>(r.nthreads)) {
      icvs_ = r.icvs;
      construct_base_ = r.construct_base;
      const LoopSpec* combined = r.combined == kLoop ? &r.loop : nullptr;
      if (r.combined == kSections) sections_count_ = r.sections;
      run_region(reinterpret_cast<void (*)(void*)>(r.fn), reinterpret_cast<void*>(r.data), rank_,
                 static_cast<int>(r.nthreads), combined, r.combined == kSections);
      RuntimeCall in_runtime;
      rt.sync().barrier(call("omp parallel"));
    } else {
      // Outside this smaller team: in every barrier of the region, until it
      // ends. The master publishes the region's count of barriers before
      // its last one (a count, not a flag: read after an earlier barrier,
      // a flag set since would end the wait too soon), and may publish the
      // next region right after the last: either way we know.
      RuntimeCall in_runtime;
      for (uint32_t made = 1;; ++made) {
        rt.sync().barrier(call("omp parallel"));
        const RegionRecord& now = *ctl_->region;
        if (now.seq != r.seq || (now.barriers != 0 && made >= now.barriers)) break;
      }
    }
  }
}

void Team::run_region(void (*fn)(void*), void* data, int t, int n, const LoopSpec* combined, bool sections) {
  level_ = 1;
  active_level_ = 1;
  thread_num_ = t;
  team_size_ = n;
  level1_thread_ = t;
  level1_size_ = n;
  constructs_ = 0;
  in_region_ = true;
  loop_ = LoopState{};
  if (combined != nullptr) {
    int64_t ignored_first = 0, ignored_last = 0;
    begin_loop(*combined);
    (void)ignored_first;
    (void)ignored_last;
  }
  if (sections) begin_sections(sections_count_);
  fn(data);
  in_region_ = false;
  level_ = 0;
  active_level_ = 0;
  thread_num_ = 0;
  team_size_ = 1;
  loop_ = LoopState{};
}

int Team::choose_threads(unsigned requested) const {
  int n = requested != 0 ? static_cast<int>(std::min<unsigned>(requested, 1u << 30)) : icvs_.nthreads;
  if (n > size_) n = size_;
  if (n < 1) n = 1;
  return n;
}

void Team::parallel(void (*fn)(void*), void* data, unsigned num_threads, unsigned flags) {
  begin_parallel(fn, data, num_threads, flags, nullptr, 0);
}

void Team::parallel_loop(void (*fn)(void*), void* data, unsigned num_threads, const LoopSpec& loop, unsigned flags) {
  begin_parallel(fn, data, num_threads, flags, &loop, 0);
}

void Team::parallel_sections(void (*fn)(void*), void* data, unsigned num_threads, unsigned count, unsigned flags) {
  begin_parallel(fn, data, num_threads, flags, nullptr, count == 0 ? ~0u : count);
}

void Team::begin_parallel(void (*fn)(void*), void* data, unsigned num_threads, unsigned flags, const LoopSpec* loop,
                          unsigned sections) {
  (void)flags;  // proc_bind: processes stay where the launcher put them
  const int n = level_ > 0 ? 1 : choose_threads(num_threads);
  if (n <= 1) {
    // Inactive (a team of one): run here, as a region of its own.
    const uint32_t constructs = constructs_;
    const int level = level_, thread = thread_num_, team = team_size_;
    const LoopState saved = loop_;
    const unsigned saved_sections = sections_count_;
    ++level_;
    thread_num_ = 0;
    team_size_ = 1;
    loop_ = LoopState{};
    if (level == 0) {
      level1_thread_ = 0;
      level1_size_ = 1;
    }
    if (loop != nullptr) begin_loop(*loop);
    if (sections != 0) begin_sections(sections == ~0u ? 0 : sections);
    fn(data);
    level_ = level;
    thread_num_ = thread;
    team_size_ = team;
    loop_ = saved;
    constructs_ = constructs;
    sections_count_ = saved_sections;
    return;
  }
  Runtime& rt = *rt_;
  RegionRecord& r = *ctl_->region;
  r.seq += 1;
  r.kind = kParallel;
  r.fn = reinterpret_cast<uint64_t>(fn);
  r.data = reinterpret_cast<uint64_t>(data);
  r.nthreads = static_cast<uint32_t>(n);
  r.barriers = 0;
  r.construct_base = construct_base_;
  r.icvs = icvs_;
  r.combined = loop != nullptr ? kLoop : sections != 0 ? kSections : kPlain;
  if (loop != nullptr) r.loop = *loop;
  r.sections = sections == ~0u ? 0 : sections;
  {
    RuntimeCall in_runtime;
    std::vector<std::byte> start = bytes_of(&r, sizeof r);
    rt.sync().barrier(call("omp parallel"), &start);
  }
  sections_count_ = r.sections;
  region_barriers_ = 0;
  run_region(fn, data, 0, n, loop, sections != 0);
  // Every team thread meets the same constructs: the next region's tags follow.
  construct_base_ += constructs_ + 1;
  r.barriers = region_barriers_ + 1;
  RuntimeCall in_runtime;
  rt.sync().barrier(call("omp parallel"));
}

void Team::parallel_start(void (*fn)(void*), void* data, unsigned num_threads, unsigned flags) {
  (void)fn;
  (void)data;
  (void)num_threads;
  (void)flags;
  unsupported("GOMP_parallel_start", "the OpenMP ABI of GCC before 4.9 is not supported; rebuild the program");
}

void Team::parallel_end() { unsupported("GOMP_parallel_end", "the OpenMP ABI of GCC before 4.9 is not supported"); }

void Team::barrier(const char* construct, std::vector<std::byte>* broadcast) {
  if (team_size_ <= 1) return;
  ++region_barriers_;
  RuntimeCall in_runtime;
  rt_->sync().barrier(call(construct), broadcast);
}

// ---------------------------------------------------------------------------
// Worksharing

void Team::next_construct(uint32_t* slot, uint32_t* tag) {
  const uint64_t number = construct_base_ + constructs_;
  ++constructs_;
  *slot = static_cast<uint32_t>(number % kSlots);
  *tag = static_cast<uint32_t>(number & kTagMask);
  if (*tag == 0) *tag = kTagMask;  // 0 is a slot never used
}

uint64_t Team::load(uint64_t* word, int memorder) {
  return atomic_word(word, AtomicOp::kLoad, AtomicType::kUint64, 0, 0, memorder);
}

uint64_t Team::cas(uint64_t* word, uint64_t expected, uint64_t desired, int memorder) {
  return atomic_word(word, AtomicOp::kCompareExchange, AtomicType::kUint64, desired, expected, memorder);
}

void Team::begin_loop(const LoopSpec& spec) {
  loop_ = LoopState{};
  loop_.active = true;
  loop_.ull = spec.ull;
  loop_.ordered = spec.ordered;
  loop_.kind = spec.kind == kSchedAuto ? kSchedStatic : spec.kind;
  loop_.spec = spec;
  loop_.n = iteration_count(spec);
  loop_.chunk = spec.chunk;
  if (team_size_ > 1) next_construct(&loop_.slot, &loop_.gen);
  if (loop_.kind == kSchedDynamic && loop_.chunk == 0) loop_.chunk = 1;
}

bool Team::grab(uint64_t* lo, uint64_t* hi) {
  LoopState& l = loop_;
  if (!l.active) return false;
  if (l.kind == kSchedStatic || team_size_ <= 1) {
    if (team_size_ <= 1) {
      // A team of one runs everything: in one chunk, or chunk by chunk
      // where the construct hands out one at a time (sections).
      const uint64_t step = l.kind == kSchedStatic || l.chunk == 0 ? l.n : l.chunk;
      const uint64_t at = l.static_next;
      if (at >= l.n) return false;
      l.static_next = at + std::min(step, l.n - at);
      *lo = at;
      *hi = l.static_next;
      return true;
    }
    return static_chunk(l.n, l.chunk, thread_num_, team_size_, l.static_next++, lo, hi);
  }
  uint64_t* word = &ctl_->counters->slot[l.slot].next;
  const uint64_t tag = static_cast<uint64_t>(l.gen) << kTagShift;
  uint64_t v = tag | l.seen;
  for (;;) {
    const uint32_t have = static_cast<uint32_t>(v >> kTagShift);
    if (have == l.gen) {
      const uint64_t at = v & kCountMask;
      if (at >= l.n) return false;
      const uint64_t take = l.kind == kSchedGuided ? guided_chunk(l.n - at, team_size_, l.chunk)
                                                    : std::min(l.chunk, l.n - at);
      const uint64_t old = cas(word, v, v + take, 0);
      if (old == v) {
        l.seen = at + take;
        *lo = at;
        *hi = at + take;
        return true;
      }
      v = old;
      continue;
    }
    // The slot still holds an older construct's count: start ours, unless a
    // thread of the team is further ahead than the slots go.
    const uint32_t behind = (l.gen - have) & kTagMask;
    if (have != 0 && behind > kTagMask / 2)
      unsupported("omp for", "a thread fell more than 64 worksharing constructs (nowait) behind the rest of its team");
    const uint64_t old = cas(word, v, tag, 0);
    v = old == v ? tag : old;
  }
}

bool Team::loop_start(const LoopSpec& spec, int64_t* istart, int64_t* iend) {
  begin_loop(spec);
  return loop_next(istart, iend);
}

bool Team::loop_next(int64_t* istart, int64_t* iend) {
  LoopState& l = loop_;
  if (l.ordered && l.has_chunk) finish_ordered_chunk();
  uint64_t lo = 0, hi = 0;
  if (!grab(&lo, &hi)) {
    l.has_chunk = false;
    return false;
  }
  l.lo = lo;
  l.hi = hi;
  l.has_chunk = true;
  l.owns_turn = false;
  program_bounds(l.spec, l.n, lo, hi, istart, iend);
  return true;
}

void Team::loop_end(bool nowait) {
  if (loop_.ordered && loop_.has_chunk) finish_ordered_chunk();
  loop_ = LoopState{};
  if (!nowait) barrier("omp for");
}

// ordered: the chunks take their turn in iteration order. A chunk's first
// ordered region waits for the turn; finishing the chunk passes it on.
void Team::ordered_start() {
  LoopState& l = loop_;
  if (!l.active || !l.ordered || team_size_ <= 1 || !l.has_chunk || l.owns_turn) return;
  wait_turn(l.lo);
  l.owns_turn = true;
}

void Team::ordered_end() {}

void Team::finish_ordered_chunk() {
  LoopState& l = loop_;
  if (team_size_ <= 1) return;
  if (!l.owns_turn) wait_turn(l.lo);
  pass_turn(l.hi);
  l.owns_turn = false;
  l.has_chunk = false;
}

void Team::wait_turn(uint64_t index) {
  if (index == 0) return;  // the first chunk always has the turn
  uint64_t* word = &ctl_->counters->slot[loop_.slot].turn;
  const uint64_t want = (static_cast<uint64_t>(loop_.gen) << kTagShift) | index;
  uint64_t pause_ns = 1000;
  while (load(word, 0) != want) {
    sleep_ns(pause_ns);
    pause_ns = std::min<uint64_t>(pause_ns * 2, 100000);
  }
  flush(false, true);  // an acquire of what the chunks before wrote
}

void Team::pass_turn(uint64_t next_index) {
  uint64_t* word = &ctl_->counters->slot[loop_.slot].turn;
  const uint64_t now = (static_cast<uint64_t>(loop_.gen) << kTagShift) | next_index;
  atomic_word(word, AtomicOp::kExchange, AtomicType::kUint64, now, 0, 3 /* release */);
}

void Team::begin_sections(unsigned count) {
  loop_ = LoopState{};
  LoopSpec spec;
  spec.start = 1;
  spec.end = static_cast<int64_t>(count) + 1;
  spec.incr = 1;
  spec.kind = kSchedDynamic;
  spec.chunk = 1;
  begin_loop(spec);
}

unsigned Team::sections_start(unsigned count) {
  begin_sections(count);
  return sections_next();
}

unsigned Team::sections_next() {
  int64_t first = 0, last = 0;
  if (!loop_next(&first, &last)) return 0;
  return static_cast<unsigned>(first);
}

bool Team::single_start() {
  // The master runs every single region: no one needs to be asked.
  if (team_size_ > 1) ++constructs_;
  return thread_num_ == 0;
}

void* Team::single_copy_start() {
  if (team_size_ <= 1) return nullptr;
  ++constructs_;
  if (thread_num_ == 0) return nullptr;
  std::vector<std::byte> master;
  barrier("omp single copyprivate", &master);
  void* data = nullptr;
  take_broadcast(master, &data, sizeof data, "omp single copyprivate's barrier");
  return data;
}

void Team::single_copy_end(void* data) {
  if (team_size_ <= 1) return;
  std::vector<std::byte> mine = bytes_of(&data, sizeof data);
  barrier("omp single copyprivate", &mine);
}

// ---------------------------------------------------------------------------
// Mutual exclusion

void Team::lock_all(int id, ApiCall c) {
  RuntimeCall in_runtime;
  rt_->sync().lock(c, id);
  // OpenMP's lock flushes order every variable: an acquire of everything.
  if ((rt_->state().config.test_faults & static_cast<uint64_t>(TestFault::kOmpLockScope)) == 0)
    rt_->sync().acquire_after(AtomicOrder::kAcquire);
}

void Team::critical_start(void** name) {
  if (size_ == 1) return;
  if (name == nullptr) {
    lock_all(kCriticalLock, call("omp critical"));
    return;
  }
  // A named critical section's lock id lives in the program's own word for
  // it (a common symbol, shared): the first to enter gives it one.
  auto* word = reinterpret_cast<uint64_t*>(name);
  uint64_t id = load(word, 0);
  if (id == 0) {
    const uint64_t mine = static_cast<uint64_t>(new_lock_id());
    const uint64_t old = cas(word, 0, mine, 0);
    id = old == 0 ? mine : old;
  }
  lock_all(static_cast<int>(id), call("omp critical"));
}

void Team::critical_end(void** name) {
  if (size_ == 1) return;
  int id = kCriticalLock;
  if (name != nullptr) id = static_cast<int>(*reinterpret_cast<uint64_t*>(name));
  RuntimeCall in_runtime;
  rt_->sync().unlock(call("omp critical"), id);
}

void Team::atomic_start() {
  if (size_ > 1) lock_all(kAtomicLock, call("omp atomic"));
}

void Team::atomic_end() {
  RuntimeCall in_runtime;
  if (size_ > 1) rt_->sync().unlock(call("omp atomic"), kAtomicLock);
}

int Team::new_lock_id() {
  const uint64_t id = atomic_word(&ctl_->counters->next_lock, AtomicOp::kFetchAdd, AtomicType::kUint64, 1, 0, 0);
  if (id >= static_cast<uint64_t>(rt_->state().config.locks))
    unsupported("omp critical", "more named critical sections and OpenMP locks than SCOPEDSM_LOCKS allows");
  return static_cast<int>(id);
}

// OpenMP locks: the word holds (id << 1) | held. Taking one is a
// compare-and-swap of the held bit at the word's home, then an acquire of
// everything; releasing is a release of everything, then clearing the bit.
namespace {
constexpr uint32_t kHeld = 1;
}

int Team::lock_id(uint32_t* word, const char* routine) {
  const uint32_t v = static_cast<uint32_t>(atomic_word(word, AtomicOp::kLoad, AtomicType::kUint32, 0, 0, 0));
  if (v == 0) fatal("%s(%p): the lock was not initialized (omp_init_lock) or was destroyed", routine, static_cast<void*>(word));
  return static_cast<int>(v >> 1);
}

void Team::lock_init(uint32_t* word, const char*) {
  const int id = new_lock_id();
  atomic_word(word, AtomicOp::kExchange, AtomicType::kUint32, static_cast<uint64_t>(id) << 1, 0, 0);
}

void Team::lock_destroy(uint32_t* word, const char* routine) {
  const uint32_t v = static_cast<uint32_t>(atomic_word(word, AtomicOp::kLoad, AtomicType::kUint32, 0, 0, 0));
  if (v & kHeld) fatal("%s(%p): the lock is still set", routine, static_cast<void*>(word));
  atomic_word(word, AtomicOp::kExchange, AtomicType::kUint32, 0, 0, 0);
}

bool Team::try_take(uint32_t* word, const char* routine) {
  const uint32_t id = static_cast<uint32_t>(lock_id(word, routine));
  const uint32_t free_word = id << 1;
  const uint64_t old = atomic_word(word, AtomicOp::kCompareExchange, AtomicType::kUint32, free_word | kHeld, free_word, 0);
  if (old != free_word) return false;
  if ((rt_->state().config.test_faults & static_cast<uint64_t>(TestFault::kOmpLockScope)) == 0) flush(false, true);
  return true;
}

void Team::lock_set(uint32_t* word, const char* routine) {
  if (nest_holds_.count(lock_id(word, routine)) != 0 && nest_holds_[lock_id(word, routine)] > 0)
    fatal("%s(%p): this thread already holds the lock (a simple lock cannot be set twice)", routine,
          static_cast<void*>(word));
  uint64_t pause_ns = 500;
  while (!try_take(word, routine)) {
    sleep_ns(pause_ns);
    pause_ns = std::min<uint64_t>(pause_ns * 2, 50000);
  }
  nest_holds_[lock_id(word, routine)] = 1;
}

void Team::lock_unset(uint32_t* word, const char* routine) {
  const int id = lock_id(word, routine);
  auto it = nest_holds_.find(id);
  if (it == nest_holds_.end() || it->second == 0)
    fatal("%s(%p): this thread does not hold the lock", routine, static_cast<void*>(word));
  nest_holds_.erase(it);
  flush(true, false);
  atomic_word(word, AtomicOp::kExchange, AtomicType::kUint32, static_cast<uint64_t>(id) << 1, 0, 0);
}

bool Team::lock_test(uint32_t* word, const char* routine) {
  if (!try_take(word, routine)) return false;
  nest_holds_[lock_id(word, routine)] = 1;
  return true;
}

void Team::nest_lock_set(uint32_t* word, const char* routine) {
  const int id = lock_id(word, routine);
  if (auto it = nest_holds_.find(id); it != nest_holds_.end() && it->second > 0) {
    ++it->second;
    return;
  }
  uint64_t pause_ns = 500;
  while (!try_take(word, routine)) {
    sleep_ns(pause_ns);
    pause_ns = std::min<uint64_t>(pause_ns * 2, 50000);
  }
  nest_holds_[id] = 1;
}

void Team::nest_lock_unset(uint32_t* word, const char* routine) {
  const int id = lock_id(word, routine);
  auto it = nest_holds_.find(id);
  if (it == nest_holds_.end() || it->second == 0)
    fatal("%s(%p): this thread does not hold the lock", routine, static_cast<void*>(word));
  if (--it->second > 0) return;
  nest_holds_.erase(it);
  flush(true, false);
  atomic_word(word, AtomicOp::kExchange, AtomicType::kUint32, static_cast<uint64_t>(id) << 1, 0, 0);
}

int Team::nest_lock_test(uint32_t* word, const char* routine) {
  const int id = lock_id(word, routine);
  if (auto it = nest_holds_.find(id); it != nest_holds_.end() && it->second > 0) return ++it->second;
  if (!try_take(word, routine)) return 0;
  nest_holds_[id] = 1;
  return 1;
}

void Team::flush(bool release, bool acquire) {
  if (size_ == 1) return;
  RuntimeCall in_runtime;
  if (release && acquire) {
    rt_->sync().release_before(AtomicOrder::kAcqRel);
    rt_->sync().acquire_after(AtomicOrder::kAcqRel);
  } else if (release) {
    rt_->sync().release_before(AtomicOrder::kRelease);
  } else if (acquire) {
    rt_->sync().acquire_after(AtomicOrder::kAcquire);
  }
}

uint64_t Team::atomic_word(void* addr, AtomicOp op, AtomicType type, uint64_t operand, uint64_t expected, int memorder) {
  RuntimeCall in_runtime;
  Runtime& rt = *rt_;
  Region& region = rt.state().region;
  const uint64_t page = region.page_of(addr);
  const auto offset = static_cast<uint32_t>(static_cast<std::byte*>(addr) - region.app(page));
  // __ATOMIC_*: 0 relaxed, 1 consume, 2 acquire, 3 release, 4 acq_rel, 5 seq_cst.
  AtomicOrder order = AtomicOrder::kRelaxed;
  switch (memorder & 0xffff) {
    case 1:
    case 2: order = AtomicOrder::kAcquire; break;
    case 3: order = AtomicOrder::kRelease; break;
    case 4: order = AtomicOrder::kAcqRel; break;
    case 5: order = AtomicOrder::kSeqCst; break;
    default: break;
  }
  if (size_ == 1) order = AtomicOrder::kRelaxed;
  return rt.sync().atomic(call("omp atomic"), page, offset, op, type, operand, expected, order);
}

int Team::ancestor_thread_num(int level) const {
  if (level < 0 || level > level_) return -1;
  if (level == 0) return 0;
  if (level == 1) return level1_thread_;
  return level == level_ ? thread_num_ : 0;
}

int Team::ancestor_team_size(int level) const {
  if (level < 0 || level > level_) return -1;
  if (level == 0) return 1;
  if (level == 1) return level1_size_;
  return 1;
}

}  // namespace scopedsm::omp
