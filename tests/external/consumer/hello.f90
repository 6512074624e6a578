! Every process writes its slot of a shared integer array; after a
! barrier, every process checks all slots. Uses the module scopedsm, whose
! .mod file and library reach this program only through the package's
! Fortran component.
program hello_f90
  use scopedsm
  implicit none
  integer, pointer :: slots(:)
  integer :: me, n, r
  logical :: ok

  call scopedsm_init()
  me = scopedsm_rank()
  n = scopedsm_size()
  call scopedsm_alloc(slots, n)
  slots(me + 1) = 100 + me
  call scopedsm_barrier()
  ok = .true.
  do r = 0, n - 1
    ok = ok .and. slots(r + 1) == 100 + r
  end do
  call scopedsm_barrier()
  if (.not. ok) call scopedsm_error("hello_f90: wrong contents")
  if (me == 0) print '(a, i0, a)', 'hello_f90: ok on ', n, ' processes'
  call scopedsm_finalize()
end program
