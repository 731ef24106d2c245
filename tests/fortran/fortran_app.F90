! An ordinary Fortran MPI program that knows nothing of collx (built with
! the MPI's mpifort, no collx library): the tests run it with
! LD_PRELOAD=libcollx_pmpi.so. It calls every collective, with MPI_IN_PLACE
! wherever MPI allows it, MPI_BOTTOM with absolute-address types, derived
! types, MPI_SUM reductions and MPI_ERRORS_RETURN, and checks its own
! results; then nonblocking collectives (MPI_I...), completed by MPI_Waitall
! beside point-to-point requests, MPI_Test, MPI_Waitany, MPI_Waitsome,
! MPI_Testall and MPI_Request_get_status; with -DCOLLX_PERSISTENT (MPI-4)
! a persistent allreduce. Built twice: `use mpi`, and `use mpi_f08` with
! -DCOLLX_F08.
#ifdef COLLX_F08
#define HANDLE(kind) type(kind)
#define APP "fortran f08 app"
#define STATUSES(n) type(MPI_Status) :: sts(n)
#define SOURCE_OF(i) sts(i)%MPI_SOURCE
#else
#define HANDLE(kind) integer
#define APP "fortran app"
#define STATUSES(n) integer :: sts(MPI_STATUS_SIZE, n)
#define SOURCE_OF(i) sts(MPI_SOURCE, i)
#endif

program fortran_app
#ifdef COLLX_F08
  use mpi_f08
#else
  use mpi
#endif
  implicit none
  integer, parameter :: maxp = 128
  ! MPI reaches xb only through MPI_BOTTOM, the calls do not name it: a
  ! common block, so the compiler must reload it after every call.
  integer :: xb(maxp)
  common /fapp_bottom/ xb
  integer :: ierr, ierr2, rank, p, root, i, j, k, m, n, d, s, bad, total, cls, isz
  integer, allocatable :: sb(:), rb(:), sc(:), sd(:), rc(:), rd(:), rc3(:), rd3(:)
  integer(kind=MPI_ADDRESS_KIND) :: addr(1)
  HANDLE(MPI_Comm) :: comm, ecomm
  HANDLE(MPI_Datatype) :: triple, bot4, botv
  HANDLE(MPI_Datatype), allocatable :: st(:), rt(:), rt3(:)
  HANDLE(MPI_Request) :: reqs(3), req
  STATUSES(3)
  integer :: tok, got, idx, outcount, idxs(3), left, done
  logical :: flag

  call MPI_Init(ierr)
  comm = MPI_COMM_WORLD
  call MPI_Comm_rank(comm, rank, ierr)
  call MPI_Comm_size(comm, p, ierr)
  if (p > maxp) then
    print '(a)', 'fortran_app: at most 128 ranks'
    call MPI_Abort(comm, 2, ierr)
  end if
  bad = 0
  n = 4 * p * (p + 2)
  allocate(sb(n), rb(n), sc(p), sd(p), rc(p), rd(p), rc3(p), rd3(p), st(p), rt(p), rt3(p))
  call MPI_Type_size(MPI_INTEGER, isz, ierr)
  call MPI_Type_contiguous(3, MPI_INTEGER, triple, ierr)
  call MPI_Type_commit(triple, ierr)

  call MPI_Barrier(comm, ierr)
  call ok('MPI_Barrier')

  ! Bcast of a derived type.
  root = p - 1
  rb(1:6) = -1
  if (rank == root) rb(1:6) = [(70 + i, i = 1, 6)]
  call MPI_Bcast(rb, 2, triple, root, comm, ierr)
  call ok('MPI_Bcast')
  do i = 1, 6
    call check('MPI_Bcast (triple)', rb(i), 70 + i)
  end do

  ! MPI_BOTTOM: types holding the absolute address of xb.
  call MPI_Get_address(xb, addr(1), ierr)
  call MPI_Type_create_hindexed(1, [4], addr, MPI_INTEGER, bot4, ierr)
  call MPI_Type_create_hindexed(1, [rank + 1], addr, MPI_INTEGER, botv, ierr)
  call MPI_Type_commit(bot4, ierr)
  call MPI_Type_commit(botv, ierr)
  xb = -1
  if (rank == 0) xb(1:4) = [11, 12, 13, 14]
  call MPI_Bcast(MPI_BOTTOM, 1, bot4, 0, comm, ierr)
  call ok('MPI_Bcast (MPI_BOTTOM)')
  do i = 1, 4
    call check('MPI_Bcast (MPI_BOTTOM)', xb(i), 10 + i)
  end do

  ! Gather, in place at the root.
  root = 0
  sb(1) = 100 * rank
  rb(1:p) = -1
  if (rank == root) then
    rb(root + 1) = 100 * root
    call MPI_Gather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rb, 1, MPI_INTEGER, root, comm, ierr)
    do i = 0, p - 1
      call check('MPI_Gather (in place)', rb(i + 1), 100 * i)
    end do
  else
    call MPI_Gather(sb, 1, MPI_INTEGER, rb, 1, MPI_INTEGER, root, comm, ierr)
  end if
  call ok('MPI_Gather')

  ! Irregular layout: rank i has i+1 ints, blocks in reverse rank order
  ! with a one-int gap after each.
  d = 0
  do i = p - 1, 0, -1
    rc(i + 1) = i + 1
    rd(i + 1) = d
    d = d + i + 2
  end do
  do k = 0, rank
    sb(k + 1) = 100 * rank + k
  end do

  ! Gatherv; the ranks other than the root send from MPI_BOTTOM.
  root = p - 1
  rb = -1
  if (rank == root) then
    call MPI_Gatherv(sb, rank + 1, MPI_INTEGER, rb, rc, rd, MPI_INTEGER, root, comm, ierr)
  else
    xb(1:rank + 1) = sb(1:rank + 1)
    call MPI_Gatherv(MPI_BOTTOM, 1, botv, rb, rc, rd, MPI_INTEGER, root, comm, ierr)
  end if
  call ok('MPI_Gatherv')
  if (rank == root) call check_irregular('MPI_Gatherv')

  ! Allgatherv.
  rb = -1
  call MPI_Allgatherv(sb, rank + 1, MPI_INTEGER, rb, rc, rd, MPI_INTEGER, comm, ierr)
  call ok('MPI_Allgatherv')
  call check_irregular('MPI_Allgatherv')

  ! Scatterv: the same layout, from the root.
  root = 0
  if (rank == root) then
    do i = 0, p - 1
      do k = 0, i
        sb(rd(i + 1) + k + 1) = 100 * i + k
      end do
    end do
  end if
  rb = -1
  call MPI_Scatterv(sb, rc, rd, MPI_INTEGER, rb, rank + 1, MPI_INTEGER, root, comm, ierr)
  call ok('MPI_Scatterv')
  do k = 0, rank
    call check('MPI_Scatterv', rb(k + 1), 100 * rank + k)
  end do
  call check('MPI_Scatterv (past the block)', rb(rank + 2), -1)

  ! Scatter, in place at the root.
  root = p - 1
  if (rank == root) then
    sb(1:p) = [(10 * i, i = 0, p - 1)]
    call MPI_Scatter(sb, 1, MPI_INTEGER, MPI_IN_PLACE, 1, MPI_INTEGER, root, comm, ierr)
    call check('MPI_Scatter (in place)', sb(root + 1), 10 * root)
  else
    rb(1) = -1
    call MPI_Scatter(sb, 1, MPI_INTEGER, rb, 1, MPI_INTEGER, root, comm, ierr)
    call check('MPI_Scatter', rb(1), 10 * rank)
  end if
  call ok('MPI_Scatter')

  ! Allgather, in place.
  rb(1:p) = -1
  rb(rank + 1) = 3 * rank + 1
  call MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rb, 1, MPI_INTEGER, comm, ierr)
  call ok('MPI_Allgather (in place)')
  do i = 0, p - 1
    call check('MPI_Allgather (in place)', rb(i + 1), 3 * i + 1)
  end do

  ! Alltoall, in place, two ints per block.
  do j = 0, p - 1
    rb(2 * j + 1) = 1000 * rank + 10 * j
    rb(2 * j + 2) = 1000 * rank + 10 * j + 1
  end do
  call MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rb, 2, MPI_INTEGER, comm, ierr)
  call ok('MPI_Alltoall (in place)')
  do i = 0, p - 1
    call check('MPI_Alltoall (in place)', rb(2 * i + 1), 1000 * i + 10 * rank)
    call check('MPI_Alltoall (in place)', rb(2 * i + 2), 1000 * i + 10 * rank + 1)
  end do

  ! Alltoallv: rank r sends mod(r+j,3)+1 ints to rank j; blocks received
  ! in reverse order with gaps.
  d = 0
  do j = 0, p - 1
    sc(j + 1) = mod(rank + j, 3) + 1
    sd(j + 1) = d
    do k = 0, sc(j + 1) - 1
      sb(d + k + 1) = 1000 * rank + 10 * j + k
    end do
    d = d + sc(j + 1)
  end do
  d = 0
  do i = p - 1, 0, -1
    rc(i + 1) = mod(i + rank, 3) + 1
    rd(i + 1) = d
    d = d + rc(i + 1) + 1
  end do
  rb = -1
  call MPI_Alltoallv(sb, sc, sd, MPI_INTEGER, rb, rc, rd, MPI_INTEGER, comm, ierr)
  call ok('MPI_Alltoallv')
  do i = 0, p - 1
    do k = 0, rc(i + 1) - 1
      call check('MPI_Alltoallv', rb(rd(i + 1) + k + 1), 1000 * i + 10 * rank + k)
    end do
    call check('MPI_Alltoallv (gap)', rb(rd(i + 1) + rc(i + 1) + 1), -1)
  end do

  ! Alltoallw: three ints to every rank, sent as one triple to even ranks,
  ! received as one triple from odd ranks; byte displacements, reversed.
  do j = 0, p - 1
    if (mod(j, 2) == 0) then
      st(j + 1) = triple
      sc(j + 1) = 1
    else
      st(j + 1) = MPI_INTEGER
      sc(j + 1) = 3
    end if
    if (mod(j, 2) == 1) then
      rt(j + 1) = triple
      rc(j + 1) = 1
    else
      rt(j + 1) = MPI_INTEGER
      rc(j + 1) = 3
    end if
    sd(j + 1) = 3 * j * isz
    rd(j + 1) = 3 * (p - 1 - j) * isz
    do k = 0, 2
      sb(3 * j + k + 1) = 1000 * rank + 10 * j + k
    end do
  end do
  rb = -1
  call MPI_Alltoallw(sb, sc, sd, st, rb, rc, rd, rt, comm, ierr)
  call ok('MPI_Alltoallw')
  do i = 0, p - 1
    do k = 0, 2
      call check('MPI_Alltoallw', rb(3 * (p - 1 - i) + k + 1), 1000 * i + 10 * rank + k)
    end do
  end do

  ! Alltoallw, in place (send counts, displacements and types are ignored).
  do j = 0, p - 1
    rc3(j + 1) = 3
    rd3(j + 1) = 3 * j * isz
    rt3(j + 1) = MPI_INTEGER
    do k = 0, 2
      rb(3 * j + k + 1) = 1000 * rank + 10 * j + k
    end do
  end do
  call MPI_Alltoallw(MPI_IN_PLACE, sc, sd, st, rb, rc3, rd3, rt3, comm, ierr)
  call ok('MPI_Alltoallw (in place)')
  do i = 0, p - 1
    do k = 0, 2
      call check('MPI_Alltoallw (in place)', rb(3 * i + k + 1), 1000 * i + 10 * rank + k)
    end do
  end do

  ! ---- nonblocking ----
  left = mod(rank + p - 1, p)
  ! Ialltoallw (the arrays above) beside a ring of Isend/Irecv: MPI_Waitall.
  do j = 0, p - 1
    do k = 0, 2
      sb(3 * j + k + 1) = 1000 * rank + 10 * j + k + 7
    end do
  end do
  rb = -1
  tok = 100 + rank
  got = -1
  call MPI_Ialltoallw(sb, sc, sd, st, rb, rc, rd, rt, comm, reqs(1), ierr)
  call ok('MPI_Ialltoallw')
  call MPI_Irecv(got, 1, MPI_INTEGER, left, 9, comm, reqs(2), ierr)
  call MPI_Isend(tok, 1, MPI_INTEGER, mod(rank + 1, p), 9, comm, reqs(3), ierr)
  call MPI_Waitall(3, reqs, sts, ierr)
  call ok('MPI_Waitall')
  do i = 0, p - 1
    do k = 0, 2
      call check('MPI_Ialltoallw', rb(3 * (p - 1 - i) + k + 1), 1000 * i + 10 * rank + k + 7)
    end do
  end do
  call check('MPI_Irecv beside MPI_Ialltoallw', got, 100 + left)
  call check('MPI_Waitall: source of the receive', SOURCE_OF(2), left)

  ! Iallreduce in place: MPI_Test until done.
  rb(1:2) = [rank + 1, 1]
  call MPI_Iallreduce(MPI_IN_PLACE, rb, 2, MPI_INTEGER, MPI_SUM, comm, req, ierr)
  call ok('MPI_Iallreduce (in place)')
  flag = .false.
  do while (.not. flag)
    call MPI_Test(req, flag, MPI_STATUS_IGNORE, ierr)
  end do
  call ok('MPI_Test')
  call check('MPI_Iallreduce (in place)', rb(1), p * (p + 1) / 2)
  call check('MPI_Iallreduce (in place)', rb(2), p)

  ! Ibcast of a derived type beside the ring: MPI_Waitany three times.
  root = p - 1
  rb(1:6) = -1
  if (rank == root) rb(1:6) = [(80 + i, i = 1, 6)]
  got = -1
  call MPI_Ibcast(rb, 2, triple, root, comm, reqs(1), ierr)
  call MPI_Irecv(got, 1, MPI_INTEGER, left, 9, comm, reqs(2), ierr)
  call MPI_Isend(tok, 1, MPI_INTEGER, mod(rank + 1, p), 9, comm, reqs(3), ierr)
  do k = 1, 3
    call MPI_Waitany(3, reqs, idx, MPI_STATUS_IGNORE, ierr)
    call ok('MPI_Waitany')
  end do
  do i = 1, 6
    call check('MPI_Ibcast (triple)', rb(i), 80 + i)
  end do
  call check('MPI_Irecv beside MPI_Ibcast', got, 100 + left)

  ! Iallgather: MPI_Waitsome until done.
  sb(1) = 3 * rank
  rb(1:p) = -1
  call MPI_Iallgather(sb, 1, MPI_INTEGER, rb, 1, MPI_INTEGER, comm, reqs(1), ierr)
  done = 0
  do while (done < 1)
    call MPI_Waitsome(1, reqs, outcount, idxs, MPI_STATUSES_IGNORE, ierr)
    call ok('MPI_Waitsome')
    done = done + outcount
  end do
  call check('MPI_Waitsome: index', idxs(1), 1)
  do i = 0, p - 1
    call check('MPI_Iallgather', rb(i + 1), 3 * i)
  end do

  ! Iscan and Iexscan: MPI_Testall over both.
  sb(1) = rank + 1
  rb(1:2) = -1
  call MPI_Iscan(sb, rb(1), 1, MPI_INTEGER, MPI_SUM, comm, reqs(1), ierr)
  call MPI_Iexscan(sb, rb(2), 1, MPI_INTEGER, MPI_SUM, comm, reqs(2), ierr)
  flag = .false.
  do while (.not. flag)
    call MPI_Testall(2, reqs, flag, MPI_STATUSES_IGNORE, ierr)
  end do
  call ok('MPI_Testall')
  call check('MPI_Iscan', rb(1), (rank + 1) * (rank + 2) / 2)
  if (rank > 0) call check('MPI_Iexscan', rb(2), rank * (rank + 1) / 2)

  ! Ireduce_scatter_block: MPI_Request_get_status until done, then MPI_Wait.
  sb(1:2 * p) = [(k + rank, k = 1, 2 * p)]
  rb(1:2) = -1
  call MPI_Ireduce_scatter_block(sb, rb, 2, MPI_INTEGER, MPI_SUM, comm, req, ierr)
  flag = .false.
  do while (.not. flag)
    call MPI_Request_get_status(req, flag, MPI_STATUS_IGNORE, ierr)
  end do
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call ok('MPI_Wait')
  do k = 1, 2
    call check('MPI_Ireduce_scatter_block', rb(k), p * (2 * rank + k) + p * (p - 1) / 2)
  end do

