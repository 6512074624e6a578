/* ScopeDSM inside an MPI program (scopedsm_mpi.h): the program's own
 * point-to-point and collective traffic mixed with shared-memory phases.
 *
 *   comm_mix all      ScopeDSM on MPI_COMM_WORLD, which the program's own
 *                     messages use too
 *   comm_mix subset   ScopeDSM on the processes MPI_Comm_split puts in
 *                     color 0 (all but the last, in reverse order, so that
 *                     ScopeDSM's ranks are not the world's); the last
 *                     process trades messages with them on MPI_COMM_WORLD
 *                     meanwhile; all meet in the program's MPI_Barrier
 *
 * Every message the program sends carries its source, tag and sequence
 * number, and goes out once on every tag from 0 to kTags - 1 (every tag
 * ScopeDSM uses on its own communicators, and more); receives use
 * MPI_ANY_SOURCE and MPI_ANY_TAG. Some receives are posted late (a service
 * thread on the same communicator would take the message first) and one
 * stays posted across shared-memory phases (it would take ScopeDSM's
 * messages). Shared arrays are checked exactly after every phase. A wrong
 * message or value prints "comm_mix: rank R: wrong ..." and aborts the job.
 * Test fault program-comm (the runtime on the program's communicator
 * itself) must make it fail. */
#include <scopedsm_mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { kTags = 40, kIters = 4, kN = 6000, kLockRounds = 10, kMagic = 0x5eed };

struct msg {
  int magic, from, tag, seq;
  double value;
};

static int g_world_rank;

