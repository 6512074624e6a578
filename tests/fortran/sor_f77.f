! Red-black successive over-relaxation in JIAJIA's Fortran style: the
! grid in shared memory through a Cray pointer, the columns dealt out
! in contiguous blocks (jia_divtask), each half-sweep ended by a
! barrier. A point of one colour depends only on points of the other,
! so the result does not depend on how the columns are divided: rank 0
! repeats the sweeps alone on a private grid, and the two must be equal
! bit for bit. The largest change of the last sweep is reduced under a
! lock (jia_lock / jia_unlock with %val ids).
      program sorf77
      include 'jiaf.h'
      integer n, iters
      parameter (n = 96, iters = 20)
      double precision g(0:n+1, 0:n+1), h(0:n+1, 0:n+1), change
      pointer (pg, g), (pch, change)
      integer i, j, it, jbeg, jend
      double precision omega, d, mine
      parameter (omega = 1.5d0)

      call jiaf_init()
      pg = jia_alloc3(%val(8 * (n + 2) * (n + 2)),
     &                %val(8 * (n + 2) * ((n + 2) / jiahosts)), %val(0))
      pch = jia_alloc(%val(8))
      jbeg = 1
      jend = n
      call jia_divtask(jbeg, jend)
      if (jiapid .eq. 0) call setup(g, n)
      call jia_barrier()

      do it = 1, iters
        call sweep(g, n, 0, jbeg, jend, omega, mine)
        call jia_barrier()
        call sweep(g, n, 1, jbeg, jend, omega, d)
        mine = max(mine, d)
        if (it .eq. iters) then
          call jia_lock(%val(1))
          change = max(change, mine)
          call jia_unlock(%val(1))
        end if
        call jia_barrier()
      end do

      if (jiapid .eq. 0) then
        call setup(h, n)
        d = 0.0d0
        do it = 1, iters
          call sweep(h, n, 0, 1, n, omega, mine)
          call sweep(h, n, 1, 1, n, omega, d)
          mine = max(mine, d)
        end do
        do j = 0, n + 1
          do i = 0, n + 1
            if (g(i, j) .ne. h(i, j))
     &        call jia_error('sor_f77: verification FAILED (grid)')
          end do
        end do
        if (change .ne. mine)
     &    call jia_error('sor_f77: verification FAILED (change)')
        print '(a, es10.3, a, i0, a)', 'sor_f77: last change ',
     &    change, ', ok on ', jiahosts, ' processes'
      end if
      call jia_exit()
      end

! The boundary is 1 on one edge and 0 elsewhere; the inside starts at 0.
      subroutine setup(g, n)
      integer n, i, j
      double precision g(0:n+1, 0:n+1)
      do j = 0, n + 1
        do i = 0, n + 1
          g(i, j) = 0.0d0
        end do
        g(0, j) = 1.0d0
      end do
      end

! One half-sweep over columns jbeg..jend: the points whose i + j has
! the parity `colour`. dmax is the largest change made.
      subroutine sweep(g, n, colour, jbeg, jend, omega, dmax)
      integer n, colour, jbeg, jend, i, j
      double precision g(0:n+1, 0:n+1), omega, dmax, new
      dmax = 0.0d0
      do j = jbeg, jend
        do i = 1, n
          if (mod(i + j, 2) .eq. colour) then
            new = 0.25d0 * (g(i-1, j) + g(i+1, j) + g(i, j-1)
     &                      + g(i, j+1))
            new = g(i, j) + omega * (new - g(i, j))
            dmax = max(dmax, abs(new - g(i, j)))
            g(i, j) = new
          end if
        end do
      end do
      end
