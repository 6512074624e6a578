! Fortran OpenMP kernels (!$omp directives, a module, allocatable arrays),
! built with gfortran -fopenmp (threads) and scopedsm-fc -fopenmp
! (processes); both must print the same checksum.
!
!   kernels_f NAME [test|bench] [serial|parallel]     NAME: sor, jacobi, mm
module grids
  implicit none
  double precision, allocatable :: a(:, :), b(:, :), c(:, :)
end module grids

program kernels_f
  use omp_lib
  use grids
  implicit none
  character(len=16) :: name, size_arg, init_arg
  integer :: n, iters, i, j, k, it
  logical :: parallel_init, bench
  double precision :: t0, t1, total, resid

  name = ''
  size_arg = 'test'
  init_arg = 'serial'
  if (command_argument_count() >= 1) call get_command_argument(1, name)
  if (command_argument_count() >= 2) call get_command_argument(2, size_arg)
  if (command_argument_count() >= 3) call get_command_argument(3, init_arg)
  bench = size_arg == 'bench'
  parallel_init = init_arg == 'parallel'

  select case (trim(name))
  case ('sor', 'jacobi')
    n = merge(2048, 256, bench)
    iters = merge(20, 4, bench)
    allocate(a(n, n), b(n, n))
    if (parallel_init) then
      !$omp parallel do schedule(static) private(i)
      do j = 1, n
        do i = 1, n
          a(i, j) = mod(i * 7 + j * 3, 11)
          b(i, j) = a(i, j)
        end do
      end do
      !$omp end parallel do
    else
      do j = 1, n
        do i = 1, n
          a(i, j) = mod(i * 7 + j * 3, 11)
          b(i, j) = a(i, j)
        end do
      end do
    end if
    t0 = omp_get_wtime()
    resid = 0
    do it = 1, iters
      if (name == 'sor') then
        do k = 0, 1
          !$omp parallel do schedule(static) private(i)
          do j = 2, n - 1
            do i = 2 + mod(j + k, 2), n - 1, 2
              a(i, j) = 0.25d0 * (a(i - 1, j) + a(i + 1, j) + a(i, j - 1) + a(i, j + 1))
            end do
          end do
          !$omp end parallel do
        end do
      else
        resid = 0
        !$omp parallel do schedule(static) private(i) reduction(+:resid)
        do j = 2, n - 1
          do i = 2, n - 1
            b(i, j) = 0.25d0 * (a(i - 1, j) + a(i + 1, j) + a(i, j - 1) + a(i, j + 1))
            resid = resid + abs(b(i, j) - a(i, j))
          end do
        end do
        !$omp end parallel do
        !$omp parallel do schedule(static) private(i)
        do j = 2, n - 1
          do i = 2, n - 1
            a(i, j) = b(i, j)
          end do
        end do
        !$omp end parallel do
      end if
    end do
    t1 = omp_get_wtime()
    total = sum(a) + resid
  case ('mm')
    n = merge(768, 160, bench)
    allocate(a(n, n), b(n, n), c(n, n))
    if (parallel_init) then
      !$omp parallel do schedule(static) private(i)
      do j = 1, n
        do i = 1, n
          a(i, j) = mod(i + j, 7) - 3
          b(i, j) = mod(i * j, 5) - 2
          c(i, j) = 0
        end do
      end do
      !$omp end parallel do
    else
      do j = 1, n
        do i = 1, n
          a(i, j) = mod(i + j, 7) - 3
          b(i, j) = mod(i * j, 5) - 2
          c(i, j) = 0
        end do
      end do
    end if
    t0 = omp_get_wtime()
    !$omp parallel do schedule(static) private(i, k)
    do j = 1, n
      do k = 1, n
        do i = 1, n
          c(i, j) = c(i, j) + a(i, k) * b(k, j)
        end do
      end do
    end do
    !$omp end parallel do
    t1 = omp_get_wtime()
    total = 0
    do j = 1, n
      do i = 1, n
        total = total + c(i, j) * mod(i + 2 * j, 13)
      end do
    end do
  case default
    print '(a)', 'usage: kernels_f sor|jacobi|mm [test|bench] [serial|parallel]'
    stop 2
  end select
  print '(a, es18.10)', 'checksum ', total
  print '(a, a, a, a, a, a, a, f12.6, a, i0, a)', 'kernel ', trim(name), ' ', trim(size_arg), ' ', trim(init_arg), ': ', &
      t1 - t0, ' s (', omp_get_max_threads(), ' threads)'
end program kernels_f
