! The Fortran module `scopedsm`: ScopeDSM for modern Fortran.
!
!   program hello
!     use scopedsm
!     real(8), pointer :: a(:, :)
!     call scopedsm_init()
!     call scopedsm_alloc(a, n, n)          ! shared, the same array everywhere
!     ...
!     call scopedsm_lock(0); ...; call scopedsm_unlock(0)
!     call scopedsm_barrier()
!     call scopedsm_finalize()
!   end program
!
! scopedsm_alloc is collective (every process calls it with the same
! arguments in the same order) and associates a pointer array of real(8),
! real(4), integer or integer(8), of rank 1 or 2, with zero-filled shared
! memory. Its pages' homes are dealt one by one over the processes; with
! block= (in elements) blocks of that many elements are dealt round-robin
! from start_rank (default 0), as scopedsm_alloc_cyclic does in C. What
! each synchronization makes visible is in docs/MEMORY_MODEL.md; every
! procedure's C counterpart is in docs/FORTRAN.md.
!
! Misuse (a lock id out of range, a barrier inside a critical section, a
! call before scopedsm_init) ends the job with one line naming the module
! procedure the program called.
module scopedsm
  use, intrinsic :: iso_c_binding, only: c_ptr, c_int, c_int32_t, c_int64_t, c_double, c_float, c_char, c_size_t, &
                                         c_f_pointer, c_long_long
  implicit none
  private

  public :: scopedsm_init, scopedsm_init_comm, scopedsm_finalize, scopedsm_rank, scopedsm_size, scopedsm_time
  public :: scopedsm_barrier, scopedsm_wait, scopedsm_lock, scopedsm_unlock, scopedsm_next_touch
  public :: scopedsm_checkpoint, scopedsm_checkpoint_register, scopedsm_restarted
  public :: scopedsm_cv_set, scopedsm_cv_reset, scopedsm_cv_wait
  public :: scopedsm_num_locks, scopedsm_num_condvars, scopedsm_alloc, scopedsm_error
  public :: scopedsm_loop_init, scopedsm_loop_next, scopedsm_prefetch, scopedsm_release
  public :: scopedsm_atomic_fetch_add, scopedsm_atomic_exchange, scopedsm_atomic_fetch_and, scopedsm_atomic_fetch_or, &
            scopedsm_atomic_fetch_xor, scopedsm_atomic_fetch_min, scopedsm_atomic_fetch_max, &
            scopedsm_atomic_load, scopedsm_atomic_store, scopedsm_atomic_compare_exchange

  ! Memory orders of the atomics (scopedsm_memory_order in scopedsm.h),
  ! named SCOPEDSM_ORDER_*: Fortran is case-insensitive, and
  ! SCOPEDSM_RELEASE would be the hint scopedsm_release. The default is
  ! SCOPEDSM_ORDER_SEQ_CST.
  integer, parameter, public :: SCOPEDSM_ORDER_RELAXED = 0, SCOPEDSM_ORDER_ACQUIRE = 1, SCOPEDSM_ORDER_RELEASE = 2, &
                                SCOPEDSM_ORDER_ACQ_REL = 3, SCOPEDSM_ORDER_SEQ_CST = 4

  ! Atomics at the home on an element of a shared array of integer(4),
  ! integer(8), real(4) or real(8) (docs/FORTRAN.md): each returns the
  ! element's old value, as the C API's scopedsm_atomic_fetch_add_i64 and
  ! the others do; fetch_and, fetch_or and fetch_xor take integers only.
  !   old = scopedsm_atomic_fetch_add(count(1), 1_8)
  !   ok = scopedsm_atomic_compare_exchange(x(i), expected, desired, SCOPEDSM_ORDER_ACQ_REL)
  ! compare_exchange stores desired if the element holds expected's bits
  ! and returns .true.; else it returns .false. and sets expected to the
  ! element's value. load returns the home's value; store sets it.
  interface scopedsm_atomic_fetch_add
    module procedure fetch_add_i4, fetch_add_i8, fetch_add_r4, fetch_add_r8
  end interface
  interface scopedsm_atomic_exchange
    module procedure exchange_i4, exchange_i8, exchange_r4, exchange_r8
  end interface
  interface scopedsm_atomic_fetch_and
    module procedure fetch_and_i4, fetch_and_i8
  end interface
  interface scopedsm_atomic_fetch_or
    module procedure fetch_or_i4, fetch_or_i8
  end interface
  interface scopedsm_atomic_fetch_xor
    module procedure fetch_xor_i4, fetch_xor_i8
  end interface
  interface scopedsm_atomic_fetch_min
    module procedure fetch_min_i4, fetch_min_i8, fetch_min_r4, fetch_min_r8
  end interface
  interface scopedsm_atomic_fetch_max
    module procedure fetch_max_i4, fetch_max_i8, fetch_max_r4, fetch_max_r8
  end interface
  interface scopedsm_atomic_load
    module procedure load_i4, load_i8, load_r4, load_r8
  end interface
  interface scopedsm_atomic_store
    module procedure store_i4, store_i8, store_r4, store_r8
  end interface
  interface scopedsm_atomic_compare_exchange
    module procedure compare_exchange_i4, compare_exchange_i8, compare_exchange_r4, compare_exchange_r8
  end interface

  ! DOALL loops over first..last, inclusive as a DO loop is (integer or
  ! integer(8), both of one kind), shared out in chunks as the processes ask:
  !   call scopedsm_loop_init(1, n, 'dynamic,4')
  !   do while (scopedsm_loop_next(lo, hi))
  !     do i = lo, hi
  !       ...
  !     end do
  !   end do
  !   call scopedsm_barrier()
  ! schedule is SCOPEDSM_SCHEDULE's form (omitted: SCOPEDSM_SCHEDULE's
  ! value); data (the first iteration's data) and stride (the bytes from
  ! one iteration's data to the next's) let the affinity schedules start
  ! each process on the iterations whose data it homes.
  interface scopedsm_loop_init
    module procedure loop_init_i4, loop_init_i8
  end interface
  interface scopedsm_loop_next
    module procedure loop_next_i4, loop_next_i8
  end interface

  ! Allocation into a typed pointer array: scopedsm_alloc(a, n1[, n2][, block, start_rank]).
  interface scopedsm_alloc
    module procedure alloc_r8_1, alloc_r8_2, alloc_r4_1, alloc_r4_2, alloc_i4_1, alloc_i4_2, alloc_i8_1, alloc_i8_2
  end interface

  ! The library's entry points: the C API's own (include/scopedsm.h) where
  ! Fortran can call it as it is, the module's (src/api/fortran_api.cc)
  ! for initialization, allocation and errors.
  ! The `bytes` bytes of `a` (a scalar or an array) are saved with every
  ! checkpoint and, on a restart, restored by this call: register after
  ! giving `a` its initial value (scopedsm_checkpoint_register in scopedsm.h). E.g.
  !   call scopedsm_checkpoint_register(iter, 8_c_size_t)
  interface scopedsm_checkpoint_register
    subroutine scopedsm_checkpoint_register_scalar(a, bytes) bind(c, name="scopedsm_checkpoint_register")
      import :: c_size_t
      type(*), intent(inout) :: a
      integer(c_size_t), value :: bytes
    end subroutine
    subroutine scopedsm_checkpoint_register_array(a, bytes) bind(c, name="scopedsm_checkpoint_register")
      import :: c_size_t
      type(*), dimension(*), intent(inout) :: a
      integer(c_size_t), value :: bytes
    end subroutine
  end interface

  interface
    subroutine scopedsm_init() bind(c, name="scopedsm_f_init")
    end subroutine
    subroutine c_init_comm(comm) bind(c, name="scopedsm_f_init_comm")
      import :: c_int
      integer(c_int), value :: comm
    end subroutine
    subroutine scopedsm_finalize() bind(c, name="scopedsm_finalize")
    end subroutine
    ! This process's rank, 0 .. scopedsm_size() - 1.
    integer(c_int) function scopedsm_rank() bind(c, name="scopedsm_rank")
      import :: c_int
    end function
    integer(c_int) function scopedsm_size() bind(c, name="scopedsm_size")
      import :: c_int
    end function
    ! Seconds since scopedsm_init.
    real(c_double) function scopedsm_time() bind(c, name="scopedsm_time")
      import :: c_double
    end function
    subroutine scopedsm_barrier() bind(c, name="scopedsm_barrier")
    end subroutine
    ! Collective: a next-touch point for the array (or section) `a`, of
    ! `bytes` bytes: each of its pages moves its home to the process that
    ! touches it next (scopedsm_next_touch in scopedsm.h). E.g.
    !   call scopedsm_next_touch(a, size(a, kind=c_size_t) * 8_c_size_t)
    subroutine scopedsm_next_touch(a, bytes) bind(c, name="scopedsm_next_touch")
      import :: c_size_t
      type(*), dimension(*), intent(in) :: a
      integer(c_size_t), value :: bytes
    end subroutine
    ! Collective: a checkpoint of the shared space and the registered
    ! buffers (scopedsm_checkpoint in scopedsm.h); a barrier.
    subroutine scopedsm_checkpoint() bind(c, name="scopedsm_checkpoint")
    end subroutine
    ! The sequence number of the checkpoint this run restarted from; 0 on a fresh start.
    integer(c_long_long) function scopedsm_restarted() bind(c, name="scopedsm_restarted")
      import :: c_long_long
    end function
    ! A rendezvous of all processes with no coherence action.
    subroutine scopedsm_wait() bind(c, name="scopedsm_wait")
    end subroutine
    ! Lock ids are 0 .. scopedsm_num_locks() - 1.
    subroutine scopedsm_lock(id) bind(c, name="scopedsm_lock")
      import :: c_int
      integer(c_int), value :: id
    end subroutine
    subroutine scopedsm_unlock(id) bind(c, name="scopedsm_unlock")
      import :: c_int
      integer(c_int), value :: id
    end subroutine
    ! Condition variables 0 .. scopedsm_num_condvars() - 1 (docs/MEMORY_MODEL.md).
    subroutine scopedsm_cv_set(cv) bind(c, name="scopedsm_cv_set")
      import :: c_int
      integer(c_int), value :: cv
    end subroutine
    subroutine scopedsm_cv_reset(cv) bind(c, name="scopedsm_cv_reset")
      import :: c_int
      integer(c_int), value :: cv
    end subroutine
    subroutine scopedsm_cv_wait(cv) bind(c, name="scopedsm_cv_wait")
      import :: c_int
      integer(c_int), value :: cv
    end subroutine
    integer(c_int) function scopedsm_num_locks() bind(c, name="scopedsm_num_locks")
      import :: c_int
    end function
    integer(c_int) function scopedsm_num_condvars() bind(c, name="scopedsm_num_condvars")
      import :: c_int
    end function
    ! Hints (docs/PROTOCOL.md §2.6): never change results, never fault.
    ! scopedsm_prefetch fetches the pages of `bytes` bytes from the start
    ! of `a` (an array or a section of one, a(i:)) ahead of their use;
    ! scopedsm_release gives their cache slots back, priority 0 first. E.g.
    !   call scopedsm_prefetch(a(i + ahead:), 8_c_size_t * m)
    subroutine scopedsm_prefetch(a, bytes) bind(c, name="scopedsm_prefetch")
      import :: c_size_t
      type(*), dimension(*), intent(in) :: a
      integer(c_size_t), value :: bytes
    end subroutine
    subroutine scopedsm_release(a, bytes, priority) bind(c, name="scopedsm_release")
      import :: c_size_t, c_int
      type(*), dimension(*), intent(in) :: a
      integer(c_size_t), value :: bytes
      integer(c_int), value :: priority
    end subroutine
    subroutine c_atomic(x, type, which, operand, expected, old, order) bind(c, name="scopedsm_f_atomic")
      import :: c_int
      type(*), intent(inout) :: x
      integer(c_int), value :: type, which, order
      type(*), intent(in) :: operand, expected
      type(*), intent(inout) :: old
    end subroutine
    subroutine c_loop_init(first, last, schedule, schedule_len, has_schedule, data, has_data, stride, has_stride) &
        bind(c, name="scopedsm_f_loop_init")
      import :: c_int, c_int64_t, c_char
      integer(c_int64_t), value :: first, last, stride
      character(kind=c_char), intent(in) :: schedule(*)
      integer(c_int), value :: schedule_len, has_schedule, has_data, has_stride
      type(*), dimension(*), intent(in) :: data
    end subroutine
    integer(c_int) function c_loop_next(lo, hi) bind(c, name="scopedsm_f_loop_next")
      import :: c_int, c_int64_t
      integer(c_int64_t), intent(out) :: lo, hi
    end function
    type(c_ptr) function c_alloc(extents, rank, elem_bytes, type, type_len, has_block, block, start_rank) &
        bind(c, name="scopedsm_f_alloc")
      import :: c_ptr, c_int, c_int64_t, c_char
      integer(c_int64_t), intent(in) :: extents(*)
      integer(c_int), value :: rank, elem_bytes, type_len, has_block, start_rank
      character(kind=c_char), intent(in) :: type(*)
      integer(c_int64_t), value :: block
    end function
    subroutine c_error(msg, len) bind(c, name="scopedsm_f_error")
      import :: c_char, c_size_t
      character(kind=c_char), intent(in) :: msg(*)
      integer(c_size_t), value :: len
    end subroutine
  end interface

