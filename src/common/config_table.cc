// The settings: every SCOPEDSM_* variable the runtime reads, declared once.
//
// A row names the variable, its group, what it accepts (the error's words),
// one sentence of documentation, and the Config field it selects, through
// one of the kinds below (a count, a size, seconds, a path, a choice of
// names, on/off) or, for a value with a grammar of its own, a parse and a
// print function. Everything else comes from the rows: parse_config, the
// errors, config_settings() (the statistics JSON, the start-up log,
// `scopedsm info`), `scopedsm info --variables` and docs/CONFIG.md's tables
// (`ninja config-doc` writes them; a unit test checks them).
// docs/ARCHITECTURE.md, "How to add a setting", lists the edits.
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <utility>

#include "common/config.h"
#include "common/limits.h"

namespace scopedsm {

// --- Values: the grammars settings share -----------------------------------

namespace {

bool parse_uint(const std::string& text, uint64_t* out) {
  if (text.empty() || text[0] == '-' || text[0] == '+') return false;
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (errno != 0 || end == text.c_str() || *end != '\0') return false;
  *out = v;
  return true;
}

// A byte count as the largest exact K, M, G or T multiple: 16G, 1536M, 4097.
std::string size_text(uint64_t bytes) {
  static const char kSuffix[] = "KMGT";
  for (int i = 3; i >= 0; --i) {
    const uint64_t unit = 1ull << (10 * (i + 1));
    if (bytes != 0 && bytes % unit == 0) return std::to_string(bytes / unit) + kSuffix[i];
  }
  return std::to_string(bytes);
}

std::string real_text(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

// "a, b or c"
std::string one_of(const std::vector<std::string>& names, const char* last_separator = " or ") {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) out += (i == 0 ? "" : i + 1 == names.size() ? last_separator : ", ") + names[i];
  return out;
}

// Comma-separated items, each passed to `item`; false at the first it refuses.
template <class Item>
bool each_item(const std::string& text, Item item) {
  size_t start = 0;
  for (;;) {
    const size_t comma = text.find(',', start);
    if (!item(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start))) return false;
    if (comma == std::string::npos) return true;
    start = comma + 1;
  }
}

// SCOPEDSM_TEST_FAULT: "none", or a comma-separated list of kTestFaultNames.
std::string test_faults_accepted() {
  std::vector<std::string> names;
  for (const TestFaultName& f : kTestFaultNames) names.emplace_back(f.name);
  return "a comma-separated list of " + one_of(names, " and ") + ", or none";
}

bool parse_test_faults(const std::string& text, uint64_t* out, std::string* detail) {
  *out = 0;
  if (text == "none") return true;
  return each_item(text, [&](const std::string& name) {
    for (const TestFaultName& f : kTestFaultNames)
      if (name == f.name) {
        *out |= static_cast<uint64_t>(f.fault);
        return true;
      }
    *detail = "'" + name + "' is none of them";
    return false;
  });
}

std::string test_faults_text(uint64_t faults) {
  std::vector<std::string> names;
  for (const TestFaultName& f : kTestFaultNames)
    if ((faults & static_cast<uint64_t>(f.fault)) != 0) names.emplace_back(f.name);
  return names.empty() ? "none" : one_of(names, ",");
}

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
constexpr const char* kNetAccepted =
    "off, or comma-separated key=value pairs of overhead, occupancy, latency, interrupt (ns, 0 to 100000000), "
    "mtu (bytes, 64 to 1048576) and bandwidth (MB/s, 1 to 1000000), e.g. overhead=3000,bandwidth=100";

bool parse_net_pairs(const std::string& text, NetParams* out, std::string* detail) {
  NetParams net;
  if (text != "off") {
    net.enabled = true;
    uint32_t seen = 0;
    const bool ok = each_item(text, [&](const std::string& item) {
      const size_t eq = item.find('=');
      const std::string key = item.substr(0, eq);
      const NetKey* found = nullptr;
      for (const NetKey& k : kNetKeys)
        if (key == k.name) found = &k;
      if (eq == std::string::npos || found == nullptr) {
        *detail = "'" + item + "' is not key=value of one of them";
        return false;
      }
      const uint32_t bit = 1u << (found - kNetKeys);
      if ((seen & bit) != 0) {
        *detail = key + " is given twice";
        return false;
      }
      seen |= bit;
      uint64_t v = 0;
      if (!parse_uint(item.substr(eq + 1), &v) || v < found->min || v > found->max) {
        *detail = key + " must be a whole number from " + std::to_string(found->min) + " to " + std::to_string(found->max);
        return false;
      }
      net.*(found->field) = v;
      return true;
    });
    if (!ok) return false;
  }
  *out = net;
  return true;
}

}  // namespace

