! ScopeDSM inside an MPI program, from Fortran (the module scopedsm's
! scopedsm_init_comm): ScopeDSM on MPI_COMM_WORLD, which the program's own
! messages use too, on every tag ScopeDSM uses, received late with
! MPI_ANY_SOURCE and MPI_ANY_TAG; a shared array and a locked counter
! checked exactly. A wrong value or message prints
! "comm_mix_f: rank R: wrong ..." and aborts the job.
program comm_mix_f
  use mpi
  use scopedsm
  implicit none
  integer, parameter :: ntags = 24, n = 2000, iters = 3
  integer :: provided, ierr, rank, nprocs, it, t, i, k, next, prev
  integer :: out(3, ntags), in(3), req(ntags), st(MPI_STATUS_SIZE)
  real(8), pointer :: a(:)
  integer(8), pointer :: counter(:)
  integer :: mine, total

  call MPI_Init_thread(MPI_THREAD_MULTIPLE, provided, ierr)
  call scopedsm_init_comm(MPI_COMM_WORLD)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call expect('scopedsm_rank', scopedsm_rank(), rank)
  call expect('scopedsm_size', scopedsm_size(), nprocs)
  next = mod(rank + 1, nprocs)
  prev = mod(rank + nprocs - 1, nprocs)
  call scopedsm_alloc(a, n)
  call scopedsm_alloc(counter, 1)
  do it = 1, iters
    do t = 1, ntags
      out(:, t) = [rank, t - 1, it]
      call MPI_Isend(out(:, t), 3, MPI_INTEGER, next, t - 1, MPI_COMM_WORLD, req(t), ierr)
    end do
    do i = rank + 1, n, nprocs
      a(i) = 1000d0 * it + i
    end do
    call scopedsm_barrier()
    do t = 1, ntags
      call MPI_Recv(in, 3, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, st, ierr)
      call expect('message source', st(MPI_SOURCE), prev)
      call expect('message tag', st(MPI_TAG), t - 1)
      call expect('message content', in(1) * 10000 + in(2) * 100 + in(3), prev * 10000 + (t - 1) * 100 + it)
    end do
    call MPI_Waitall(ntags, req, MPI_STATUSES_IGNORE, ierr)
    do i = 1, n
      call expect('shared a(i)', int(a(i)), 1000 * it + i)
    end do
    do k = 1, 5
      call scopedsm_lock(3)
      counter(1) = counter(1) + 1
      call scopedsm_unlock(3)
    end do
    call scopedsm_barrier()
    call expect('shared counter', int(counter(1)), 5 * nprocs * it)
    mine = rank
    call MPI_Allreduce(mine, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call expect('MPI_Allreduce', total, nprocs * (nprocs - 1) / 2)
  end do
  call scopedsm_finalize()
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a)', 'comm_mix_f: every message and value as expected'
  call MPI_Finalize(ierr)

contains

  subroutine expect(what, got, want)
    character(*), intent(in) :: what
    integer, intent(in) :: got, want
    integer :: e
    if (got == want) return
    write (0, '(a, i0, a, a, a, i0, a, i0)') 'comm_mix_f: rank ', rank, ': wrong ', what, ': got ', got, &
        ', expected ', want
    call MPI_Abort(MPI_COMM_WORLD, 1, e)
  end subroutine

end program
