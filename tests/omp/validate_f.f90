! Fortran under scopedsm-fc -fopenmp: !$omp directives on module
! variables, allocatable arrays, COMMON blocks and the main program's own
! arrays, with the omp_lib routines and locks.
!
!   validate_f     prints "validate_f: ok (T threads)" or the failures
module shared_data
  implicit none
  integer, parameter :: n = 2000
  double precision :: field(n)
  double precision, allocatable :: work(:)
  integer :: hits(n)
end module shared_data

program validate_f
  use omp_lib
  use shared_data
  implicit none
  integer :: i, threads, failures, counter, in_critical, single_runs, bad
  integer :: tp_value
  double precision :: total, biggest
  integer(kind=omp_lock_kind) :: lock
  common /block/ counter
  common /tpblock/ tp_value
  !$omp threadprivate(/tpblock/)

  failures = 0
  threads = 1
  allocate(work(n))
  do i = 1, n
    work(i) = dble(i)
  end do
  hits = 0
  counter = 0
  in_critical = 0
  single_runs = 0

  !$omp parallel private(i)
  !$omp master
  threads = omp_get_num_threads()
  !$omp end master
  !$omp do schedule(dynamic, 7)
  do i = 1, n
    field(i) = 2.0d0 * work(i)
    !$omp atomic
    hits(i) = hits(i) + 1
  end do
  !$omp end do
  !$omp critical
  in_critical = in_critical + 1
  !$omp end critical
  !$omp atomic
  counter = counter + 1
  !$omp single
  single_runs = single_runs + 1
  !$omp end single
  !$omp end parallel

  do i = 1, n
    if (field(i) /= 2.0d0 * i .or. hits(i) /= 1) failures = failures + 1
  end do
  if (failures /= 0) print '(a, i0, a)', 'validate_f: FAILED: ', failures, ' elements of a module array'
  if (in_critical /= threads) then
    print '(a)', 'validate_f: FAILED: critical'
    failures = failures + 1
  end if
  if (counter /= threads) then
    print '(a)', 'validate_f: FAILED: atomic on a COMMON block'
    failures = failures + 1
  end if
  if (single_runs /= 1) then
    print '(a)', 'validate_f: FAILED: single'
    failures = failures + 1
  end if

  total = 0
  biggest = 0
  !$omp parallel do reduction(+:total) reduction(max:biggest) schedule(guided)
  do i = 1, n
    total = total + work(i)
    biggest = max(biggest, work(i))
  end do
  !$omp end parallel do
  if (total /= dble(n) * (n + 1) / 2 .or. biggest /= dble(n)) then
    print '(a)', 'validate_f: FAILED: reduction'
    failures = failures + 1
  end if

  call omp_init_lock(lock)
  counter = 0
  !$omp parallel private(i)
  do i = 1, 20
    call omp_set_lock(lock)
    counter = counter + 1
    call omp_unset_lock(lock)
  end do
  !$omp end parallel
  call omp_destroy_lock(lock)
  if (counter /= 20 * threads) then
    print '(a)', 'validate_f: FAILED: omp_set_lock'
    failures = failures + 1
  end if

  tp_value = 5
  bad = 0
  !$omp parallel copyin(/tpblock/) reduction(+:bad)
  if (tp_value /= 5) bad = bad + 1
  tp_value = 10 + omp_get_thread_num()
  !$omp end parallel
  if (bad /= 0) then
    print '(a)', 'validate_f: FAILED: threadprivate COMMON with copyin'
    failures = failures + 1
  end if

  deallocate(work)
  if (failures == 0) print '(a, i0, a)', 'validate_f: ok (', threads, ' threads)'
  if (failures /= 0) stop 1
end program validate_f