Status parse_size(const std::string& text, uint64_t* out) {
  if (text.empty()) return Status::Error("empty");
  std::string digits = text;
  uint64_t mult = 1;
  switch (text.back()) {
    case 'K': case 'k': mult = 1ull << 10; break;
    case 'M': case 'm': mult = 1ull << 20; break;
    case 'G': case 'g': mult = 1ull << 30; break;
    case 'T': case 't': mult = 1ull << 40; break;
    default: break;
  }
  if (mult != 1) digits.pop_back();
  uint64_t v = 0;
  if (!parse_uint(digits, &v)) return Status::Error("not a number");
  if (v > UINT64_MAX / mult) return Status::Error("too large");
  *out = v * mult;
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

const char* setting_group_title(SettingGroup group) {
  switch (group) {
    case SettingGroup::kMemory: return "Memory and placement";
    case SettingGroup::kCoherence: return "Coherence";
    case SettingGroup::kSync: return "Synchronization";
    case SettingGroup::kProcesses: return "Processes and communication";
    case SettingGroup::kLoops: return "Loops and task migration";
    case SettingGroup::kOpenMP: return "OpenMP";
    case SettingGroup::kOutput: return "Output and checks";
    case SettingGroup::kTesting: return "Tests only";
  }
  return "?";
}

// --- Kinds: how a row reads and writes its field -----------------------------

namespace {

using G = SettingGroup;
using Valid = std::function<bool(uint64_t)>;

Valid from(uint64_t min, uint64_t max) {
  return [min, max](uint64_t n) { return n >= min && n <= max; };
}

// A value with a grammar of its own.
Setting custom(const char* name, G group, std::string accepted, const char* example, const char* doc,
               decltype(Setting::parse) parse, decltype(Setting::print) print) {
  return Setting{.name = name, .group = group, .accepted = std::move(accepted), .doc = doc, .example = example,
                 .parse = std::move(parse), .print = std::move(print)};
}

// A whole number, stored in a field of any integer type.
template <class T>
Setting count(const char* name, G group, T Config::*field, Valid valid, const char* accepted, const char* example,
              const char* doc) {
  return custom(
      name, group, accepted, example, doc,
      [field, valid](const std::string& text, Config* c, std::string*) {
        uint64_t n = 0;
        if (!parse_uint(text, &n) || !valid(n)) return false;
        c->*field = static_cast<T>(n);
        return true;
      },
      [field](const Config& c) { return std::to_string(c.*field); });
}

// A whole number from `min` to `max` written after `prefix`, or `zero` for
// 0: "all" or 3, "off" or "barrier:3".
template <class T>
Setting count_or(const char* name, G group, T Config::*field, const char* zero, const char* prefix, uint64_t min,
                 uint64_t max, const char* accepted, const char* example, const char* doc) {
  const std::string before = prefix;
  return custom(
      name, group, accepted, example, doc,
      [=](const std::string& text, Config* c, std::string*) {
        uint64_t n = 0;
        if (text == zero) c->*field = 0;
        else if (text.rfind(before, 0) == 0 && parse_uint(text.substr(before.size()), &n) && n >= min && n <= max)
          c->*field = static_cast<T>(n);
        else return false;
        return true;
      },
      [=](const Config& c) { return c.*field == 0 ? std::string(zero) : before + std::to_string(c.*field); });
}

// Bytes, with an optional suffix K, M, G or T.
Setting size(const char* name, G group, uint64_t Config::*field, Valid valid, const char* accepted,
             const char* example, const char* doc) {
  return custom(
      name, group, accepted, example, doc,
      [field, valid](const std::string& text, Config* c, std::string*) {
        uint64_t n = 0;
        if (!parse_size(text, &n).ok() || !valid(n)) return false;
        c->*field = n;
        return true;
      },
      [field](const Config& c) { return size_text(c.*field); });
}

// A finite number from 0 to `max`.
Setting real(const char* name, G group, double Config::*field, double max, const char* accepted, const char* example,
             const char* doc) {
  return custom(
      name, group, accepted, example, doc,
      [field, max](const std::string& text, Config* c, std::string*) {
        errno = 0;
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || errno != 0 || *end != '\0' || !(v >= 0) || v > max || std::isinf(v)) return false;
        c->*field = v;
        return true;
      },
      [field](const Config& c) { return real_text(c.*field); });
}

// A file path: unset by default, never empty.
Setting path(const char* name, G group, std::string Config::*field, const char* doc) {
  Setting s = custom(
      name, group, "a file path", "/tmp/scopedsm-example.json", doc,
      [field](const std::string& text, Config* c, std::string*) {
        c->*field = text;
        return !text.empty();
      },
      [field](const Config& c) { return c.*field; });
  s.quiet_at_default = true;
  return s;
}

template <class T>
struct Named {
  const char* name;
  T value;
};

// One of a few names, each a value of what `get` and `set` reach.
template <class T>
Setting choice(const char* name, G group, std::function<T(const Config&)> get, std::function<void(Config*, T)> set,
               std::vector<Named<T>> names, const char* doc) {
  std::vector<std::string> texts;
  std::string example;
  for (const Named<T>& n : names) {
    texts.emplace_back(n.name);
    if (example.empty() && n.value != get(Config{})) example = n.name;
  }
  return custom(
      name, group, one_of(texts), example.c_str(), doc,
      [names, set](const std::string& text, Config* c, std::string*) {
        for (const Named<T>& n : names)
          if (text == n.name) {
            set(c, n.value);
            return true;
          }
        return false;
      },
      [names, get](const Config& c) {
        for (const Named<T>& n : names)
          if (n.value == get(c)) return std::string(n.name);
        return std::string("?");
      });
}

template <class T>
Setting choice(const char* name, G group, T Config::*field, std::vector<Named<T>> names, const char* doc) {
  return choice<T>(
      name, group, [field](const Config& c) { return c.*field; }, [field](Config* c, T v) { c->*field = v; },
      std::move(names), doc);
}

// Exactly "on" or "off", as docs/CONFIG.md says: one spelling per value, so
// that a setting reads the same in every script and log.
Setting on_off(const char* name, G group, bool Config::*field, const char* doc) {
  return choice<bool>(name, group, field, {{"on", true}, {"off", false}}, doc);
}

Setting quiet(Setting s) {
  s.quiet_at_default = true;
  return s;
}

// SCOPEDSM_WRITE_DETECT selects two switches.
enum class WriteDetect { kAdaptive, kAll, kCacheOnly };

// --- The table -----------------------------------------------------------------

std::vector<Setting> make_settings() {
  return {
      // Memory and placement
      size("SCOPEDSM_REGION_SIZE", G::kMemory, &Config::region_size, from(1ull << 20, 1ull << 45),
           "a size from 1M to 32T, e.g. 16G", "2G",
           "Shared address space reserved in every process; only touched pages use memory."),
      count("SCOPEDSM_CACHE_PAGES", G::kMemory, &Config::cache_pages, from(4, 1ull << 28),
            "a page count from 4 to 268435456", "256",
            "Capacity of each process's cache of pages homed elsewhere, in coherence units."),
      choice<bool>("SCOPEDSM_CACHE_POLICY", G::kMemory, &Config::cache_remote_victim, {{"fifo", false}, {"remote", true}},
                   "Replacement in that cache: the copy fetched first goes first, or copies of this node's pages go "
                   "before far ones."),
      count("SCOPEDSM_UNIT_PAGES", G::kMemory, &Config::unit_pages, valid_unit_pages, kUnitPagesAccepted, "4",
            "The coherence unit (the protocol's page), in OS pages; every process must use the same."),
      choice<HomePolicy>("SCOPEDSM_HOME_POLICY", G::kMemory, &Config::home_policy,
                         {{"cyclic", HomePolicy::kCyclic}, {"first-touch", HomePolicy::kFirstTouch}},
                         "Where the pages of allocations that name no placement are homed."),
      custom(
          "SCOPEDSM_HOME_BACKING", G::kMemory, "'memory' or 'file:DIR' with DIR an absolute directory path",
          "file:/var/tmp", "Where each process keeps its memory of the region: RAM (a memfd) or a file on local disk.",
          [](const std::string& text, Config* c, std::string*) {
            if (text == "memory") c->home_backing_dir.clear();
            else if (text.rfind("file:/", 0) == 0) c->home_backing_dir = text.substr(5);
            else return false;
            return true;
          },
          [](const Config& c) { return c.home_backing_dir.empty() ? "memory" : "file:" + c.home_backing_dir; }),
      size("SCOPEDSM_HOME_MEMORY", G::kMemory, &Config::home_memory, from(0, UINT64_MAX),
           "a size such as 512M, or 0 for no limit", "256M",
           "With file backing, the home memory kept resident before release hints give pages back; 0 = no limit."),

      // Coherence
      choice<WriteDetect>(
          "SCOPEDSM_WRITE_DETECT", G::kCoherence,
          [](const Config& c) {
            return c.write_detect_cache_only ? WriteDetect::kCacheOnly
                   : c.write_detect_all      ? WriteDetect::kAll
                                             : WriteDetect::kAdaptive;
          },
          [](Config* c, WriteDetect v) {
            c->write_detect_all = v == WriteDetect::kAll;
            c->write_detect_cache_only = v == WriteDetect::kCacheOnly;
          },
          {{"adaptive", WriteDetect::kAdaptive}, {"all", WriteDetect::kAll}, {"cache-only", WriteDetect::kCacheOnly}},
          "Which writes to home pages are trapped: only while others may hold copies, all, or none (every copy "
          "dropped at every acquire)."),
      on_off("SCOPEDSM_HOME_MIGRATION", G::kCoherence, &Config::home_migration,
             "Whether a page's single writer between two barriers becomes its home at the second (JIAJIA's HMIG)."),
      count_or("SCOPEDSM_NEXT_TOUCH", G::kCoherence, &Config::next_touch_barriers, "off", "barrier:", 1, 1000,
               "off, or barrier:N with N from 1 to 1000", "barrier:1",
               "Whether the first N barriers after each allocation are next-touch points for its pages."),
      choice<bool>("SCOPEDSM_NEXT_TOUCH_ON", G::kCoherence, &Config::next_touch_write, {{"touch", false}, {"write", true}},
                   "What re-homes a page a next-touch point marked: another process's first touch, or only a lone "
                   "writer."),
      on_off("SCOPEDSM_WRITER_RETENTION", G::kCoherence, &Config::writer_retention,
             "Whether a write notice whose only writer is this process leaves its copy valid."),
      custom(
          "SCOPEDSM_WRITE_VECTOR", G::kCoherence,
          "on, off, or a block size in bytes: a power of two from 64 to 32768", "256",
          "Whether a refetch by message brings only the blocks written since (JIAJIA's WVEC), and their size.",
          [](const std::string& text, Config* c, std::string*) {
            uint64_t n = 0;
            if (text == "off" || text == "on") {
              c->write_vector = text == "on";
            } else if (parse_uint(text, &n) && n >= 64 && n <= 32768 && (n & (n - 1)) == 0) {
              c->write_vector = true;
              c->write_vector_block = static_cast<uint32_t>(n);
            } else {
              return false;
            }
            return true;
          },
          [](const Config& c) {
            return !c.write_vector ? std::string("off")
                   : c.write_vector_block == 0 ? std::string("on")
                                               : std::to_string(c.write_vector_block);
          }),
      choice<FetchMode>("SCOPEDSM_FETCH", G::kCoherence, &Config::fetch,
                        {{"auto", FetchMode::kAuto}, {"rma", FetchMode::kRma}, {"message", FetchMode::kMessage}},
                        "How pages homed on other nodes are read: one-sided MPI_Get, or a request the home answers."),
      count("SCOPEDSM_FETCH_PAGES", G::kCoherence, &Config::fetch_pages, from(1, kMaxFetchPages),
            "a page count from 1 to 64", "8", "Most pages one fault fetches, in a run after a sequential reader's page."),
      choice<ReleasePolicy>("SCOPEDSM_RELEASE_POLICY", G::kCoherence, &Config::release_policy,
                            {{"buffered", ReleasePolicy::kBuffered}, {"aggressive", ReleasePolicy::kAggressive}},
                            "Whether release hints give pages back when room is needed, lowest priority first, or at "
                            "once."),
      choice<bool>("SCOPEDSM_PREFETCH", G::kCoherence, &Config::prefetch_sync, {{"async", false}, {"sync", true}},
                   "Whether a prefetch hint returns while its fetches are in flight, or waits for them."),
      on_off("SCOPEDSM_AUTO_HINTS", G::kCoherence, &Config::auto_hints,
             "Whether the runtime makes its own prefetch and release hints from streams of faults."),

      // Synchronization
      count("SCOPEDSM_LOCKS", G::kSync, &Config::locks, from(1, kMaxLockIds), "a lock count from 1 to 2147482622",
            "4096", "How many lock ids a job has: 0 to this - 1."),
      on_off("SCOPEDSM_LOCK_INCARNATIONS", G::kSync, &Config::lock_incarnations,
             "Whether a lock grant carries only the write notices the acquirer has not seen (JIAJIA's incarnations)."),
      choice<BarrierForm>("SCOPEDSM_BARRIER", G::kSync, &Config::barrier_form,
                          {{"node", BarrierForm::kNode},
                           {"dissemination", BarrierForm::kDissemination},
                           {"central", BarrierForm::kCentral}},
                          "How a barrier's processes meet: a node's in shared memory and one per node in rounds, "
                          "every process in rounds, or at rank 0."),
      real("SCOPEDSM_TIMEOUT", G::kSync, &Config::timeout_s, 1e7, "seconds from 0 (no limit) to 10000000", "600",
           "Seconds any single wait may last before the job ends with a report; 0 = no limit (a deadlock still "
           "ends it)."),

      // Processes and communication
      on_off("SCOPEDSM_NODE_SHARING", G::kProcesses, &Config::node_sharing,
             "Whether processes of one node copy pages from each other's homes and merge diffs into them directly."),
      count_or("SCOPEDSM_NODE_PROCS", G::kProcesses, &Config::node_procs, "all", "", 1, 65536,
               "'all' or a process count from 1 to 65536", "2",
               "At most this many processes per node, so that one machine stands for several nodes."),
      custom(
          "SCOPEDSM_NET", G::kProcesses, kNetAccepted, "occupancy=5,bandwidth=100,interrupt=2500",
          "Communication costs injected between nodes (the cost model), to see which one a program is sensitive to.",
          [](const std::string& text, Config* c, std::string* detail) { return parse_net_pairs(text, &c->net, detail); },
          [](const Config& c) { return net_text(c.net); }),
      count("SCOPEDSM_SPIN_US", G::kProcesses, &Config::spin_us, from(0, 100000), "microseconds from 0 to 100000", "0",
            "Microseconds a waiting thread polls before it sleeps."),
      count("SCOPEDSM_POLL_US", G::kProcesses, &Config::poll_us, from(1, 1000000), "microseconds from 1 to 1000000",
            "10", "Longest sleep between polls when some processes are on other nodes."),
      count(
          "SCOPEDSM_SERVICE_SLICE_US", G::kProcesses, &Config::service_slice_us,
          [](uint64_t n) { return n == 0 || (n >= 100 && n <= 100000); },
          "0 (the kernel's slice) or microseconds from 100 to 100000", "300",
          "The time slice the service thread asks of the kernel; 0 = the kernel's."),

      // Loops and task migration
      custom(
          "SCOPEDSM_SCHEDULE", G::kLoops, schedule_grammar(), "abs,bss,16", "The schedule of DOALL loops that name none.",
          [](const std::string& text, Config* c, std::string*) { return parse_schedule(text, &c->schedule).ok(); },
          [](const Config& c) { return schedule_text(c.schedule); }),
      choice<int>("SCOPEDSM_TASK_MIGRATION", G::kLoops, &Config::task_migration,
                  {{"off", 0}, {"compute", 1}, {"data", 2}},
                  "What jia_lbarrier does: a plain barrier, also reassign ranges by measured power, or also move the "
                  "homes of their pages."),
      count("SCOPEDSM_TASK_MIGRATION_ALPHA", G::kLoops, &Config::task_migration_alpha, from(0, 1000000000),
            "a number of calls from 0 (a tenth of the iterations) to 1000000000", "7",
            "Calls of jia_lbarrier between measurements; 0 = a tenth of the iterations."),
      real("SCOPEDSM_TASK_MIGRATION_BETA", G::kLoops, &Config::task_migration_beta, HUGE_VAL, "a number, 0 or more",
           "0.35", "jia_lbarrier reassigns ranges when sigma/E of the processes' compute times exceeds this."),

      // OpenMP
      quiet(custom(
          "SCOPEDSM_OMP_STACK", G::kOpenMP, "a byte count from 1048576 to 1099511627776", "16777216",
          "Bytes of an OpenMP program's master stack, which is in the region; unset: as large as ulimit -s says.",
          [](const std::string& text, Config* c, std::string*) {
            return parse_uint(text, &c->omp_stack) && c->omp_stack >= (1u << 20) && c->omp_stack <= (1ull << 40);
          },
          [](const Config& c) { return c.omp_stack == 0 ? std::string() : std::to_string(c.omp_stack); })),

      // Output and checks
      path("SCOPEDSM_STATS_FILE", G::kOutput, &Config::stats_file,
           "Path where rank 0 writes every process's statistics as JSON at exit."),
      path("SCOPEDSM_TRACE", G::kOutput, &Config::trace_file,
           "Path where rank 0 writes every process's events at exit, a trace Perfetto opens."),
      path("SCOPEDSM_CHECKPOINT_DIR", G::kOutput, &Config::checkpoint_dir,
           "Directory scopedsm_checkpoint writes its generations and manifest to; unset: <program>.checkpoint in the "
           "current directory."),
      path("SCOPEDSM_RESTART", G::kOutput, &Config::restart_dir,
           "Checkpoint directory whose last complete checkpoint the job starts from (scopedsm run --restart DIR)."),
      on_off("SCOPEDSM_SUMMARY", G::kOutput, &Config::summary, "Whether rank 0 prints the statistics table at exit."),
      choice<LogLevel>("SCOPEDSM_LOG", G::kOutput, &Config::log_level,
                       {{"error", LogLevel::kError}, {"warn", LogLevel::kWarn}, {"info", LogLevel::kInfo},
                        {"debug", LogLevel::kDebug}},
                       "Log level."),
      quiet(on_off("SCOPEDSM_STRICT", G::kOutput, &Config::strict,
                   "Whether a SCOPEDSM_* variable ScopeDSM does not know ends the job at start-up, not just a "
                   "warning.")),

      // Tests only
      quiet(count("SCOPEDSM_TEST_DELAY_US", G::kTesting, &Config::test_delay_us, from(0, 1000000),
                  "microseconds from 0 to 1000000", "30",
                  "Random delays of up to this many microseconds before every send and serve, to shake out races.")),
      quiet(custom(
          "SCOPEDSM_TEST_FAULT", G::kTesting, test_faults_accepted(), "skip-invalidate,skip-notices",
          "Protocol steps to break on purpose, to show that the tests can fail.",
          [](const std::string& text, Config* c, std::string* detail) {
            return parse_test_faults(text, &c->test_faults, detail);
          },
          [](const Config& c) { return test_faults_text(c.test_faults); })),
      quiet(custom(
          "SCOPEDSM_TEST_CHECKPOINT_KILL", G::kTesting, "RANK:SEQ:POINT, POINT one of written, manifest", "1:2:written",
          "The rank that raises SIGKILL in checkpoint SEQ: once its files are written (written) or, rank 0, once "
          "the new manifest is written but not yet renamed (manifest).",
          [](const std::string& text, Config* c, std::string*) {
            int rank = -1;
            unsigned long long seq = 0;
            char point[16] = "";
            char extra = 0;
            if (std::sscanf(text.c_str(), "%d:%llu:%15[a-z]%c", &rank, &seq, point, &extra) != 3 || rank < 0 ||
                seq == 0 || (std::string(point) != "written" && std::string(point) != "manifest"))
              return false;
            c->test_checkpoint_kill = text;
            return true;
          },
          [](const Config& c) { return c.test_checkpoint_kill; })),
      quiet(count("SCOPEDSM_TEST_HINTS", G::kTesting, &Config::test_hints, from(0, UINT64_MAX),
                  "a seed (a non-negative integer), 0 = off", "5",
                  "A seed of random prefetch and release hints before every synchronization call; 0 = none.")),
  };
}

}  // namespace

