! Matrix multiply c = a * b in JIAJIA's Fortran style: the three
! matrices in shared memory through Cray pointers kept in a common
! block, placed by jia_alloc3 in blocks of columns, each process
! computing the columns j = jiapid + 1, jiapid + 1 + jiahosts, ... in
! a subroutine of its own. Rank 0 then multiplies alone and compares.
! The entries are small integers, so every sum is exact and the two
! products must be equal.
      program mmf77
      include 'jiaf.h'
      integer n
      parameter (n = 64)
      double precision a(n, n), b(n, n), c(n, n), s
      pointer (pa, a), (pb, b), (pc, c)
      common /shared/ pa, pb, pc
      integer i, j, k, bytes, block

      call jiaf_init()
      bytes = 8 * n * n
      block = bytes / jiahosts
      pa = jia_alloc3(%val(bytes), %val(block), %val(0))
      pb = jia_alloc3(%val(bytes), %val(block), %val(0))
      pc = jia_alloc3(%val(bytes), %val(block), %val(0))
      if (jiapid .eq. 0) then
        do j = 1, n
          do i = 1, n
            a(i, j) = dble(mod(i + 2 * j, 7))
            b(i, j) = dble(mod(3 * i + j, 5) - 2)
          end do
        end do
      end if
      call jia_barrier()

      call worker(n)
      call jia_barrier()

      if (jiapid .eq. 0) then
        do j = 1, n
          do i = 1, n
            s = 0.0d0
            do k = 1, n
              s = s + a(i, k) * b(k, j)
            end do
            if (s .ne. c(i, j))
     &        call jia_error('mm_f77: verification FAILED')
          end do
        end do
        print '(a, i0, a)', 'mm_f77: ok on ', jiahosts, ' processes'
      end if
      call jia_exit()
      end

      subroutine worker(n)
      include 'jiaf.h'
      integer n
      double precision a(n, n), b(n, n), c(n, n), s
      pointer (pa, a), (pb, b), (pc, c)
      common /shared/ pa, pb, pc
      integer i, j, k
      do j = jiapid + 1, n, jiahosts
        do i = 1, n
          s = 0.0d0
          do k = 1, n
            s = s + a(i, k) * b(k, j)
          end do
          c(i, j) = s
        end do
      end do
      end
