// The shared region: one range of virtual addresses, reserved at the same
// address in every process, backed by a memfd, or with
// SCOPEDSM_HOME_BACKING=file:DIR by a file on local disk (out-of-core homes).
//
// The file is created with O_TMPFILE, so it never has a name, or where the
// file system refuses that, created under a unique name and unlinked at once
// (before anything is mapped): either way the kernel frees it at any kind
// of exit, SIGKILL included, and node peers still reach it through
// /proc/<pid>/fd as they reach a memfd. Disk blocks are reserved
// (fallocate) before a page is first written: for home pages when they are
// placed, for cached copies when they are fetched. A full disk is then an
// error at that point, never a SIGBUS when the page is written. The
// kernel's read-around is off (MADV_RANDOM on every view): a fault reads
// one page, and scopedsm_prefetch reads ahead (read_ahead).
//
// The application sees the region through the "app view", whose per-page
// protection is the coherence state (no access = invalid, read = clean,
// read-write = writable). The runtime reads and writes page contents through
// a second mapping of the same memfd, the "alias view", which is always
// read-write. So the service thread can install fetched pages and apply
// diffs without ever opening a window in which the application could write
// an unprotected page.
//
// The memfd holds, after the pages, this process's HomeShare (what others
// record when they copy its home pages). Processes on the same node map each
// other's memfds whole (map_peers): a page homed at a node peer is copied
// straight from the peer's memory and diffs are applied straight into it.
//
// Every protection change goes through protect() (PageProtection, which
// the page state machine drives), and protect() keeps count of the
// protection boundaries between neighbouring pages. Each boundary costs the
// kernel one VMA and vm.max_map_count caps them; the budget is that limit
// less the mappings the process already has and a margin of 2048, and the
// page state machine relieves the pressure when a transition goes over it.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/status.h"
#include "memory/home_share.h"
#include "memory/page_protection.h"
#include "memory/page_table.h"

namespace scopedsm {


// Copies `n` bytes without AddressSanitizer's checks: an OpenMP program's
// globals are copied whole, redzones between them included.
void copy_image(void* dst, const void* src, size_t n);

// Where Region::reserve puts the region of an OpenMP program.
struct RegionFixedPlace {
  uintptr_t base = 0;    // 0: choose an address
  uint64_t replace = 0;  // bytes at base that may be mapped already
};

class Region final : public PageProtection {
 public:
  Region() = default;
  ~Region();
  Region(const Region&) = delete;
  Region& operator=(const Region&) = delete;

  // Collective: chooses an address free in every process and maps the region
  // there with no access. Its "pages" are coherence units of `unit_pages`
  // OS pages each (SCOPEDSM_UNIT_PAGES): page_size() is the unit's bytes,
  // and every page number, protection change and copy is by unit.
  // `backing_dir` empty: a memfd; else a file in that directory.
  // `fixed` (an OpenMP program, omp/image.h): the region starts at
  // fixed.base instead, replacing the fixed.replace bytes mapped there (the
  // program's shared globals, which the caller has saved); the rest of the
  // range must be free in every process.
  using FixedPlace = RegionFixedPlace;
  Status reserve(MPI_Comm comm, uint64_t bytes, uint32_t unit_pages = 1, const std::string& backing_dir = {},
                 FixedPlace fixed = {});
  void release();
  // Frees the memory but keeps the address range reserved with no access,
  // so a later touch still faults at a recognizable address. Pages [0,
  // keep_pages) stay mapped, read-write, with what this process's view of
  // them holds (an OpenMP program's globals and master stack, which the
  // program's exit handlers may still use on its master, omp/).
  void retire(uint64_t keep_pages = 0);

  std::byte* base() const { return base_; }
  uint64_t bytes() const { return bytes_; }
  // The coherence unit in bytes: the protocol's page.
  size_t page_size() const { return page_size_; }
  // The operating system's page, of which a unit holds one or more.
  size_t os_page_size() const { return os_page_size_; }
  uint64_t num_pages() const { return num_pages_; }
  bool contains(const void* addr) const {
    auto a = reinterpret_cast<uintptr_t>(addr);
    auto b = reinterpret_cast<uintptr_t>(base_);
    return a >= b && a - b < bytes_;
  }
  uint64_t page_of(const void* addr) const {
    return (reinterpret_cast<uintptr_t>(addr) - reinterpret_cast<uintptr_t>(base_)) / page_size_;
  }
  std::byte* app(uint64_t page) const { return base_ + page * page_size_; }
  std::byte* alias(uint64_t page) const { return alias_ + page * page_size_; }

