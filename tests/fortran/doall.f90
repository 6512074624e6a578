! DOALL loops through the module scopedsm: iterations first..last,
! inclusive as in a DO loop, shared out under several schedules (the
! environment's, static, OpenMP's dynamic,4 and guided, gss, and abs with
! the data and stride that place each process on the iterations it homes),
! with integer and integer(8) bounds. Every iteration must be handed out
! exactly once (each adds 1 to its own element) and inside the bounds; an
! empty loop hands out nothing. The hints scopedsm_prefetch and
! scopedsm_release run on the array and change nothing.
program doall
  use, intrinsic :: iso_c_binding, only: c_int32_t, c_int64_t, c_size_t
  use scopedsm
  implicit none
  integer, parameter :: n = 5000
  integer(c_int32_t), pointer :: hits(:)
  character(len=16), parameter :: schedules(5) = [character(len=16) :: 'static', 'dynamic,4', 'guided', 'gss', &
                                                  'nonmonotonic:ss']
  integer :: lo, hi, i, s, me, np, rounds
  integer(c_int64_t) :: lo8, hi8

  call scopedsm_init()
  me = scopedsm_rank()
  np = scopedsm_size()
  call scopedsm_alloc(hits, n)
  rounds = 0

  ! The environment's schedule (SCOPEDSM_SCHEDULE), then each named one.
  call scopedsm_loop_init(1, n)
  call take_all()
  do s = 1, size(schedules)
    call scopedsm_loop_init(1, n, trim(schedules(s)))
    call take_all()
  end do
  ! Affinity: iteration i's data is hits(i), 4 bytes further each time.
  call scopedsm_loop_init(1, n, 'abs', hits, 4)
  call take_all()
  call scopedsm_loop_init(1, n, data=hits, stride=4)
  call take_all()
  ! integer(8) bounds.
  call scopedsm_loop_init(1_c_int64_t, int(n, c_int64_t), 'bss,16')
  do while (scopedsm_loop_next(lo8, hi8))
    if (lo8 < 1 .or. hi8 > n .or. lo8 > hi8) call scopedsm_error("doall: verification FAILED: integer(8) chunk bounds")
    do i = int(lo8), int(hi8)
      hits(i) = hits(i) + 1
    end do
  end do
  rounds = rounds + 1
  call check()
  ! An empty loop: last below first.
  call scopedsm_loop_init(5, 4, 'ss')
  if (scopedsm_loop_next(lo, hi)) call scopedsm_error("doall: verification FAILED: an empty loop handed out a chunk")
  call scopedsm_barrier()
  ! Hints never change results.
  call scopedsm_prefetch(hits, 4_c_size_t * n)
  call scopedsm_release(hits(1:), 4_c_size_t * n, 0)
  call check()
  if (me == 0) print '(a, i0, a)', 'doall: ok on ', np, ' processes'
  call scopedsm_finalize()

contains

  subroutine take_all()
    do while (scopedsm_loop_next(lo, hi))
      if (lo < 1 .or. hi > n .or. lo > hi) call scopedsm_error("doall: verification FAILED: chunk bounds")
      do i = lo, hi
        hits(i) = hits(i) + 1
      end do
    end do
    rounds = rounds + 1
    call check()
  end subroutine

  subroutine check()
    call scopedsm_barrier()
    do i = 1, n
      if (hits(i) /= rounds) call scopedsm_error("doall: verification FAILED: an iteration not handed out exactly once")
    end do
    call scopedsm_barrier()
  end subroutine
end program