#ifdef COLLX_PERSISTENT
  ! ---- persistent (MPI-4): an allreduce started twice with new data ----
  call MPI_Allreduce_init(sb, rb, 2, MPI_INTEGER, MPI_SUM, comm, MPI_INFO_NULL, req, ierr)
  call ok('MPI_Allreduce_init')
  do k = 1, 2
    sb(1:2) = [rank + k, 1]
    rb(1:2) = -1
    call MPI_Start(req, ierr)
    call ok('MPI_Start')
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    call ok('MPI_Wait (persistent)')
    call check('MPI_Allreduce_init', rb(1), p * (p - 1) / 2 + p * k)
    call check('MPI_Allreduce_init', rb(2), p)
  end do
  call MPI_Request_free(req, ierr)
  call ok('MPI_Request_free')
#endif

  s = p * (p - 1) / 2   ! sum of the ranks

  ! Reduce, in place at the root.
  root = mod(1, p)
  rb(1:3) = [rank, 2 * rank, 1]
  if (rank == root) then
    call MPI_Reduce(MPI_IN_PLACE, rb, 3, MPI_INTEGER, MPI_SUM, root, comm, ierr)
    call check('MPI_Reduce (in place)', rb(1), s)
    call check('MPI_Reduce (in place)', rb(2), 2 * s)
    call check('MPI_Reduce (in place)', rb(3), p)
  else
    call MPI_Reduce(rb, sb, 3, MPI_INTEGER, MPI_SUM, root, comm, ierr)
  end if
  call ok('MPI_Reduce')

  ! Allreduce, in place.
  rb(1:2) = [rank + 1, 1]
  call MPI_Allreduce(MPI_IN_PLACE, rb, 2, MPI_INTEGER, MPI_SUM, comm, ierr)
  call ok('MPI_Allreduce (in place)')
  call check('MPI_Allreduce (in place)', rb(1), s + p)
  call check('MPI_Allreduce (in place)', rb(2), p)

  ! Reduce_scatter, in place: rank i gets i+1 elements.
  m = p * (p + 1) / 2
  do i = 0, p - 1
    rc(i + 1) = i + 1
  end do
  rb(1:m) = [(k + rank, k = 1, m)]
  call MPI_Reduce_scatter(MPI_IN_PLACE, rb, rc, MPI_INTEGER, MPI_SUM, comm, ierr)
  call ok('MPI_Reduce_scatter (in place)')
  d = rank * (rank + 1) / 2
  do k = 1, rank + 1
    call check('MPI_Reduce_scatter (in place)', rb(k), p * (d + k) + s)
  end do

  ! Reduce_scatter_block: two elements per rank.
  sb(1:2 * p) = [(k + rank, k = 1, 2 * p)]
  rb(1:2) = -1
  call MPI_Reduce_scatter_block(sb, rb, 2, MPI_INTEGER, MPI_SUM, comm, ierr)
  call ok('MPI_Reduce_scatter_block')
  do k = 1, 2
    call check('MPI_Reduce_scatter_block', rb(k), p * (2 * rank + k) + s)
  end do

  ! Scan, in place; Exscan.
  rb(1) = rank + 1
  call MPI_Scan(MPI_IN_PLACE, rb, 1, MPI_INTEGER, MPI_SUM, comm, ierr)
  call ok('MPI_Scan (in place)')
  call check('MPI_Scan (in place)', rb(1), (rank + 1) * (rank + 2) / 2)
  sb(1) = rank + 1
  rb(1) = -1
  call MPI_Exscan(sb, rb, 1, MPI_INTEGER, MPI_SUM, comm, ierr)
  call ok('MPI_Exscan')
  if (rank > 0) call check('MPI_Exscan', rb(1), rank * (rank + 1) / 2)

  ! MPI_ERRORS_RETURN: an invalid root comes back in ierr.
  call MPI_Comm_dup(comm, ecomm, ierr)
  call MPI_Comm_set_errhandler(ecomm, MPI_ERRORS_RETURN, ierr)
  call MPI_Bcast(rb, 1, MPI_INTEGER, p, ecomm, ierr)
  call MPI_Error_class(ierr, cls, ierr2)
  call check('MPI_Bcast (root = p): error class', cls, MPI_ERR_ROOT)
  call MPI_Gatherv(sb, 1, MPI_INTEGER, rb, rc, rd, MPI_INTEGER, -5, ecomm, ierr)
  call MPI_Error_class(ierr, cls, ierr2)
  call check('MPI_Gatherv (root = -5): error class', cls, MPI_ERR_ROOT)
  call MPI_Comm_free(ecomm, ierr)

