// PageSource: where a faulting process gets a page homed elsewhere. The
// seam between the coherence engine (which decides that a page must be
// fetched) and the ways a page can travel:
//
//   NodeCopySource  the home is on this node: copy the page straight from
//                   the home's memory. No message, no wait for the home's
//                   threads, whatever they are doing.
//   MessageSource   any home: GETP to the home's service thread (or its
//                   application thread, when that one is waiting), which
//                   answers with the page. The fallback that always works.
//
// Every source records the copy at the home (HomeShare::record_copy) before
// the page is read, so adaptive write detection sees every copy whichever
// way it travelled. Coherence::source_for chooses the source per home.
//
// Contract: fetch() runs on the application thread, usually inside the
// SIGSEGV handler. It may call MPI and allocate, because a fault in the
// region is always raised by application code, never inside MPI or malloc
// (runtime/fault_handler.h says why).
#pragma once

#include <cstddef>
#include <cstdint>

#include "memory/region.h"
#include "transport/node.h"
#include "transport/transport.h"

namespace scopedsm {

class PageSource {
 public:
  virtual ~PageSource() = default;
  virtual const char* name() const = 0;
  // Copies `page`, homed at `home`, into `dst` (this process's memory of the
  // page, not the application's view). `epoch` is the caller's barrier epoch.
  virtual void fetch(uint64_t page, int home, uint32_t epoch, std::byte* dst) = 0;
};

class NodeCopySource final : public PageSource {
 public:
  // `skip_record` is a negative control only (SCOPEDSM_TEST_FAULT=skip-node-record).
  NodeCopySource(const Region* region, const NodeTopology* node, bool skip_record)
      : region_(region), node_(node), skip_record_(skip_record) {}
  const char* name() const override { return "node-copy"; }
  void fetch(uint64_t page, int home, uint32_t epoch, std::byte* dst) override;

 private:
  const Region* region_;
  const NodeTopology* node_;
  const bool skip_record_;
};

class MessageSource final : public PageSource {
 public:
  MessageSource(Transport* transport, size_t page_size) : t_(transport), page_size_(page_size) {}
  const char* name() const override { return "message"; }
  void fetch(uint64_t page, int home, uint32_t epoch, std::byte* dst) override;

 private:
  Transport* t_;
  size_t page_size_;
};

}  // namespace scopedsm
