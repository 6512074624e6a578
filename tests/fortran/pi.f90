! pi by the midpoint rule with the module scopedsm: each process sums its
! share of the intervals, then adds it to a shared real(8) under a lock,
! and counts itself in a shared integer. Rank 0 integrates again alone
! and compares: the sums are added in another order, so to within 1e-12;
! and pi itself to within 1e-9.
program pi_modern
  use scopedsm
  implicit none
  integer, parameter :: n = 1000000
  real(8), pointer :: total(:)
  integer, pointer :: count(:)
  real(8) :: h, x, part, seq
  integer :: i, me, np, per

  call scopedsm_init()
  me = scopedsm_rank()
  np = scopedsm_size()
  call scopedsm_alloc(total, 1)
  call scopedsm_alloc(count, 1)

  h = 1.0d0 / n
  per = (n + np - 1) / np
  part = 0
  do i = me * per + 1, min(n, (me + 1) * per)
    x = h * (i - 0.5d0)
    part = part + 4 / (1 + x * x)
  end do
  call scopedsm_lock(0)
  total(1) = total(1) + h * part
  count(1) = count(1) + 1
  call scopedsm_unlock(0)
  call scopedsm_barrier()

  if (me == 0) then
    seq = 0
    do i = 1, n
      x = h * (i - 0.5d0)
      seq = seq + 4 / (1 + x * x)
    end do
    seq = h * seq
    if (count(1) /= np) call scopedsm_error("pi: verification FAILED: count")
    if (abs(total(1) - seq) > 1.0d-12) call scopedsm_error("pi: verification FAILED: sum")
    if (abs(total(1) - acos(-1.0d0)) > 1.0d-9) call scopedsm_error("pi: verification FAILED: pi")
    if (scopedsm_time() < 0) call scopedsm_error("pi: verification FAILED: time")
    print '(a, f17.15, a, i0, a)', 'pi: pi = ', total(1), ', ok on ', np, ' processes'
  end if
  call scopedsm_finalize()
end program
