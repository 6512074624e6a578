! pi by the midpoint rule, written as JIAJIA's Fortran programs were:
! include 'jiaf.h', Cray pointers to shared memory, %val arguments,
! partial sums added under a lock, common /jia/ for rank and count.
! Rank 0 integrates again alone and compares: the sums are added in
! another order, so to within 1e-12; and pi itself to within 1e-9.
! The partial sums are also added by jia_reduce, and the interval count
! comes from rank 0 by jia_bcast (buffers by reference, the rest %val).
      program pif77
      include 'jiaf.h'
      integer n, i, ibeg, iend, per
      double precision pi, h, x, part, seq, reduced
      real t
      integer count
      pointer (ppi, pi), (pcount, count)
      common /shared/ ppi, pcount

      call jiaf_init()
      ppi = jia_alloc(%val(8))
      pcount = jia_alloc1(%val(4))
      call jia_barrier()

      n = 0
      if (jiapid .eq. 0) n = 1000000
      call jia_bcast(n, %val(4), %val(0))
      h = 1.0d0 / n
      per = (n + jiahosts - 1) / jiahosts
      ibeg = jiapid * per + 1
      iend = min(n, ibeg + per - 1)
      part = 0.0d0
      do i = ibeg, iend
        x = h * (dble(i) - 0.5d0)
        part = part + 4.0d0 / (1.0d0 + x * x)
      end do
      call jia_lock(%val(0))
      pi = pi + h * part
      count = count + 1
      call jia_unlock(%val(0))
      call jia_reduce(part, reduced, %val(1), %val(SUM_DOUBLE), %val(0))
      call jia_barrier()

      if (jiapid .eq. 0) then
        seq = 0.0d0
        do i = 1, n
          x = h * (dble(i) - 0.5d0)
          seq = seq + 4.0d0 / (1.0d0 + x * x)
        end do
        seq = h * seq
        t = jia_clock()
        call check(count .eq. jiahosts, 'count')
        call check(abs(pi - seq) .le. 1.0d-12, 'sum')
        call check(abs(h * reduced - seq) .le. 1.0d-12, 'reduce')
        call check(abs(pi - acos(-1.0d0)) .le. 1.0d-9, 'pi')
        call check(t .ge. 0.0, 'clock')
        print '(a, f17.15, a, i0, a)', 'pi_f77: pi = ', pi,
     &    ', ok on ', jiahosts, ' processes'
      end if
      call jia_exit()
      end

      subroutine check(ok, what)
      include 'jiaf.h'
      logical ok
      character*(*) what
      if (.not. ok) call jia_error('pi_f77: verification FAILED: '
     &  // what)
      end
