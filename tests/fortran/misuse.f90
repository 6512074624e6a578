! Misuse through the module scopedsm, for the death tests: `misuse_f90
! <case>` makes one mistake, which must end the job with one line naming
! the module procedure. If the mistake goes unnoticed the program says so
! and ends normally, and the test fails.
program misuse_f90
  use scopedsm
  implicit none
  character(len=32) :: c
  real(8), pointer :: a(:, :)
  integer, pointer :: k(:)
  integer(8), pointer :: k8(:)
  integer(8) :: private_word, old
  integer :: lo, hi

  call get_command_argument(1, c)
  if (c == 'before_init') print *, scopedsm_rank()
  call scopedsm_init()
  if (c == 'double_init') call scopedsm_init()
  if (c == 'lock_out_of_range') call scopedsm_lock(scopedsm_num_locks())
  if (c == 'cv_out_of_range') call scopedsm_cv_set(-1)
  if (c == 'barrier_in_cs') then
    call scopedsm_lock(1)
    call scopedsm_barrier()
  end if
  if (c == 'alloc_zero_extent') call scopedsm_alloc(a, 10, 0)
  if (c == 'alloc_bad_block') call scopedsm_alloc(k, 10, block=0)
  if (c == 'alloc_start_without_block') call scopedsm_alloc(k, 10, start_rank=0)
  if (c == 'error') call scopedsm_error('stopped on purpose   ')
  ! Atomics and DOALL loops, named as the module names them.
  private_word = 0
  if (c == 'atomic_private') old = scopedsm_atomic_fetch_add(private_word, 1_8)
  if (c == 'atomic_bad_order') then
    call scopedsm_alloc(k8, 4)
    old = scopedsm_atomic_load(k8(1), 7)
  end if
  if (c == 'loop_next_without_init') print *, scopedsm_loop_next(lo, hi)
  if (c == 'loop_bad_schedule') call scopedsm_loop_init(1, 10, 'runtime')
  if (c == 'loop_data_without_stride') then
    call scopedsm_alloc(k, 10)
    call scopedsm_loop_init(1, 10, 'abs', data=k)
  end if
  print '(3a)', "misuse case '", trim(c), "' was not detected"
  call scopedsm_finalize()
end program
