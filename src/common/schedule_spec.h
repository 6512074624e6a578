// The text of a loop schedule (SCOPEDSM_SCHEDULE and the loop calls'
// schedule argument) and what it names: a scheme of the JIAJIA
// dissertation's Tab 5.1 and its parameters. A configuration value, so it
// is read and checked with the rest of the configuration (common/config.h);
// sched/schedule.h computes the chunks.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"

namespace scopedsm {

enum class Scheme : uint32_t {
  kStatic,     // ceil(N/p) consecutive iterations per process, no queue
  kSS,         // self scheduling: 1 iteration per grab
  kBSS,        // block self scheduling: K per grab
  kGSS,        // guided: R/p of the R remaining (rounded to nearest, at least 1)
  kFactoring,  // batches of p chunks of ceil(R/2p)
  kTSS,        // trapezoid: linear decrease from `first` to `last`
  kAFS,        // affinity: per-process queues, ceil(r/k) locally, ceil(r_o/p) stolen
  kSSS,        // safe: batches of p chunks of floor(alpha R / p)
  kAAFS,       // adaptive affinity: AFS with k adapted to the process's load state
  kABS,        // affinity-based: one queue split by data home, local BSS or GSS, steals from the largest
};

struct Schedule {
  Scheme scheme = Scheme::kStatic;
  int64_t chunk = 0;        // BSS and ABS-with-BSS: K (0: N/(4p), the dissertation's choice)
  int64_t min_chunk = 0;    // GSS: no chunk smaller than this but the last (OpenMP's guided,K; 0: 1)
  bool local_bss = false;   // ABS: BSS(chunk) locally instead of GSS
  int64_t divisor = 0;      // AFS, AAFS, ABS-with-GSS: k of the local chunk ceil(r/k) (0: p)
  double alpha = 0.90625;   // SSS: the allocation factor
  int64_t tss_first = 0;    // TSS: the first chunk (0: ceil(N/2p))
  int64_t tss_last = 0;     // TSS: the last chunk (0: 1)
};

// Parses the OMP_SCHEDULE-style text of SCOPEDSM_SCHEDULE and of the loop
// calls: a scheme name, then its parameters after commas:
//   static | ss | bss[,K] | gss[,K] | fs[,] | tss[,first[,last]] | afs[,k] |
//   sss[,alpha] | aafs[,k] | abs[,gss[,k] | ,bss[,K]]
// ("factoring" is a synonym of fs; gss,K hands out no chunk smaller than K
// but the last). OpenMP's spellings name the same schemes: static,K and
// dynamic,K are bss,K, dynamic is ss, guided[,K] is gss[,K], auto is
// static; a monotonic: or nonmonotonic: prefix is accepted (the chunks a
// process gets always go up). Names are lower case.
Status parse_schedule(const std::string& text, Schedule* out);
// The canonical text of a schedule (parses back to it).
std::string schedule_text(const Schedule& s);
// What parse_schedule accepts, for error messages.
const char* schedule_grammar();
// Whether the scheme keeps one segment per process (AFS, AAFS, ABS).
bool is_affinity_scheme(Scheme s);

}  // namespace scopedsm