  // This process's memfd (or backing file), to hand to node peers (NodeTopology::exchange_fds).
  int memfd() const { return memfd_; }
  // Maps the memfds of the node's processes, one per local index (`fds[own]`
  // is ours and is not mapped again). Takes ownership of the descriptors.
  Status map_peers(const std::vector<int>& fds, int own);
  // The memory of local process `local` (its home pages), and its HomeShare.
  std::byte* peer_page(int local, uint64_t page) const { return peers_[static_cast<size_t>(local)] + page * page_size_; }
  const HomeShare& peer_share(int local) const { return peer_shares_[static_cast<size_t>(local)]; }
  // Our own HomeShare.
  const HomeShare& share() const { return share_; }
  // Our memory of every page (the alias view's start) and our HomeShare's
  // bytes, for exposing them to one-sided access (transport/rma.h).
  std::byte* alias_base() const { return alias_; }
  std::byte* share_base() const { return share_map_; }
  uint64_t share_bytes() const { return file_bytes_ - bytes_; }

  // PageProtection: the app view's protections. protect() applies any
  // change mprotect accepts, over the budget too.
  Status protect(uint64_t first, uint64_t count, Prot prot) override;
  Prot prot(uint64_t page) const override { return static_cast<Prot>(prots_[page]); }
  bool fits_budget(uint64_t first, uint64_t count, Prot prot) const override;
  const void* address(uint64_t page) const override { return app(page); }

  // OpenMP programs (omp/image.h): pages [first, first + count) of the app
  // view become private read-write memory holding `bytes` bytes of
  // `contents` (zeros after), apart from the region, until unshadow maps
  // the region back there with the protections the pages' states give
  // (prot()). Meanwhile nothing may change those pages' protections. For
  // the program's globals in the processes that do not run main, while the
  // program's static constructors run there.
  Status shadow(uint64_t first, uint64_t count, const void* contents, size_t bytes);
  Status unshadow(uint64_t first, uint64_t count);

  // Drops the memory behind a page; it reads as zeros afterwards.
  void discard(uint64_t first, uint64_t count);

  // File backing: whether the region lives in a file, and what to call the
  // file in messages ("an unnamed file (O_TMPFILE) in DIR" or the path it
  // had before it was unlinked).
  bool file_backed() const { return file_backed_; }
  const std::string& backing_name() const { return backing_name_; }
  // File backing: reserves disk blocks for pages [first, first + count), so
  // that writing them can never fail; an error names the errno. No-op (and
  // no system call) for a memfd.
  Status preallocate(uint64_t first, uint64_t count) const;
  // File backing: asks the kernel to read in ahead of use the pages of
  // [first, first + count) for which `wanted(page)` holds: one mincore for
  // the range, one madvise WILLNEED per run of wanted pages not resident.
  // Returns those pages. The read-ahead itself is asynchronous.
  uint64_t read_ahead(uint64_t first, uint64_t count, const std::function<bool(uint64_t)>& wanted) const;
  // File backing: gives the memory of pages [first, first + count) back to
  // the kernel; their contents stay in the file (unmapped from both views,
  // written back and dropped from the page cache when clean).
  void give_back(uint64_t first, uint64_t count) const;

  // Protection boundaries in use and the most the budget allows.
  uint64_t boundaries() const override { return boundaries_; }
  uint64_t boundary_budget() const override { return budget_; }
  // Test only (scopedsm_test_set_map_budget): replaces the budget; 0 puts
  // back the one reserve() computed. Returns the budget replaced.
  uint64_t set_boundary_budget(uint64_t budget);

 private:
  void unmap_peers();
  // reserve() at fixed.base; collective.
  Status map_fixed(MPI_Comm comm, FixedPlace fixed);
  // File backing: turns the kernel's read-around off for a view of a region file.
  void no_read_around(std::byte* view) const;
  // Maps the HomeShare part of a region memfd (after the pages), or nullptr.
  std::byte* map_share(int fd) const;
  // The boundaries protect(first, count, prot) would leave in use.
  uint64_t boundaries_after(uint64_t first, uint64_t count, Prot prot) const;

  std::byte* base_ = nullptr;
  std::byte* alias_ = nullptr;
  uint8_t* prots_ = nullptr;  // one Prot per page, lazily backed
  uint64_t bytes_ = 0;
  uint64_t num_pages_ = 0;
  size_t page_size_ = 4096;
  size_t os_page_size_ = 4096;
  int memfd_ = -1;              // the memfd or the backing file
  bool file_backed_ = false;
  std::string backing_name_;
  uint64_t file_bytes_ = 0;   // pages + HomeShare
  std::byte* share_map_ = nullptr;  // our HomeShare's own mapping
  HomeShare share_;
  std::vector<std::byte*> peers_;  // per local index; ours is alias_
  std::vector<std::byte*> peer_share_maps_;  // per local index; ours is share_map_
  std::vector<HomeShare> peer_shares_;
  uint64_t boundaries_ = 0;
  uint64_t budget_ = 0;
  uint64_t reserved_budget_ = 0;  // the budget reserve() computed
};

}  // namespace scopedsm
