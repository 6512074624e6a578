! A Fortran 77 program in JIAJIA's style that ends without jia_exit, as
! JIAJIA's own examples did: when every process reaches the end of the
! program this is a clean, implicit jia_exit (statistics printed, exit
! status 0). Each process writes its rank into its own slot of a shared
! array; after the barrier rank 0 checks every slot, so a lost write or a
! process that did not take part fails the run.
      program noexitf77
      include 'jiaf.h'
      integer slots(64)
      pointer (pslots, slots)
      integer i

      call jiaf_init()
      pslots = jia_alloc(%val(4 * 64))
      call jia_barrier()
      slots(jiapid + 1) = jiapid + 100
      call jia_barrier()
      if (jiapid .eq. 0) then
        do i = 1, jiahosts
          if (slots(i) .ne. i + 99) then
            print '(a,i3)', 'noexit: wrong slot ', i
            stop 1
          end if
        end do
        print '(a)', 'noexit: every slot written'
      end if
      end
