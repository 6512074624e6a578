// SyncClient's atomics at the home and the AMO synchronization built on
// them (docs/MEMORY_MODEL.md, "Atomics at the home"; docs/PROTOCOL.md §4b).
#include <cstring>

#include "common/log.h"
#include "protocol/messages.h"
#include "sync/sync_client.h"

namespace scopedsm {

void SyncClient::release_before(AtomicOrder order) {
  if (!releases(order)) return;
  // Everything we wrote is at its home before the atomic takes effect.
  c_->close_interval();
  c_->flush_diffs(-1);
}

void SyncClient::acquire_after(AtomicOrder order) {
  if (!acquires(order)) return;
  // No cached copy older than the atomic survives it. Our own writes go home
  // first, so that the copies fetched again still show them.
  c_->close_interval();
  c_->flush_diffs(-1);
  c_->invalidate_all_copies();
}

int64_t SyncClient::arrive(ApiCall call, uint64_t page, uint32_t offset) {
  return static_cast<int64_t>(c_->atomic(page, offset, AtomicOp::kFetchAdd, AtomicType::kInt64, 1, 0, call.name));
}

void SyncClient::announce(const AmoNotifyMsg& note) {
  // The last arriver: one notification to each process, and none before.
  Transport& t = *p_.transport;
  for (int r = 0; r < p_.size; ++r)
    if (r != p_.rank) t.send(r, kTagPeer, encode(note, t.next_seq()));
  inbox_.note_amo(note);
}

uint64_t SyncClient::atomic(ApiCall call, uint64_t page, uint32_t offset, AtomicOp op, AtomicType type,
                            uint64_t operand, uint64_t expected, AtomicOrder order) {
  TraceSpan span(stats_->trace, &stats_->t_atomic_ns, TraceKind::kAtomic, static_cast<uint32_t>(page), offset);
  release_before(order);
  const uint64_t old = c_->atomic(page, offset, op, type, operand, expected, call.name);
  acquire_after(order);
  return old;
}

int64_t SyncClient::amo_inc(ApiCall call, uint64_t page, uint32_t offset, int64_t test, uint64_t payload,
                            AtomicOrder order) {
  TraceSpan span(stats_->trace, &stats_->t_atomic_ns, TraceKind::kAtomic, static_cast<uint32_t>(page), offset);
  release_before(order);
  const int64_t old = arrive(call, page, offset);
  if (old + 1 == test) {
    announce(AmoNotifyMsg{static_cast<uint32_t>(page), offset, static_cast<uint64_t>(test), payload});
  }
  return old;
}

uint64_t SyncClient::amo_wait(ApiCall call, uint64_t page, uint32_t offset, int64_t value, AtomicOrder order) {
  TraceSpan span(stats_->trace, &stats_->t_atomic_ns, TraceKind::kAtomic, static_cast<uint32_t>(page), offset);
  return await_amo(call, page, offset, value, order);
}

uint64_t SyncClient::await_amo(ApiCall call, uint64_t page, uint32_t offset, int64_t value, AtomicOrder order) {
  uint64_t payload = 0;
  char what[96];  // for a timeout report only
  std::snprintf(what, sizeof what, "%s: the AMO counter at page %u to reach %lld (AMONOTIFY)", call.name,
                static_cast<unsigned>(page), static_cast<long long>(value));
  p_.transport->wait_until(
      WakeRole::kApp,
      [&] {
        inbox_.drain();
        return inbox_.amo_reached(static_cast<uint32_t>(page), offset, value, &payload);
      },
      what, -1);
  acquire_after(order);
  return payload;
}

void SyncClient::amo_barrier(ApiCall call, uint64_t page, uint32_t offset, AtomicOrder order) {
  // The episode's test value follows from the old value: arrivals of one
  // episode find it in [k N, (k + 1) N), and the next episode's cannot start
  // before this one's notification.
  TraceSpan span(stats_->trace, &stats_->t_atomic_ns, TraceKind::kAtomic, static_cast<uint32_t>(page), offset);
  const int64_t n = p_.size;
  release_before(order);
  const int64_t old = arrive(call, page, offset);
  const int64_t target = (old / n + 1) * n;
  if (old + 1 == target) announce(AmoNotifyMsg{static_cast<uint32_t>(page), offset, static_cast<uint64_t>(target), 0});
  await_amo(call, page, offset, target, order);
}

double SyncClient::amo_reduce_sum(ApiCall call, uint64_t page, uint32_t offset, double value, AtomicOrder order) {
  TraceSpan span(stats_->trace, &stats_->t_atomic_ns, TraceKind::kAtomic, static_cast<uint32_t>(page), offset);
  const int64_t n = p_.size;
  release_before(order);
  // The episode, hence the accumulator, from the counter's current value.
  const auto now = static_cast<int64_t>(
      c_->atomic(page, offset, AtomicOp::kLoad, AtomicType::kInt64, 0, 0, call.name));
  const int64_t episode = now / n;
  const uint32_t acc = offset + 8 + 8 * static_cast<uint32_t>(episode % 2);
  const uint32_t other = offset + 8 + 8 * static_cast<uint32_t>((episode + 1) % 2);
  uint64_t bits = 0;
  std::memcpy(&bits, &value, 8);
  c_->atomic(page, acc, AtomicOp::kFetchAdd, AtomicType::kDouble, bits, 0, call.name);
  const int64_t old = arrive(call, page, offset);
  const int64_t target = (episode + 1) * n;
  if (old / n != episode)
    fatal("%s: the reduction's counter moved to another episode between two calls of this process (%lld, then %lld): "
          "every process must call it the same number of times",
          call.name, static_cast<long long>(now), static_cast<long long>(old));
  if (old + 1 == target) {
    // Every contribution is in (each was added before its counter
    // increment); everyone has read the other accumulator in the previous
    // episode before arriving at this one, so it can be cleared for the next.
    const uint64_t sum = c_->atomic(page, acc, AtomicOp::kLoad, AtomicType::kDouble, 0, 0, call.name);
    c_->atomic(page, other, AtomicOp::kExchange, AtomicType::kDouble, 0, 0, call.name);
    announce(AmoNotifyMsg{static_cast<uint32_t>(page), offset, static_cast<uint64_t>(target), sum});
  }
  const uint64_t sum_bits = await_amo(call, page, offset, target, order);
  double sum = 0;
  std::memcpy(&sum, &sum_bits, 8);
  return sum;
}

}  // namespace scopedsm
