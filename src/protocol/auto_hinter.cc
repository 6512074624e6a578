#include "protocol/auto_hinter.h"

#include "protocol/prefetcher.h"
#include "protocol/releaser.h"

namespace scopedsm {

void AutoHinter::on_fault(uint64_t page, bool demand) {
  // prepare() pins its ranges and must fit them in the cache: no hints then.
  if (!c_.config->auto_hints || c_.fsm->pinning()) return;
  // The program is using the page: a release named earlier no longer holds
  // (and the prefetches below must not take its slot).
  release_->forget(static_cast<uint32_t>(page));
  // The program's own hints take precedence: a fault in a range they named
  // this interval is theirs to follow (the engine's streams would cut their
  // runs into pieces and fetch what they fetch).
  if (!over_hints_ && named_.contains(page, ops_->epoch())) {
    ++c_.stats->auto_deferred;
    return;
  }
  const StreamAdvice a = streams_.on_fault(page, demand, c_.pages->allocated());
  if (!a.on_stream) return;
  c_.stats->auto_streams += a.confirmed;
  c_.stats->auto_prefetch_late += a.late;
  // `steps` pages from `first`, `a.stride` apart, to `hint`: a sequential
  // stream's as one range (runs of one home, one request each), a strided
  // stream's one page each.
  auto each_step = [&a](uint64_t first, uint64_t steps, auto&& hint) {
    if (steps == 0) return;
    if (a.stride == 1) return hint(first, steps);
    for (uint64_t i = 0; i < steps; ++i) hint(first + i * a.stride, 1);
  };
  each_step(a.prefetch_first, a.prefetch_steps, [this](uint64_t f, uint64_t n) { prefetcher_->prefetch(f, n, true); });
  // Releases behind the stream take the explicit ones' path, lag included,
  // tagged by the stream's slot, at the lowest priority (given back first).
  const uint64_t behind =
      a.release_end > a.release_first ? (a.release_end - a.release_first + a.stride - 1) / a.stride : 0;
  each_step(a.release_first, behind,
            [this, tag = uint64_t{a.stream}](uint64_t f, uint64_t n) { release_->release(f, n, 0, tag, true); });
}

}  // namespace scopedsm
