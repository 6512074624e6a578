#include "transport/mailbox.h"

#include "common/log.h"

namespace scopedsm {

size_t Mailbox::queue_of(Tag tag) {
  if (tag == kTagRequest) return 0;
  if (tag == kTagReply) return 1;
  fatal("internal error: a message to oneself on tag %d; only requests and replies go through the mailbox",
        static_cast<int>(tag));
}

void Mailbox::put(Tag tag, const void* data, size_t n) {
  const auto* p = static_cast<const std::byte*>(data);
  Bytes copy(p, p + n);
  MutexLock lock(&mu_);
  queues_[queue_of(tag)].push_back(std::move(copy));
}

bool Mailbox::take(Tag tag, Bytes* out) {
  MutexLock lock(&mu_);
  auto& q = queues_[queue_of(tag)];
  if (q.empty()) return false;
  *out = std::move(q.front());
  q.pop_front();
  return true;
}

}  // namespace scopedsm

