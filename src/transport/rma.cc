#include "transport/rma.h"

#include <sched.h>

#include <string>

#include "common/clock.h"

namespace scopedsm {

namespace {

// The neighbour a reader of parity != `phase` reads from in the probe: the
// next rank if it is away in this phase, else the previous one.
int probe_target(int rank, int size, int phase) {
  const int next = (rank + 1) % size;
  return next % 2 == phase ? next : (rank + size - 1) % size;
}

std::string mpi_error_text(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, text, &len);
  return std::string(text, static_cast<size_t>(len));
}

}  // namespace

Status RmaWindows::create(MPI_Comm comm, void* pages, uint64_t page_bytes, void* share, uint64_t share_bytes) {
  comm_ = comm;
  // Failures come back as codes here, not as the default abort, so the
  // caller can fall back to messages.
  MPI_Errhandler previous;
  MPI_Comm_get_errhandler(comm, &previous);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  MPI_Win pw = MPI_WIN_NULL, sw = MPI_WIN_NULL;
  int rc = MPI_Win_create(pages, static_cast<MPI_Aint>(page_bytes), 1, MPI_INFO_NULL, comm, &pw);
  int rc2 = rc == MPI_SUCCESS
                ? MPI_Win_create(share, static_cast<MPI_Aint>(share_bytes), 1, MPI_INFO_NULL, comm, &sw)
                : rc;
  int ok = rc2 == MPI_SUCCESS ? 1 : 0, all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
  MPI_Comm_set_errhandler(comm, previous);
  MPI_Errhandler_free(&previous);
  if (!all) {
    if (sw != MPI_WIN_NULL) MPI_Win_free(&sw);
    if (pw != MPI_WIN_NULL) MPI_Win_free(&pw);
    return Status::Error(ok ? std::string("another process could not create its MPI windows")
                            : "MPI_Win_create failed: " + mpi_error_text(rc2));
  }
  // The unified memory model is what lets a home read and write its pages
  // with plain loads and stores while others access them one-sided.
  int* model = nullptr;
  int found = 0;
  MPI_Win_get_attr(pw, MPI_WIN_MODEL, &model, &found);
  int unified = found && *model == MPI_WIN_UNIFIED ? 1 : 0, all_unified = 0;
  MPI_Allreduce(&unified, &all_unified, 1, MPI_INT, MPI_MIN, comm);
  if (!all_unified) {
    MPI_Win_free(&sw);
    MPI_Win_free(&pw);
    return Status::Error("the MPI windows use the separate memory model, not the unified one");
  }
  MPI_Win_lock_all(MPI_MODE_NOCHECK, pw);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, sw);
  pages_win_ = pw;
  share_win_ = sw;
  return Status::Ok();
}

bool RmaWindows::probe(std::atomic<uint32_t>* probe_word, uint64_t probe_disp, double budget_s) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm_, &rank);
  MPI_Comm_size(comm_, &size);
  if (size < 2) return true;
  const auto disp = static_cast<MPI_Aint>(probe_disp);
  uint32_t got = 0;
  // Warm-up while everybody is in MPI: first contact may set things up.
  for (int t : {(rank + 1) % size, (rank + size - 1) % size}) {
    MPI_Get(&got, 4, MPI_BYTE, t, disp, 4, MPI_BYTE, share_win_);
    MPI_Win_flush(t, share_win_);
  }
  int ok = 1;
  for (int phase = 0; phase < 2; ++phase) {
    probe_word->store(0);
    MPI_Barrier(comm_);
    if (rank % 2 == phase) {
      // Away from MPI: wait for every neighbour that reads from us to write
      // its byte of the probe word, or for the budget to run out.
      uint32_t expect = 0;
      for (int r = 0; r < size; ++r) {
        if (r % 2 == phase || probe_target(r, size, phase) != rank) continue;
        expect |= (r == (rank + size - 1) % size ? 0x1u : 0x100u);  // the byte it writes 1 to
      }
      const uint64_t end = now_ns() + static_cast<uint64_t>(budget_s * 1e9);
      while ((probe_word->load() & expect) != expect) {
        if (now_ns() > end) {
          ok = 0;
          break;
        }
        sched_yield();
      }

    } else {
      const int t = probe_target(rank, size, phase);
      MPI_Get(&got, 4, MPI_BYTE, t, disp, 4, MPI_BYTE, share_win_);
      MPI_Win_flush(t, share_win_);
      const uint8_t one = 1;
      const MPI_Aint byte = disp + (t == (rank + 1) % size ? 0 : 1);
      MPI_Put(&one, 1, MPI_BYTE, t, byte, 1, MPI_BYTE, share_win_);
      MPI_Win_flush(t, share_win_);
    }
  }
  probe_word->store(0);
  int all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm_);
  return all != 0;
}

void RmaWindows::get_page(void* dst, size_t n, int target, uint64_t disp, MPI_Request* req) const {
  MPI_Rget(dst, static_cast<int>(n), MPI_BYTE, target, static_cast<MPI_Aint>(disp), static_cast<int>(n), MPI_BYTE,
           pages_win_, req);
}

void RmaWindows::get_share(void* dst, size_t n, int target, uint64_t disp, MPI_Request* req) const {
  MPI_Rget(dst, static_cast<int>(n), MPI_BYTE, target, static_cast<MPI_Aint>(disp), static_cast<int>(n), MPI_BYTE,
           share_win_, req);
}

void RmaWindows::put_share_flushed(const void* src, size_t n, int target, uint64_t disp) const {
  MPI_Put(src, static_cast<int>(n), MPI_BYTE, target, static_cast<MPI_Aint>(disp), static_cast<int>(n), MPI_BYTE,
          share_win_);
  MPI_Win_flush(target, share_win_);
}

void RmaWindows::free() {
  if (pages_win_ == MPI_WIN_NULL) return;
  MPI_Win_unlock_all(share_win_);
  MPI_Win_unlock_all(pages_win_);
  MPI_Win_free(&share_win_);
  MPI_Win_free(&pages_win_);
}

}  // namespace scopedsm