#ifdef COLLX_F08
  ! mpi_f08: ierror is optional.
  call MPI_Barrier(comm)
#endif

  call MPI_Allreduce(bad, total, 1, MPI_INTEGER, MPI_SUM, comm, ierr)
  if (rank == 0) then
    if (total == 0) then
      print '(a)', APP // ': OK'
    else
      print '(a)', APP // ': FAILED'
    end if
  end if
  call MPI_Type_free(triple, ierr)
  call MPI_Type_free(bot4, ierr)
  call MPI_Type_free(botv, ierr)
  call MPI_Finalize(ierr)
  if (total /= 0) stop 1

contains

  subroutine check(what, got, want)
    character(*), intent(in) :: what
    integer, intent(in) :: got, want
    if (got /= want) then
      bad = bad + 1
      if (bad <= 10) print '(a,i0,3a,i0,a,i0)', 'rank ', rank, ': ', what, ': got ', got, &
        ', want ', want
    end if
  end subroutine check

  subroutine ok(what)
    character(*), intent(in) :: what
    call check(what // ': ierr', ierr, MPI_SUCCESS)
  end subroutine ok

  ! Every block of the irregular layout (rc, rd) in rb, gaps untouched.
  subroutine check_irregular(what)
    character(*), intent(in) :: what
    integer :: i, k
    do i = 0, p - 1
      do k = 0, i
        call check(what, rb(rd(i + 1) + k + 1), 100 * i + k)
      end do
      call check(what // ' (gap)', rb(rd(i + 1) + i + 2), -1)
    end do
  end subroutine check_irregular

end program fortran_app