static void wrong(const char *what, long got, long want) {
  fprintf(stderr, "comm_mix: rank %d: wrong %s: got %ld, expected %ld\n", g_world_rank, what, got, want);
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

static void check(const char *what, long got, long want) {
  if (got != want) wrong(what, got, want);
}

/* Sends one message on every tag to `to` on `comm` (nonblocking). */
static void send_all_tags(MPI_Comm comm, int to, int me, double base, struct msg out[kTags], MPI_Request req[kTags]) {
  for (int t = 0; t < kTags; t++) {
    out[t] = (struct msg){kMagic, me, t, t, base + t};
    MPI_Isend(&out[t], (int)sizeof out[t], MPI_BYTE, to, t, comm, &req[t]);
  }
}

/* Receives them with MPI_ANY_SOURCE and MPI_ANY_TAG: all from `from`, in
 * the order sent (MPI does not let messages of one sender on one
 * communicator overtake each other). */
static void recv_all_tags(MPI_Comm comm, int from, double base) {
  for (int t = 0; t < kTags; t++) {
    struct msg in;
    MPI_Status st;
    MPI_Recv(&in, (int)sizeof in, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st);
    int count = 0;
    MPI_Get_count(&st, MPI_BYTE, &count);
    check("message size", count, (long)sizeof in);
    check("message magic", in.magic, kMagic);
    check("message source", st.MPI_SOURCE, from);
    check("message sender", in.from, from);
    check("message tag", st.MPI_TAG, t);
    check("tag in message", in.tag, t);
    check("message value", (long)in.value, (long)(base + t));
  }
}

/* MPI_Waitall with statuses (GCC reads MPICH's MPI_STATUSES_IGNORE as an
 * empty array). */
static void wait_all(MPI_Request req[kTags]) {
  MPI_Status st[kTags];
  MPI_Waitall(kTags, req, st);
}

/* The shared array's value at i after iteration `it`. */
static double value_at(int it, int i) { return it * 100000.0 + i; }

int main(int argc, char **argv) {
  const int subset = argc > 1 && !strcmp(argv[1], "subset");
  int provided = 0, world_size = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  const int outsider = world_size - 1;

  /* The program's own traffic before ScopeDSM starts (interposed calls
   * with no runtime are the plain ones). */
  {
    struct msg out[kTags];
    MPI_Request req[kTags];
    send_all_tags(MPI_COMM_WORLD, (g_world_rank + 1) % world_size, g_world_rank, -1, out, req);
    recv_all_tags(MPI_COMM_WORLD, (g_world_rank + world_size - 1) % world_size, -1);
    wait_all(req);
  }

  MPI_Comm comm = MPI_COMM_WORLD;
  int inside = 1;
  if (subset) {
    inside = g_world_rank != outsider;
    MPI_Comm_split(MPI_COMM_WORLD, inside ? 0 : MPI_UNDEFINED, world_size - g_world_rank, &comm);
  }

  if (!inside) {
    /* The process left out: its own traffic with the others, on
     * MPI_COMM_WORLD with every tag, while they run ScopeDSM. Each answers
     * with a piece of its shared array. */
    for (int it = 0; it < kIters; it++) {
      for (int r = 0; r < outsider; r++) {
        struct msg out[kTags];
        MPI_Request req[kTags];
        send_all_tags(MPI_COMM_WORLD, r, g_world_rank, it * 1000.0, out, req);
        wait_all(req);
      }
      for (int r = 0; r < outsider; r++) {
        double piece[16];
        MPI_Status st;
        MPI_Recv(piece, 16, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        check("answer tag", st.MPI_TAG, it);
        for (int k = 0; k < 16; k++) check("shared value in an answer", (long)piece[k], (long)value_at(it, k));
      }
    }
  } else {
    scopedsm_init_comm(comm);
    int rank = 0, size = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    check("scopedsm_rank (the rank in the communicator)", scopedsm_rank(), rank);
    check("scopedsm_size", scopedsm_size(), size);
    const int next = (rank + 1) % size, prev = (rank + size - 1) % size;

    double *a = scopedsm_alloc(kN * sizeof(double));
    double *b = scopedsm_alloc(kN * sizeof(double));
    double *c = scopedsm_alloc(64 * sizeof(double));
    long long *counter = scopedsm_alloc_on(sizeof(long long), size - 1);
    const int block = (kN + size - 1) / size;
    const int lo = rank * block, hi = (rank + 1) * block < kN ? (rank + 1) * block : kN;

    for (int it = 0; it < kIters; it++) {
      /* Late receives: the messages wait at this process before it asks
       * for them. */
      {
        struct msg out[kTags];
        MPI_Request req[kTags];
        send_all_tags(comm, next, rank, it * 10.0, out, req);
        usleep(100000);
        recv_all_tags(comm, prev, it * 10.0);
        wait_all(req);
      }
      /* A receive that stays posted across the shared-memory phase. */
      struct msg pending;
      MPI_Request pending_req;
      MPI_Irecv(&pending, (int)sizeof pending, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &pending_req);

      /* Shared memory: each process writes its block, then everyone checks
       * everything; then locked increments of one counter. */
      for (int i = lo; i < hi; i++) a[i] = value_at(it, i);
      scopedsm_barrier();
      for (int i = 0; i < kN; i++) check("shared a[i]", (long)a[i], (long)value_at(it, i));
      for (int k = 0; k < kLockRounds; k++) {
        scopedsm_lock(k % 3);
        scopedsm_lock(7);
        *counter += 1;
        scopedsm_unlock(7);
        scopedsm_unlock(k % 3);
      }
      scopedsm_barrier();
      check("shared counter", (long)*counter, (long)(it + 1) * kLockRounds * size);

      /* The pending receive's message, sent only now. */
      struct msg late = {kMagic, rank, 3, it, 7.0 + it};
      MPI_Send(&late, (int)sizeof late, MPI_BYTE, next, 3, comm);
      MPI_Status st;
      MPI_Wait(&pending_req, &st);
      check("pending message source", st.MPI_SOURCE, prev);
      check("pending message tag", st.MPI_TAG, 3);
      check("pending message magic", pending.magic, kMagic);
      check("pending message sequence", pending.seq, it);

      /* The program's messages on shared buffers: each process's block of
       * a, into the next one's part of b. */
      MPI_Sendrecv(a + lo, hi - lo, MPI_DOUBLE, next, 2, b + prev * block,
                   (prev + 1) * block < kN ? block : kN - prev * block, MPI_DOUBLE, prev, 2, comm,
                   MPI_STATUS_IGNORE);
      scopedsm_barrier();
      for (int i = 0; i < kN; i++) check("b[i] (received into shared memory)", (long)b[i], (long)value_at(it, i));

      /* Collective calls on the same communicator, one into shared memory. */
      long mine = rank + it, sum = 0;
      MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, comm);
      check("MPI_Allreduce", sum, (long)size * (size - 1) / 2 + (long)size * it);
      double root_value = rank == it % size ? 42.0 + it : -1;
      MPI_Bcast(&root_value, 1, MPI_DOUBLE, it % size, comm);
      check("MPI_Bcast", (long)root_value, 42 + it);
      double one = 1.0 + it;
      MPI_Allreduce(&one, &c[rank], 1, MPI_DOUBLE, MPI_SUM, comm);
      MPI_Barrier(comm);
      scopedsm_barrier();
      for (int r = 0; r < size; r++) check("c[r] (an MPI_Allreduce into shared memory)", (long)c[r], (long)size * (1 + it));

      /* The process left out asks for a piece of a (sent from shared memory). */
      if (subset) {
        recv_all_tags(MPI_COMM_WORLD, outsider, it * 1000.0);
        MPI_Send(a, 16, MPI_DOUBLE, outsider, it, MPI_COMM_WORLD);
      }
      scopedsm_barrier();
    }
    scopedsm_finalize();
    /* After finalize: the program's MPI as before, ScopeDSM's communicators gone. */
    int after = rank, total = 0;
    MPI_Allreduce(&after, &total, 1, MPI_INT, MPI_SUM, comm);
    check("MPI_Allreduce after scopedsm_finalize", total, (long)size * (size - 1) / 2);
    if (subset) MPI_Comm_free(&comm);
  }

  MPI_Barrier(MPI_COMM_WORLD);
  {
    struct msg out[kTags];
    MPI_Request req[kTags];
    send_all_tags(MPI_COMM_WORLD, (g_world_rank + 1) % world_size, g_world_rank, -2, out, req);
    recv_all_tags(MPI_COMM_WORLD, (g_world_rank + world_size - 1) % world_size, -2);
    wait_all(req);
  }
  if (g_world_rank == 0) printf("comm_mix: %s: every message and value as expected\n", subset ? "subset" : "all");
  MPI_Finalize();
  return 0;
}