const std::vector<Setting>& settings() {
  static const std::vector<Setting> table = make_settings();
  return table;
}

const std::vector<SettingRule>& setting_rules() {
  static const std::vector<SettingRule> rules = {
      {[](const Config& c) { return c.next_touch_barriers != 0 && c.write_detect_cache_only; },
       "SCOPEDSM_NEXT_TOUCH=barrier:N cannot be combined with SCOPEDSM_WRITE_DETECT=cache-only: a page moves to its "
       "toucher only if its home did not write it, and cache-only detection does not observe the home's writes; "
       "choose one"},
      {[](const Config& c) { return c.home_migration && c.write_detect_cache_only; },
       "SCOPEDSM_HOME_MIGRATION=on cannot be combined with SCOPEDSM_WRITE_DETECT=cache-only: a page moves to its "
       "single writer only if its home did not write it, and cache-only detection does not observe the home's "
       "writes (docs/PROTOCOL.md §6b); choose one"},
  };
  return rules;
}

const std::vector<ToolVariable>& tool_variables() {
  static const std::vector<ToolVariable> vars = {
      {"SCOPEDSM_MPIEXEC", "`scopedsm run`, `scopedsm bench`",
       "The MPI launcher to start jobs with, instead of the one the build found."},
      {"SCOPEDSM_IP", "`scopedsm run --hosts`, `scopedsm cleanup`",
       "The `ip` command (iproute2) that makes and removes the namespaced hosts, instead of the one in `PATH`."},
      {"SCOPEDSM_CC", "`scopedsm-cc`", "The C compiler the wrapper calls, instead of the build's."},
      {"SCOPEDSM_CXX", "`scopedsm-c++`", "The C++ compiler the wrapper calls, instead of the build's."},
      {"SCOPEDSM_FC", "`scopedsm-fc`", "The Fortran compiler (gfortran) the wrapper calls, instead of the build's."},
      {"SCOPEDSM_BENCH_COMMIT", "`bench/run_micro.sh`",
       "The source commit recorded in its reports, when the build is not of a git checkout."},
  };
  return vars;
}

}  // namespace scopedsm
