! Fortran I/O of shared arrays with the module scopedsm: every process
! writes its block of a shared real(8) array of 2 MiB, then rank 0 writes
! the array to files and reads each back into another shared array; after
! a barrier every process checks what arrived.
!
! Two ways libgfortran moves the data. An explicit-shape (or assumed-size)
! array, as a routine receives one, is transferred whole: unformatted, the
! kernel reads and writes the array's own memory (read, write), so its
! pages must be valid for the kernel. With a cache much smaller than the
! array (SCOPEDSM_CACHE_PAGES=16 in CMakeLists.txt) most of them are not,
! until ScopeDSM's interposed calls make them so. A pointer array in the
! I/O list is transferred element by element through libgfortran's
! buffer, with ordinary faulting accesses; formatted I/O always is.
program io_modern
  use scopedsm
  implicit none
  integer, parameter :: n = 262144
  real(8), pointer, contiguous :: a(:), b(:), c(:), d(:), e(:)
  integer :: me, np, per, i
  character(len=256) :: path

  call scopedsm_init()
  me = scopedsm_rank()
  np = scopedsm_size()
  call scopedsm_alloc(a, n)
  call scopedsm_alloc(b, n)
  call scopedsm_alloc(c, n)
  call scopedsm_alloc(d, n)
  call scopedsm_alloc(e, n)
  per = (n + np - 1) / np
  do i = me * per + 1, min(n, (me + 1) * per)
    a(i) = value(i)
  end do
  call scopedsm_barrier()

  if (me == 0) then
    write (path, '(a, i0)') '/tmp/scopedsm-fortran-io-', getpid()
    ! Whole arrays, straight between the array and the kernel.
    call unformatted(a, b, n, 'stream')
    call unformatted(a, c, n, 'sequential')
    ! Through libgfortran's buffer.
    call by_elements(a, d)
    call formatted(a, e, n)
  end if
  call scopedsm_barrier()

  call compare(b, 'unformatted stream')
  call compare(c, 'unformatted sequential')
  call compare(d, 'unformatted, a pointer array')
  call compare(e, 'formatted')
  call scopedsm_barrier()
  if (me == 0) print '(a, i0, a)', 'io: ok on ', np, ' processes'
  call scopedsm_finalize()

contains

  real(8) function value(k)
    integer, intent(in) :: k
    value = k * 0.5d0 + 1
  end function

  subroutine check(status, what)
    integer, intent(in) :: status
    character(len=*), intent(in) :: what
    if (status /= 0) then
      print '(a, a, a, i0)', 'io: verification FAILED: ', what, ': iostat ', status
      call scopedsm_error('io: verification FAILED')
    end if
  end subroutine

  ! Writes x with one unformatted WRITE and reads it back into y with one
  ! READ, `access` 'stream' or 'sequential'.
  subroutine unformatted(x, y, m, access)
    integer, intent(in) :: m
    real(8), intent(in) :: x(m)
    real(8), intent(out) :: y(m)
    character(len=*), intent(in) :: access
    integer :: u, ios
    open (newunit=u, file=trim(path), access=access, form='unformatted', status='replace', iostat=ios)
    call check(ios, 'open ' // access)
    write (u, iostat=ios) x
    call check(ios, 'unformatted ' // access // ' WRITE')
    rewind (u)
    read (u, iostat=ios) y
    call check(ios, 'unformatted ' // access // ' READ')
    close (u, status='delete')
  end subroutine

  subroutine by_elements(x, y)
    real(8), pointer, intent(in) :: x(:)
    real(8), pointer, intent(inout) :: y(:)
    integer :: u, ios
    open (newunit=u, file=trim(path), access='stream', form='unformatted', status='replace', iostat=ios)
    write (u, iostat=ios) x
    call check(ios, 'unformatted WRITE of a pointer array')
    rewind (u)
    read (u, iostat=ios) y
    call check(ios, 'unformatted READ of a pointer array')
    close (u, status='delete')
  end subroutine

  subroutine formatted(x, y, m)
    integer, intent(in) :: m
    real(8), intent(in) :: x(m)
    real(8), intent(out) :: y(m)
    integer :: u, ios
    open (newunit=u, file=trim(path), form='formatted', status='replace', iostat=ios)
    write (u, '(es25.17)', iostat=ios) x
    call check(ios, 'formatted WRITE')
    rewind (u)
    read (u, '(es25.17)', iostat=ios) y
    call check(ios, 'formatted READ')
    close (u, status='delete')
  end subroutine

  subroutine compare(x, what)
    real(8), intent(in) :: x(:)
    character(len=*), intent(in) :: what
    integer :: k, bad
    bad = 0
    do k = 1, n
      if (x(k) /= value(k)) bad = bad + 1
    end do
    if (bad /= 0) then
      print '(a, i0, a, a, a, i0, a)', 'io: rank ', me, ': verification FAILED: ', what, ': ', bad, ' wrong'
      call scopedsm_error('io: verification FAILED')
    end if
  end subroutine

end program