contains

  ! ScopeDSM inside a program that runs MPI itself (scopedsm_mpi.h in C;
  ! docs/CLUSTER.md): after the program's MPI_Init_thread with
  ! MPI_THREAD_MULTIPLE, on the processes of communicator `comm` (an integer
  ! handle; with mpi_f08, comm%MPI_VAL), whose ranks become ScopeDSM's. The
  ! program calls scopedsm_finalize before its own MPI_Finalize; ScopeDSM
  ! then neither finalizes MPI nor ends the process.
  subroutine scopedsm_init_comm(comm)
    integer, intent(in) :: comm
    call c_init_comm(int(comm, c_int))
  end subroutine

  integer(c_int) function order_of(order)
    integer, intent(in), optional :: order
    order_of = SCOPEDSM_ORDER_SEQ_CST
    if (present(order)) order_of = order
  end function

  function fetch_add_i4(x, v, order) result(old)
    integer(c_int32_t), intent(inout) :: x
    integer(c_int32_t), intent(in) :: v
    integer, intent(in), optional :: order
    integer(c_int32_t) :: old
    call c_atomic(x, 0, 0, v, v, old, order_of(order))
  end function
  function fetch_add_i8(x, v, order) result(old)
    integer(c_int64_t), intent(inout) :: x
    integer(c_int64_t), intent(in) :: v
    integer, intent(in), optional :: order
    integer(c_int64_t) :: old
    call c_atomic(x, 2, 0, v, v, old, order_of(order))
  end function
  function fetch_add_r4(x, v, order) result(old)
    real(c_float), intent(inout) :: x
    real(c_float), intent(in) :: v
    integer, intent(in), optional :: order
    real(c_float) :: old
    call c_atomic(x, 4, 0, v, v, old, order_of(order))
  end function
  function fetch_add_r8(x, v, order) result(old)
    real(c_double), intent(inout) :: x
    real(c_double), intent(in) :: v
    integer, intent(in), optional :: order
    real(c_double) :: old
    call c_atomic(x, 5, 0, v, v, old, order_of(order))
  end function
  function exchange_i4(x, v, order) result(old)
    integer(c_int32_t), intent(inout) :: x
    integer(c_int32_t), intent(in) :: v
    integer, intent(in), optional :: order
    integer(c_int32_t) :: old
    call c_atomic(x, 0, 1, v, v, old, order_of(order))
  end function
  function exchange_i8(x, v, order) result(old)
    integer(c_int64_t), intent(inout) :: x
    integer(c_int64_t), intent(in) :: v
    integer, intent(in), optional :: order
    integer(c_int64_t) :: old
    call c_atomic(x, 2, 1, v, v, old, order_of(order))
  end function
  function exchange_r4(x, v, order) result(old)
    real(c_float), intent(inout) :: x
    real(c_float), intent(in) :: v
    integer, intent(in), optional :: order
    real(c_float) :: old
    call c_atomic(x, 4, 1, v, v, old, order_of(order))
  end function
  function exchange_r8(x, v, order) result(old)
    real(c_double), intent(inout) :: x
    real(c_double), intent(in) :: v
    integer, intent(in), optional :: order
    real(c_double) :: old
    call c_atomic(x, 5, 1, v, v, old, order_of(order))
  end function
  function fetch_and_i4(x, v, order) result(old)
    integer(c_int32_t), intent(inout) :: x
    integer(c_int32_t), intent(in) :: v
    integer, intent(in), optional :: order
    integer(c_int32_t) :: old
    call c_atomic(x, 0, 3, v, v, old, order_of(order))
  end function
  function fetch_and_i8(x, v, order) result(old)
    integer(c_int64_t), intent(inout) :: x
    integer(c_int64_t), intent(in) :: v
    integer, intent(in), optional :: order
    integer(c_int64_t) :: old
    call c_atomic(x, 2, 3, v, v, old, order_of(order))
  end function
  function fetch_or_i4(x, v, order) result(old)
    integer(c_int32_t), intent(inout) :: x
    integer(c_int32_t), intent(in) :: v
    integer, intent(in), optional :: order
    integer(c_int32_t) :: old
    call c_atomic(x, 0, 4, v, v, old, order_of(order))
  end function
  function fetch_or_i8(x, v, order) result(old)
    integer(c_int64_t), intent(inout) :: x
    integer(c_int64_t), intent(in) :: v
    integer, intent(in), optional :: order
    integer(c_int64_t) :: old
    call c_atomic(x, 2, 4, v, v, old, order_of(order))
  end function
  function fetch_xor_i4(x, v, order) result(old)
    integer(c_int32_t), intent(inout) :: x
    integer(c_int32_t), intent(in) :: v
    integer, intent(in), optional :: order
    integer(c_int32_t) :: old
    call c_atomic(x, 0, 5, v, v, old, order_of(order))
  end function
  function fetch_xor_i8(x, v, order) result(old)
    integer(c_int64_t), intent(inout) :: x
    integer(c_int64_t), intent(in) :: v
    integer, intent(in), optional :: order
    integer(c_int64_t) :: old
    call c_atomic(x, 2, 5, v, v, old, order_of(order))
  end function
  function fetch_min_i4(x, v, order) result(old)
    integer(c_int32_t), intent(inout) :: x
    integer(c_int32_t), intent(in) :: v
    integer, intent(in), optional :: order
    integer(c_int32_t) :: old
    call c_atomic(x, 0, 6, v, v, old, order_of(order))
  end function
  function fetch_min_i8(x, v, order) result(old)
    integer(c_int64_t), intent(inout) :: x
    integer(c_int64_t), intent(in) :: v
    integer, intent(in), optional :: order
    integer(c_int64_t) :: old
    call c_atomic(x, 2, 6, v, v, old, order_of(order))
  end function
  function fetch_min_r4(x, v, order) result(old)
    real(c_float), intent(inout) :: x
    real(c_float), intent(in) :: v
    integer, intent(in), optional :: order
    real(c_float) :: old
    call c_atomic(x, 4, 6, v, v, old, order_of(order))
  end function
  function fetch_min_r8(x, v, order) result(old)
    real(c_double), intent(inout) :: x
    real(c_double), intent(in) :: v
    integer, intent(in), optional :: order
    real(c_double) :: old
    call c_atomic(x, 5, 6, v, v, old, order_of(order))
  end function
  function fetch_max_i4(x, v, order) result(old)
    integer(c_int32_t), intent(inout) :: x
    integer(c_int32_t), intent(in) :: v
    integer, intent(in), optional :: order
    integer(c_int32_t) :: old
    call c_atomic(x, 0, 7, v, v, old, order_of(order))
  end function
  function fetch_max_i8(x, v, order) result(old)
    integer(c_int64_t), intent(inout) :: x
    integer(c_int64_t), intent(in) :: v
    integer, intent(in), optional :: order
    integer(c_int64_t) :: old
    call c_atomic(x, 2, 7, v, v, old, order_of(order))
  end function
  function fetch_max_r4(x, v, order) result(old)
    real(c_float), intent(inout) :: x
    real(c_float), intent(in) :: v
    integer, intent(in), optional :: order
    real(c_float) :: old
    call c_atomic(x, 4, 7, v, v, old, order_of(order))
  end function
  function fetch_max_r8(x, v, order) result(old)
    real(c_double), intent(inout) :: x
    real(c_double), intent(in) :: v
    integer, intent(in), optional :: order
    real(c_double) :: old
    call c_atomic(x, 5, 7, v, v, old, order_of(order))
  end function
  function load_i4(x, order) result(v)
    integer(c_int32_t), intent(inout) :: x
    integer, intent(in), optional :: order
    integer(c_int32_t) :: v, none
    none = 0
    call c_atomic(x, 0, 8, none, none, v, order_of(order))
  end function
  function load_i8(x, order) result(v)
    integer(c_int64_t), intent(inout) :: x
    integer, intent(in), optional :: order
    integer(c_int64_t) :: v, none
    none = 0
    call c_atomic(x, 2, 8, none, none, v, order_of(order))
  end function
  function load_r4(x, order) result(v)
    real(c_float), intent(inout) :: x
    integer, intent(in), optional :: order
    real(c_float) :: v, none
    none = 0
    call c_atomic(x, 4, 8, none, none, v, order_of(order))
  end function
  function load_r8(x, order) result(v)
    real(c_double), intent(inout) :: x
    integer, intent(in), optional :: order
    real(c_double) :: v, none
    none = 0
    call c_atomic(x, 5, 8, none, none, v, order_of(order))
  end function
  subroutine store_i4(x, v, order)
    integer(c_int32_t), intent(inout) :: x
    integer(c_int32_t), intent(in) :: v
    integer, intent(in), optional :: order
    integer(c_int32_t) :: old
    call c_atomic(x, 0, 9, v, v, old, order_of(order))
  end subroutine
  subroutine store_i8(x, v, order)
    integer(c_int64_t), intent(inout) :: x
    integer(c_int64_t), intent(in) :: v
    integer, intent(in), optional :: order
    integer(c_int64_t) :: old
    call c_atomic(x, 2, 9, v, v, old, order_of(order))
  end subroutine
  subroutine store_r4(x, v, order)
    real(c_float), intent(inout) :: x
    real(c_float), intent(in) :: v
    integer, intent(in), optional :: order
    real(c_float) :: old
    call c_atomic(x, 4, 9, v, v, old, order_of(order))
  end subroutine
  subroutine store_r8(x, v, order)
    real(c_double), intent(inout) :: x
    real(c_double), intent(in) :: v
    integer, intent(in), optional :: order
    real(c_double) :: old
    call c_atomic(x, 5, 9, v, v, old, order_of(order))
  end subroutine
  function compare_exchange_i4(x, expected, desired, order) result(swapped)
    integer(c_int32_t), intent(inout) :: x, expected
    integer(c_int32_t), intent(in) :: desired
    integer, intent(in), optional :: order
    logical :: swapped
    integer(c_int32_t) :: old
    call c_atomic(x, 0, 2, desired, expected, old, order_of(order))
    swapped = transfer(old, 0_c_int32_t) == transfer(expected, 0_c_int32_t)  ! the bits, as the home compares them
    if (.not. swapped) expected = old
  end function
  function compare_exchange_i8(x, expected, desired, order) result(swapped)
    integer(c_int64_t), intent(inout) :: x, expected
    integer(c_int64_t), intent(in) :: desired
    integer, intent(in), optional :: order
    logical :: swapped
    integer(c_int64_t) :: old
    call c_atomic(x, 2, 2, desired, expected, old, order_of(order))
    swapped = transfer(old, 0_c_int64_t) == transfer(expected, 0_c_int64_t)  ! the bits, as the home compares them
    if (.not. swapped) expected = old
  end function
  function compare_exchange_r4(x, expected, desired, order) result(swapped)
    real(c_float), intent(inout) :: x, expected
    real(c_float), intent(in) :: desired
    integer, intent(in), optional :: order
    logical :: swapped
    real(c_float) :: old
    call c_atomic(x, 4, 2, desired, expected, old, order_of(order))
    swapped = transfer(old, 0_c_int32_t) == transfer(expected, 0_c_int32_t)  ! the bits, as the home compares them
    if (.not. swapped) expected = old
  end function
  function compare_exchange_r8(x, expected, desired, order) result(swapped)
    real(c_double), intent(inout) :: x, expected
    real(c_double), intent(in) :: desired
    integer, intent(in), optional :: order
    logical :: swapped
    real(c_double) :: old
    call c_atomic(x, 5, 2, desired, expected, old, order_of(order))
    swapped = transfer(old, 0_c_int64_t) == transfer(expected, 0_c_int64_t)  ! the bits, as the home compares them
    if (.not. swapped) expected = old
  end function

  subroutine loop_init_i8(first, last, schedule, data, stride)
    integer(c_int64_t), intent(in) :: first, last
    character(len=*), intent(in), optional :: schedule
    type(*), dimension(*), intent(in), optional :: data
    integer, intent(in), optional :: stride
    integer(c_int) :: none(1), has_schedule, has_stride
    integer(c_int64_t) :: s
    has_schedule = 0
    has_stride = 0
    s = 0
    if (present(schedule)) has_schedule = 1
    if (present(stride)) then
      has_stride = 1
      s = stride
    end if
    none = 0
    if (present(schedule) .and. present(data)) then
      call c_loop_init(first, last, schedule, len(schedule), has_schedule, data, 1, s, has_stride)
    else if (present(schedule)) then
      call c_loop_init(first, last, schedule, len(schedule), has_schedule, none, 0, s, has_stride)
    else if (present(data)) then
      call c_loop_init(first, last, "", 0, has_schedule, data, 1, s, has_stride)
    else
      call c_loop_init(first, last, "", 0, has_schedule, none, 0, s, has_stride)
    end if
  end subroutine

  subroutine loop_init_i4(first, last, schedule, data, stride)
    integer(c_int32_t), intent(in) :: first, last
    character(len=*), intent(in), optional :: schedule
    type(*), dimension(*), intent(in), optional :: data
    integer, intent(in), optional :: stride
    call loop_init_i8(int(first, c_int64_t), int(last, c_int64_t), schedule, data, stride)
  end subroutine

  ! This process's next chunk lo..hi (inclusive), .false. when none is left.
  logical function loop_next_i8(lo, hi)
    integer(c_int64_t), intent(out) :: lo, hi
    loop_next_i8 = c_loop_next(lo, hi) /= 0
  end function

  logical function loop_next_i4(lo, hi)
    integer(c_int32_t), intent(out) :: lo, hi
    integer(c_int64_t) :: l, h
    loop_next_i4 = c_loop_next(l, h) /= 0
    lo = int(l, c_int32_t)
    hi = int(h, c_int32_t)
  end function

  ! Ends every process with the message (like scopedsm_fatal in C).
  subroutine scopedsm_error(msg)
    character(len=*), intent(in) :: msg
    call c_error(msg, len(msg, kind=c_size_t))
  end subroutine

  ! The shared memory for an array of the given extents, elements of
  ! elem_bytes bytes; `type` names the element type in reports.
  function shared(extents, elem_bytes, type, block, start_rank) result(p)
    integer, intent(in) :: extents(:), elem_bytes
    character(len=*), intent(in) :: type
    integer, intent(in), optional :: block, start_rank
    type(c_ptr) :: p
    integer(c_int64_t) :: b
    integer(c_int) :: has_block, s
    has_block = 0
    b = 0
    s = -1  ! not given
    if (present(block)) then
      has_block = 1
      b = block
    end if
    if (present(start_rank)) s = start_rank
    p = c_alloc(int(extents, c_int64_t), size(extents), elem_bytes, type, len(type), has_block, b, s)
  end function

  subroutine alloc_r8_1(a, n, block, start_rank)
    real(c_double), pointer, intent(out) :: a(:)
    integer, intent(in) :: n
    integer, intent(in), optional :: block, start_rank
    call c_f_pointer(shared([n], 8, "real(8)", block, start_rank), a, [n])
  end subroutine

  subroutine alloc_r8_2(a, n1, n2, block, start_rank)
    real(c_double), pointer, intent(out) :: a(:, :)
    integer, intent(in) :: n1, n2
    integer, intent(in), optional :: block, start_rank
    call c_f_pointer(shared([n1, n2], 8, "real(8)", block, start_rank), a, [n1, n2])
  end subroutine

  subroutine alloc_r4_1(a, n, block, start_rank)
    real(c_float), pointer, intent(out) :: a(:)
    integer, intent(in) :: n
    integer, intent(in), optional :: block, start_rank
    call c_f_pointer(shared([n], 4, "real(4)", block, start_rank), a, [n])
  end subroutine

  subroutine alloc_r4_2(a, n1, n2, block, start_rank)
    real(c_float), pointer, intent(out) :: a(:, :)
    integer, intent(in) :: n1, n2
    integer, intent(in), optional :: block, start_rank
    call c_f_pointer(shared([n1, n2], 4, "real(4)", block, start_rank), a, [n1, n2])
  end subroutine

  subroutine alloc_i4_1(a, n, block, start_rank)
    integer(c_int), pointer, intent(out) :: a(:)
    integer, intent(in) :: n
    integer, intent(in), optional :: block, start_rank
    call c_f_pointer(shared([n], 4, "integer", block, start_rank), a, [n])
  end subroutine

  subroutine alloc_i4_2(a, n1, n2, block, start_rank)
    integer(c_int), pointer, intent(out) :: a(:, :)
    integer, intent(in) :: n1, n2
    integer, intent(in), optional :: block, start_rank
    call c_f_pointer(shared([n1, n2], 4, "integer", block, start_rank), a, [n1, n2])
  end subroutine

  subroutine alloc_i8_1(a, n, block, start_rank)
    integer(c_int64_t), pointer, intent(out) :: a(:)
    integer, intent(in) :: n
    integer, intent(in), optional :: block, start_rank
    call c_f_pointer(shared([n], 8, "integer(8)", block, start_rank), a, [n])
  end subroutine

  subroutine alloc_i8_2(a, n1, n2, block, start_rank)
    integer(c_int64_t), pointer, intent(out) :: a(:, :)
    integer, intent(in) :: n1, n2
    integer, intent(in), optional :: block, start_rank
    call c_f_pointer(shared([n1, n2], 8, "integer(8)", block, start_rank), a, [n1, n2])
  end subroutine

end module scopedsm
