! Jacobi iteration on an n x n grid with the module scopedsm: two shared
! real(8) grids, u and v, each process updating its block of columns from
! one into the other, a barrier after each sweep. Each new point depends
! only on the old grid, so the result does not depend on how the columns
! are divided: rank 0 repeats the sweeps alone on private grids and the
! two must be equal bit for bit. Each process leaves the largest change
! of its last sweep in a shared real(4) array, one entry per process,
! after a next-touch point on it (scopedsm_next_touch).
program jacobi_modern
  use scopedsm
  use, intrinsic :: iso_c_binding, only: c_size_t
  implicit none
  integer, parameter :: n = 96, iters = 30
  real(8), pointer :: u(:, :), v(:, :)
  real(4), pointer :: change(:)
  real(8), allocatable :: p(:, :), q(:, :)
  real(8) :: dmax, d
  integer :: it, me, np, cols, jbeg, jend

  call scopedsm_init()
  me = scopedsm_rank()
  np = scopedsm_size()
  cols = (n + np - 1) / np
  call scopedsm_alloc(u, n + 2, n + 2, block=(n + 2) * cols)
  call scopedsm_alloc(v, n + 2, n + 2, block=(n + 2) * cols)
  call scopedsm_alloc(change, np)
  jbeg = 2 + me * cols
  jend = min(n + 1, 1 + (me + 1) * cols)
  if (me == 0) then
    call boundary(u)
    call boundary(v)
  end if
  call scopedsm_barrier()
  ! The binding of a next-touch point (collective): change's page moves
  ! to whoever touches it next; the result must not change.
  call scopedsm_next_touch(change, int(size(change), c_size_t) * 4_c_size_t)

  do it = 1, iters
    if (mod(it, 2) == 1) then
      call sweep(u, v, jbeg, jend, dmax)
    else
      call sweep(v, u, jbeg, jend, dmax)
    end if
    call scopedsm_barrier()
  end do
  change(me + 1) = real(dmax, 4)
  call scopedsm_barrier()

  if (me == 0) then
    allocate(p(n + 2, n + 2), q(n + 2, n + 2))
    p = 0
    q = 0
    call boundary(p)
    call boundary(q)
    do it = 1, iters
      if (mod(it, 2) == 1) then
        call sweep(p, q, 2, n + 1, d)
      else
        call sweep(q, p, 2, n + 1, d)
      end if
    end do
    if (any(u /= p) .or. any(v /= q)) call scopedsm_error("jacobi: verification FAILED: grid")
    if (maxval(change) /= real(d, 4)) call scopedsm_error("jacobi: verification FAILED: change")
    print '(a, es10.3, a, i0, a)', 'jacobi: last change ', d, ', ok on ', np, ' processes'
  end if
  call scopedsm_finalize()

contains

  ! The top edge is held at 1, the others at 0.
  subroutine boundary(g)
    real(8), intent(inout) :: g(:, :)
    g(1, :) = 1
  end subroutine

  ! new(:, jbeg:jend) from old; dmax is the largest change.
  subroutine sweep(old, new, jbeg, jend, dmax)
    real(8), intent(in) :: old(:, :)
    real(8), intent(inout) :: new(:, :)
    integer, intent(in) :: jbeg, jend
    real(8), intent(out) :: dmax
    integer :: i, j
    dmax = 0
    do j = jbeg, jend
      do i = 2, n + 1
        new(i, j) = 0.25d0 * (old(i - 1, j) + old(i + 1, j) + old(i, j - 1) + old(i, j + 1))
        dmax = max(dmax, abs(new(i, j) - old(i, j)))
      end do
    end do
  end subroutine
end program
