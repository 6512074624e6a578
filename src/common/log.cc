#include "common/log.h"

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <unistd.h>

namespace scopedsm {

namespace {
std::atomic<int> g_rank{-1};
std::atomic<int> g_level{static_cast<int>(LogLevel::kWarn)};
std::atomic<AbortHook> g_abort{nullptr};
std::atomic<bool> g_dying{false};

// Formats into a stack buffer and writes with one write(2), so that lines from
// different processes and threads do not interleave mid-line. No allocation:
// this runs inside the SIGSEGV handler too.
void emit(const char* tag, const char* fmt, va_list ap) {
  char buf[2048];
  // Before the rank is known (no launcher told it, MPI not yet started)
  // the line names no rank rather than a made-up one.
  const int rank = g_rank.load();
  int n = rank >= 0 ? std::snprintf(buf, sizeof buf, "scopedsm: rank %d: %s", rank, tag)
                    : std::snprintf(buf, sizeof buf, "scopedsm: %s", tag);
  if (n < 0) n = 0;
  if (n < static_cast<int>(sizeof buf)) {
    int m = std::vsnprintf(buf + n, sizeof buf - static_cast<size_t>(n), fmt, ap);
    if (m > 0) n += m;
  }
  if (n > static_cast<int>(sizeof buf) - 2) n = static_cast<int>(sizeof buf) - 2;
  buf[n++] = '\n';
  ssize_t ignored = write(STDERR_FILENO, buf, static_cast<size_t>(n));
  (void)ignored;
}
}  // namespace

void set_log_rank(int rank) { g_rank.store(rank); }
int log_rank() { return g_rank.load(); }
void set_log_level(LogLevel level) { g_level.store(static_cast<int>(level)); }
bool log_enabled(LogLevel level) { return static_cast<int>(level) <= g_level.load(); }
bool fatal_in_progress() { return g_dying.load(); }
void set_abort_hook(AbortHook hook) { g_abort.store(hook); }

void fatal(const char* fmt, ...) {
  // A second fatal error (say, from the other thread while the first one is
  // aborting) must not print a confusing follow-up or re-enter MPI_Abort.
  if (g_dying.exchange(true)) {
    for (;;) pause();
  }
  va_list ap;
  va_start(ap, fmt);
  emit("", fmt, ap);
  va_end(ap);
  AbortHook hook = g_abort.load();
  if (hook != nullptr) hook(1);
  _exit(1);
}

void log_message(LogLevel level, const char* fmt, ...) {
  static const char* tags[] = {"error: ", "warning: ", "info: ", "debug: "};
  va_list ap;
  va_start(ap, fmt);
  emit(tags[static_cast<int>(level)], fmt, ap);
  va_end(ap);
}

}  // namespace scopedsm
