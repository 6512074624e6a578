! Matrix multiply c = a * b with the module scopedsm. a, b and c are
! shared real(8) n x n arrays whose homes are blocks of columns (block=),
! one block per process; each process computes its block of columns of c
! and of cs, the same product in real(4), and marks each column it did
! in a shared integer array. Rank 0 then multiplies alone and compares.
! The entries are small integers, so every sum is exact in both
! precisions and the products must be equal.
program mm_modern
  use scopedsm
  implicit none
  integer, parameter :: n = 64
  real(8), pointer :: a(:, :), b(:, :), c(:, :)
  real(4), pointer :: cs(:, :)
  integer, pointer :: who(:)
  real(8) :: s
  integer :: i, j, me, np, cols

  call scopedsm_init()
  me = scopedsm_rank()
  np = scopedsm_size()
  cols = (n + np - 1) / np
  call scopedsm_alloc(a, n, n, block=n * cols)
  call scopedsm_alloc(b, n, n, block=n * cols)
  call scopedsm_alloc(c, n, n, block=n * cols)
  call scopedsm_alloc(cs, n, n, block=n * cols)
  call scopedsm_alloc(who, n)
  if (me == 0) then
    do j = 1, n
      do i = 1, n
        a(i, j) = mod(i + 2 * j, 7)
        b(i, j) = mod(3 * i + j, 5) - 2
      end do
    end do
  end if
  call scopedsm_barrier()

  do j = me * cols + 1, min(n, (me + 1) * cols)
    do i = 1, n
      c(i, j) = sum(a(i, :) * b(:, j))
      cs(i, j) = sum(real(a(i, :), 4) * real(b(:, j), 4))
    end do
    who(j) = me + 1
  end do
  call scopedsm_barrier()

  if (me == 0) then
    do j = 1, n
      if (who(j) /= (j - 1) / cols + 1) call scopedsm_error("mm: verification FAILED: columns")
      do i = 1, n
        s = dot_product(a(i, :), b(:, j))
        if (s /= c(i, j) .or. real(s, 4) /= cs(i, j)) call scopedsm_error("mm: verification FAILED: product")
      end do
    end do
    print '(a, i0, a)', 'mm: ok on ', np, ' processes'
  end if
  call scopedsm_finalize()
end program
