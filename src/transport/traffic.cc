#include "transport/traffic.h"

#include <cstring>

namespace scopedsm {

namespace {
thread_local uint64_t t_thread_messages = 0;  // sent and received by this thread
}  // namespace

uint64_t Traffic::thread_messages() { return t_thread_messages; }

void Traffic::count_typed(TrafficCounters* c, const void* data, size_t n) {
  MsgHeader h;
  if (n < sizeof h) return;
  std::memcpy(&h, data, sizeof h);
  if (h.type >= kMsgTypeCount) return;  // an index past the arrays; Reader::open rejects the message
  c->messages[h.type].fetch_add(1, std::memory_order_relaxed);
  c->bytes[h.type].fetch_add(n, std::memory_order_relaxed);
}

void Traffic::count_sent(Tag tag, const void* data, size_t n, bool to_self) {
  if (!to_self) ++t_thread_messages;
  if (is_page_tag(tag)) {
    sent_.page_messages.fetch_add(1, std::memory_order_relaxed);
    sent_.page_bytes.fetch_add(n, std::memory_order_relaxed);
    return;
  }
  count_typed(&sent_, data, n);
  if (to_self) {
    sent_.self_messages.fetch_add(1, std::memory_order_relaxed);
    sent_.self_bytes.fetch_add(n, std::memory_order_relaxed);
  }
}

void Traffic::count_received(const Bytes& bytes, bool from_self) {
  if (!from_self) ++t_thread_messages;
  count_typed(&received_, bytes.data(), bytes.size());
}

void Traffic::count_received_page(size_t n) {
  ++t_thread_messages;
  received_.page_messages.fetch_add(1, std::memory_order_relaxed);
  received_.page_bytes.fetch_add(n, std::memory_order_relaxed);
}

}  // namespace scopedsm
