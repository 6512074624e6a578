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
  use, intrinsic :: iso_c_binding, only: c_ptr, c_int, c_int64_t, c_double, c_float, c_char, c_size_t, &
                                         c_f_pointer
  implicit none
  private

  public :: scopedsm_init, scopedsm_finalize, scopedsm_rank, scopedsm_size, scopedsm_time
  public :: scopedsm_barrier, scopedsm_wait, scopedsm_lock, scopedsm_unlock, scopedsm_next_touch
  public :: scopedsm_cv_set, scopedsm_cv_reset, scopedsm_cv_wait
  public :: scopedsm_num_locks, scopedsm_num_condvars, scopedsm_alloc, scopedsm_error

  ! Allocation into a typed pointer array: scopedsm_alloc(a, n1[, n2][, block, start_rank]).
  interface scopedsm_alloc
    module procedure alloc_r8_1, alloc_r8_2, alloc_r4_1, alloc_r4_2, alloc_i4_1, alloc_i4_2, alloc_i8_1, alloc_i8_2
  end interface

  ! The library's entry points: the C API's own (include/scopedsm.h) where
  ! Fortran can call it as it is, the module's (src/api/fortran_api.cc)
  ! for initialization, allocation and errors.
  interface
    subroutine scopedsm_init() bind(c, name="scopedsm_f_init")
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
