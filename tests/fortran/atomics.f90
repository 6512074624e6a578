! Atomics at the home through the module scopedsm, on every type it takes
! (integer(4), integer(8), real(4), real(8)) and every operation: every
! process adds, exchanges, compares and exchanges, takes minima and maxima,
! sets, clears and flips bits, and loads and stores, on words homed on the
! last rank; the totals must come out exact (counts below 2**24, so the
! reals add exactly too), and the old values fetch_add returned must be
! each of 0 .. total - 1 once (their sum). A release store and acquire loads
! pass a plain write from rank 0 to the others. Under the test fault
! atomic-torn (load, yield, store at the home) updates are lost and the
! check fails (fortran.atomics.fault.np2).
program atomics
  use, intrinsic :: iso_c_binding, only: c_int32_t, c_int64_t, c_float, c_double
  use scopedsm
  implicit none
  integer, parameter :: n = 2000
  integer(c_int32_t), pointer :: k4(:)
  integer(c_int64_t), pointer :: k8(:)
  real(c_float), pointer :: r4(:)
  real(c_double), pointer :: r8(:), msg(:)
  integer(c_int64_t) :: old8, sum8, expected8, total
  integer(c_int32_t) :: old4
  real(c_float) :: oldr4
  real(c_double) :: oldr8, expectedr8
  integer :: i, me, np

  call scopedsm_init()
  me = scopedsm_rank()
  np = scopedsm_size()
  call scopedsm_alloc(k4, 8, block=8, start_rank=np - 1)
  call scopedsm_alloc(k8, 8, block=8, start_rank=np - 1)
  call scopedsm_alloc(r4, 8, block=8, start_rank=np - 1)
  call scopedsm_alloc(r8, 8, block=8, start_rank=np - 1)
  call scopedsm_alloc(msg, 1)
  if (me == 0) then
    k4(4) = huge(k4(4))
    r4(4) = huge(r4(4))
    r8(4) = huge(r8(4))
    k8(5) = -1_c_int64_t
  end if
  call scopedsm_barrier()

  ! fetch_add on every type; the integer(8) olds are summed.
  sum8 = 0
  do i = 1, n
    old4 = scopedsm_atomic_fetch_add(k4(1), 1_c_int32_t)
    old8 = scopedsm_atomic_fetch_add(k8(1), 1_c_int64_t, SCOPEDSM_ORDER_RELAXED)
    oldr4 = scopedsm_atomic_fetch_add(r4(1), 1.0_c_float)
    oldr8 = scopedsm_atomic_fetch_add(r8(1), 1.0_c_double, SCOPEDSM_ORDER_ACQ_REL)
    sum8 = sum8 + old8
  end do
  old8 = scopedsm_atomic_fetch_add(k8(2), sum8)
  ! compare_exchange loops: n increments each, on integer(8) and real(8).
  do i = 1, n
    expected8 = scopedsm_atomic_load(k8(3))
    do while (.not. scopedsm_atomic_compare_exchange(k8(3), expected8, expected8 + 1))
    end do
    expectedr8 = scopedsm_atomic_load(r8(3), SCOPEDSM_ORDER_ACQUIRE)
    do while (.not. scopedsm_atomic_compare_exchange(r8(3), expectedr8, expectedr8 + 1, SCOPEDSM_ORDER_ACQ_REL))
    end do
  end do
  ! Minima, maxima, bits, exchange.
  old4 = scopedsm_atomic_fetch_min(k4(4), int(me + 5, c_int32_t))
  old8 = scopedsm_atomic_fetch_max(k8(4), int(me, c_int64_t))
  oldr4 = scopedsm_atomic_fetch_min(r4(4), real(me + 5, c_float))
  oldr8 = scopedsm_atomic_fetch_min(r8(4), real(me + 5, c_double))
  oldr8 = scopedsm_atomic_fetch_max(r8(5), real(me, c_double))
  old4 = scopedsm_atomic_fetch_max(k4(5), int(me, c_int32_t))
  old8 = scopedsm_atomic_fetch_and(k8(5), not(ishft(1_c_int64_t, me)))
  old8 = scopedsm_atomic_fetch_or(k8(6), ishft(1_c_int64_t, me))
  old4 = scopedsm_atomic_fetch_xor(k4(6), int(ishft(1, me), c_int32_t))
  old4 = scopedsm_atomic_fetch_or(k4(7), int(ishft(1, me), c_int32_t))
  old4 = scopedsm_atomic_fetch_and(k4(7), not(0_c_int32_t))
  old8 = scopedsm_atomic_fetch_xor(k8(7), ishft(1_c_int64_t, me))
  old8 = scopedsm_atomic_exchange(k8(8), int(me + 1, c_int64_t))
  oldr4 = scopedsm_atomic_exchange(r4(5), real(me + 1, c_float))
  call scopedsm_barrier()

  total = int(n, c_int64_t) * np
  if (k4(1) /= total .or. k8(1) /= total) call scopedsm_error("atomics: verification FAILED: integer fetch_add")
  if (r4(1) /= real(total, c_float) .or. r8(1) /= real(total, c_double)) &
    call scopedsm_error("atomics: verification FAILED: real fetch_add")
  if (k8(2) /= total * (total - 1) / 2) call scopedsm_error("atomics: verification FAILED: fetch_add's old values")
  if (k8(3) /= total .or. r8(3) /= real(total, c_double)) &
    call scopedsm_error("atomics: verification FAILED: compare_exchange")
  if (k4(4) /= 5 .or. r4(4) /= 5 .or. r8(4) /= 5) call scopedsm_error("atomics: verification FAILED: fetch_min")
  if (k8(4) /= np - 1 .or. k4(5) /= np - 1 .or. r8(5) /= np - 1) &
    call scopedsm_error("atomics: verification FAILED: fetch_max")
  if (k8(5) /= not(ishft(1_c_int64_t, np) - 1) .or. k8(6) /= ishft(1_c_int64_t, np) - 1 .or. &
      k4(6) /= ishft(1, np) - 1 .or. k4(7) /= ishft(1, np) - 1 .or. k8(7) /= ishft(1_c_int64_t, np) - 1) &
    call scopedsm_error("atomics: verification FAILED: fetch_and, fetch_or, fetch_xor")
  if (k8(8) < 1 .or. k8(8) > np .or. r4(5) < 1 .or. r4(5) > np) &
    call scopedsm_error("atomics: verification FAILED: exchange")
  call scopedsm_barrier()

  ! A plain write, published by a release store, seen after an acquire load.
  if (me == 0) then
    msg(1) = 42.5d0
    call scopedsm_atomic_store(k4(8), 1_c_int32_t, SCOPEDSM_ORDER_RELEASE)
  else
    do while (scopedsm_atomic_load(k4(8), SCOPEDSM_ORDER_ACQUIRE) /= 1)
    end do
    if (msg(1) /= 42.5d0) call scopedsm_error("atomics: verification FAILED: release store, acquire load")
  end if
  call scopedsm_barrier()
  if (me == 0) print '(a, i0, a)', 'atomics: ok on ', np, ' processes'
  call scopedsm_finalize()
end program
