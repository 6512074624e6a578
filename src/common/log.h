// Diagnostics: leveled logging and the fatal-error path.
//
// Every message starts with "scopedsm: rank R:" so that interleaved output
// from many processes stays attributable ("scopedsm:" alone while the rank
// is unknown). fatal() is the one way the runtime
// reports misuse or an unrecoverable state: it prints the message and then
// ends the whole job (through the abort hook the runtime installs, which
// calls MPI_Abort), so every process exits non-zero within seconds.
#pragma once

#include "common/config.h"

namespace scopedsm {

// This process's rank as shown in messages (-1 before it is known).
void set_log_rank(int rank);
int log_rank();
void set_log_level(LogLevel level);
bool log_enabled(LogLevel level);
// True once fatal() has begun ending the process.
bool fatal_in_progress();

// Called by fatal() after printing; must not return. Default: _exit(1).
using AbortHook = void (*)(int exit_code);
void set_abort_hook(AbortHook hook);

[[noreturn]] void fatal(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void log_message(LogLevel level, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

#define SCOPEDSM_LOG(level, ...)                                              \
  do {                                                                        \
    if (::scopedsm::log_enabled(level)) ::scopedsm::log_message(level, __VA_ARGS__); \
  } while (0)

}  // namespace scopedsm
