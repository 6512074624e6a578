#include "transport/net_model.h"

#include <sys/mman.h>
#include <unistd.h>

#include <vector>

#include "common/clock.h"
#include "common/log.h"

namespace scopedsm {

namespace {

constexpr size_t kSharedBytes = 4096;  // the node's two lines, in one page
constexpr uint64_t kOneSidedRequestBytes = 0;  // a read's request carries no data
// The round trip the waiting threads' spin window is lengthened by: a small
// request answered by a 4 KiB page.
constexpr size_t kTypicalRequestBytes = 64;
constexpr size_t kTypicalReplyBytes = 4096;

void add(std::atomic<uint64_t>& counter, uint64_t v) { counter.fetch_add(v, std::memory_order_relaxed); }

}  // namespace

EndCost end_cost(const NetParams& p, size_t n) {
  EndCost c;
  c.packets = n == 0 ? 1 : (n + p.mtu - 1) / p.mtu;
  c.occupancy_ns = c.packets * p.occupancy_ns;
  // n bytes at B MB/s take n / (B * 1e6) s = n * 1000 / B ns.
  if (p.bandwidth_mbs != 0) c.bandwidth_ns = (static_cast<uint64_t>(n) * 1000 + p.bandwidth_mbs - 1) / p.bandwidth_mbs;
  return c;
}

uint64_t fetch_injected_ns(const NetParams& p, bool one_sided, size_t request, size_t reply) {
  const uint64_t back = 2 * end_cost(p, reply).total() + 2 * p.latency_ns;
  if (one_sided) return p.overhead_ns + 2 * end_cost(p, kOneSidedRequestBytes).total() + back;
  return 2 * p.overhead_ns + 2 * p.interrupt_ns + 2 * end_cost(p, request).total() + back;
}

uint64_t NiLine::reserve(uint64_t now, uint64_t service) {
  uint64_t free = free_at_->load(std::memory_order_relaxed);
  for (;;) {
    const uint64_t start = free > now ? free : now;
    if (free_at_->compare_exchange_weak(free, start + service, std::memory_order_acq_rel, std::memory_order_relaxed))
      return start;
  }
}

NetModel::~NetModel() {
  if (shared_ != nullptr) munmap(shared_, kSharedBytes);
}

Status NetModel::init(const NetParams& params, const NodeTopology& node) {
  node_ = &node;
  out_.attach(&own_free_[0]);
  in_.attach(&own_free_[1]);
  configure(params);
  if (!params.enabled || !node.sharing() || node.local_size() < 2) return Status::Ok();
  // One pair of lines per node: every process offers a page, all map the
  // first process's.
  int fd = memfd_create("scopedsm-net", MFD_CLOEXEC);
  if (fd >= 0 && ftruncate(fd, kSharedBytes) != 0) {
    close(fd);
    fd = -1;
  }
  std::vector<int> fds;
  Status s = node.exchange_fds(fd, &fds);
  if (fd >= 0) close(fd);
  if (s.ok()) {
    void* p = mmap(nullptr, kSharedBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fds[0], 0);
    if (p != MAP_FAILED) {
      shared_ = p;
      auto* lines = static_cast<std::atomic<uint64_t>*>(p);
      out_.attach(&lines[0]);
      in_.attach(&lines[1]);
    }
    for (int f : fds) close(f);
  }
  if (shared_ == nullptr)
    log_message(LogLevel::kWarn, "SCOPEDSM_NET: this node's processes cannot share network lines (%s); each "
                "process models its own", s.ok() ? "mmap failed" : s.message().c_str());
  return Status::Ok();
}

void NetModel::configure(const NetParams& p) {
  overhead_ns_.store(p.overhead_ns, std::memory_order_relaxed);
  occupancy_ns_.store(p.occupancy_ns, std::memory_order_relaxed);
  mtu_.store(p.mtu, std::memory_order_relaxed);
  bandwidth_mbs_.store(p.bandwidth_mbs, std::memory_order_relaxed);
  latency_ns_.store(p.latency_ns, std::memory_order_relaxed);
  interrupt_ns_.store(p.interrupt_ns, std::memory_order_relaxed);
  spin_extension_ns_.store(p.enabled ? fetch_injected_ns(p, false, kTypicalRequestBytes, kTypicalReplyBytes) : 0,
                           std::memory_order_relaxed);
  enabled_.store(p.enabled, std::memory_order_release);
}

NetParams NetModel::params() const {
  NetParams p;
  p.enabled = enabled();
  p.overhead_ns = overhead_ns_.load(std::memory_order_relaxed);
  p.occupancy_ns = occupancy_ns_.load(std::memory_order_relaxed);
  p.mtu = mtu_.load(std::memory_order_relaxed);
  p.bandwidth_mbs = bandwidth_mbs_.load(std::memory_order_relaxed);
  p.latency_ns = latency_ns_.load(std::memory_order_relaxed);
  p.interrupt_ns = interrupt_ns_.load(std::memory_order_relaxed);
  return p;
}

uint64_t NetModel::on_send(int dest, size_t n) {
  if (!crosses(dest)) return 0;
  const NetParams p = params();
  if (p.overhead_ns != 0) spin_until_ns(now_ns() + p.overhead_ns);
  const EndCost c = end_cost(p, n);
  const uint64_t now = now_ns();
  const uint64_t start = out_.reserve(now, c.total());
  add(counters_.msgs, 1);
  add(counters_.packets, c.packets);
  add(counters_.overhead_ns, p.overhead_ns);
  add(counters_.occupancy_ns, c.occupancy_ns);
  add(counters_.bandwidth_ns, c.bandwidth_ns);
  add(counters_.latency_ns, p.latency_ns);
  add(counters_.queue_ns, start - now);
  return start + c.total() + p.latency_ns;
}

void NetModel::on_receive(int source, Tag tag, size_t n) {
  if (!crosses(source)) return;
  const NetParams p = params();
  const EndCost c = end_cost(p, n);
  const uint64_t now = now_ns();
  const uint64_t start = in_.reserve(now, c.total());
  uint64_t until = start + c.total();
  add(counters_.occupancy_ns, c.occupancy_ns);
  add(counters_.bandwidth_ns, c.bandwidth_ns);
  add(counters_.queue_ns, start - now);
  if (tag == kTagRequest) {
    until += 2 * p.interrupt_ns;
    add(counters_.interrupts, 1);
    add(counters_.interrupt_ns, 2 * p.interrupt_ns);
  }
  spin_until_ns(until);
}

void NetModel::on_one_sided(int target, size_t n) {
  if (!crosses(target)) return;
  const NetParams p = params();
  const EndCost request = end_cost(p, kOneSidedRequestBytes);
  const EndCost reply = end_cost(p, n);
  uint64_t now = now_ns();
  if (p.overhead_ns != 0) spin_until_ns(now += p.overhead_ns);
  // Our outgoing line for the request, the link, the home's two lines
  // (uncontended: another node's), the link again, our incoming line.
  const uint64_t out_start = out_.reserve(now, request.total());
  const uint64_t arrives = out_start + request.total() + p.latency_ns + request.total() + reply.total() + p.latency_ns;
  const uint64_t in_start = in_.reserve(arrives, reply.total());
  spin_until_ns(in_start + reply.total());
  add(counters_.one_sided, 1);
  add(counters_.packets, request.packets + reply.packets);
  add(counters_.overhead_ns, p.overhead_ns);
  add(counters_.occupancy_ns, 2 * (request.occupancy_ns + reply.occupancy_ns));
  add(counters_.bandwidth_ns, 2 * (request.bandwidth_ns + reply.bandwidth_ns));
  add(counters_.latency_ns, 2 * p.latency_ns);
  add(counters_.queue_ns, (out_start - now) + (in_start - arrives));
}

}  // namespace scopedsm
