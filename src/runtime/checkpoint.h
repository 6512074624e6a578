// Checkpoints of the shared space, and restart from them
// (docs/RELIABILITY.md, "Checkpoints").
//
// The contract.
//  * take() runs right after a barrier, on every process (scopedsm_checkpoint
//    is that barrier and this). After the barrier every write made before it
//    is in its home's memory, so each process saves only the pages homed at
//    it, and the registered private buffers, into a new generation
//    directory. A second rendezvous follows once every process's files are
//    written and synced; then rank 0 writes the manifest (the allocation
//    table and every process's index file, with sizes and checksums) to a
//    temporary name, syncs it and renames it over `manifest`. The rename
//    makes the generation current: a process killed before it leaves the
//    previous manifest, whose files nothing has touched, current.
//  * Incremental: a process writes only the home pages that may have
//    changed since its last checkpoint (Coherence::visit_home_pages says
//    which, and why that is correct); its index references the unchanged
//    ones where an earlier generation's data file holds them. A data file
//    is deleted only once no current index references it.
//  * Checksums (CRC-32C): the manifest's own, each index file's (in the
//    manifest and at its end), and every page's (in the index). Nothing of
//    a checkpoint is used before its checksum is checked.
//  * Restart (open() with SCOPEDSM_RESTART): at init, before the program
//    runs on, rank 0 reads the manifest and every process checks its index
//    and reads its home pages into its memory, checking each. Any problem
//    (a missing, truncated or damaged file, another process count, page
//    size or region size) ends the job with one line naming the file. The
//    program then makes its allocations again in the same order:
//    on_allocation checks each against the table and gives its pages the
//    homes they had (home migration and first touch included); those pages
//    already hold the data. register_buffer restores the registered buffers
//    in registration order.
//
// File layout under the directory (SCOPEDSM_CHECKPOINT_DIR):
//   manifest                     the current checkpoint (text; last line its CRC)
//   gen-NNNNNN/rank-R.index      process R's home pages: page, generation,
//                                offset, CRC each; its buffers; a CRC trailer
//   gen-NNNNNN/rank-R.data       the pages it wrote in that generation
//
// Thread owner: the application thread.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/config.h"
#include "common/surface.h"
#include "memory/region.h"
#include "protocol/coherence.h"
#include "sync/sync_client.h"

namespace scopedsm {

class Checkpoints {
 public:
  // Collective over `comm` (the runtime's own communicator, whose ranks
  // are the job's), at init. Rank 0 chooses the directory
  // (SCOPEDSM_CHECKPOINT_DIR, or "<program>.checkpoint" in its current
  // directory) for everyone. With SCOPEDSM_RESTART, loads the checkpoint
  // as the contract says, or ends the job naming what is wrong; `init`
  // names the init call in those messages.
  void open(MPI_Comm comm, const Config* config, int rank, int size, Region* region, const char* program,
            const char* init);

  // The sequence number of the checkpoint restarted from, 0 on a fresh start.
  uint64_t restarted() const { return restarted_; }

  // Every allocation (and guard page) in order, before its pages are
  // placed. On a restart, one the checkpoint made too must match it
  // (else the job ends naming `call_text`), and then true is returned:
  // its pages get home_of_saved's homes, and restored() follows.
  bool on_allocation(const std::string& call_text, uint64_t first, uint64_t pages, bool guard);
  // The home page `page` had in the checkpoint restarted from (kHomeUnknown
  // for a first-touch page nobody had touched).
  int32_t saved_home(uint64_t page) const;

  // scopedsm_checkpoint_register: [addr, addr + len) is saved with every
  // checkpoint; on a restart, the n-th registration gets what the n-th
  // saved, which must have the same length.
  void register_buffer(ApiCall call, void* addr, size_t len);

  // The checkpoint, right after the barrier (see the contract).
  void take(ApiCall call, SyncClient& sync, Coherence& coherence);

  const std::string& directory() const { return dir_; }

  // Where a page's data is: generation `gen`'s data file, at `offset`.
  struct Entry {
    uint32_t page = 0;
    uint32_t gen = 0;
    uint64_t offset = 0;
    uint32_t crc = 0;
    uint32_t pad = 0;
  };
  struct AllocRecord {
    uint64_t first = 0;
    uint64_t pages = 0;
    bool guard = false;
  };

 private:
  std::string gen_dir(uint64_t gen) const;
  std::string index_path(uint64_t gen, int rank) const;
  std::string data_path(uint64_t gen, int rank) const;
  // Restart: rank 0's manifest, checked, to every process; then our index
  // and pages.
  void load(const char* init);
  // Deletes this process's files that the current checkpoint no longer needs.
  void collect_garbage();
  // Test hook SCOPEDSM_TEST_CHECKPOINT_KILL: SIGKILL at `point` of checkpoint `seq`.
  void maybe_die(uint64_t seq, const char* point) const;

  MPI_Comm comm_ = MPI_COMM_NULL;  // the runtime's own (open()); every collective here is over it
  const Config* config_ = nullptr;
  int rank_ = 0;
  int size_ = 1;
  Region* region_ = nullptr;
  std::string dir_;
  uint64_t seq_ = 0;        // the current checkpoint's sequence number (0: none)
  uint64_t restarted_ = 0;
  std::vector<Entry> index_;  // our home pages in the current checkpoint, by page
  std::vector<AllocRecord> allocs_;        // this run's allocations, in order
  std::vector<AllocRecord> saved_allocs_;  // the restarted checkpoint's
  std::vector<int32_t> saved_homes_;       // per page of the restarted checkpoint
  std::vector<std::vector<std::byte>> saved_buffers_;
  std::vector<std::pair<void*, size_t>> buffers_;
};

}  // namespace scopedsm
