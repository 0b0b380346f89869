/* PCMG's grid transfers from their formula: a DMDA's Q1 interpolation of a
   2:1 vertex-centred refinement, applied by diag's structured kernels
   (pdiag::vertex_q1_prolong / _restrict of pdiag/transfer.hpp on the host,
   pdiag::cuda:: ones of kernels/src/transfer.cu on the GPU) instead of
   sparse products with the stored matrix.

   A V-cycle interpolates with MatMultAdd and restricts with
   MatMultTranspose of the level's interpolation: at 257^3 its finest level
   holds 57 million entries (690 MB of values and column indices) that
   each product reads, where the formula's product moves only its vectors
   (about 0.3 GB). When the matrix is exactly that interpolation (one
   process; both levels' DMs DMDAs with one degree of freedom, not
   periodic, the fine grid 2n - 1 points where the coarse has n; every
   stored entry checked against the formula, csr_is_vertex_q1) and the
   finer level's operator is diag, its four products (MatMult, MatMultAdd,
   MatMultTranspose, MatMultTransposeAdd) are set, with MatSetOperation, to
   the formula's: on the GPU with CUDA vectors (the matrix seqaij, which
   diag_mg.cpp then leaves on the host, or aijcusparse), on the host for a
   seqaij one with host vectors. The matrix
   stays the aij matrix it was: PCMG's Galerkin products (MatPtAP) still
   use its entries, MatView shows them, and any other operation is aij's.
   The products fall back to the matrix's own for other vectors, when it
   is bound to the CPU (aijcusparse), or when its values changed after the
   check (its object state moved; a seqaij matrix's own products with CUDA
   vectors run on the host).

   -pc_mg_diag_structured_transfer false (with the PC's prefix) leaves the
   products to the matrix. -info reports each level that takes them. */
#include "diag_impl.hpp"

#if defined(PDIAG_PETSC_CUDA)
#include "diag_cuda.hpp"

#include "pdiag/transfer_cuda.hpp"
#endif

#include "pdiag/transfer.hpp"

#include <petsc/private/kspimpl.h>
#include <petsc/private/pcmgimpl.h>
#include <petscdmda.h>

#include <memory>

namespace {

using MultOp    = PetscErrorCode (*)(Mat, Vec, Vec);
using MultAddOp = PetscErrorCode (*)(Mat, Vec, Vec, Vec);

/* What a transfer whose products run from the formula keeps (composed on
   it): the refinement, the object state its entries were checked in, and
   its own products for the fallback. */
struct StructuredTransfer {
  pdiag::VertexGrids g;
  PetscObjectState   checked_state = 0;
  PetscLogDouble     flops         = 0; /* logged per product: those of the stored matrix's product it replaces */
  MultOp             mult = nullptr, mult_transpose = nullptr;
  MultAddOp          mult_add = nullptr, mult_transpose_add = nullptr;
};

constexpr const char kComposedName[] = "MatDiagStructuredTransfer";

PetscErrorCode GetStructuredTransfer(Mat P, StructuredTransfer **t)
{
  return PetscDiagQueryObject((PetscObject)P, kComposedName, t);
}

/* Where the formula computes P's product with these vectors now. */
enum class Where { Fallback, Host, Device };

PetscErrorCode VecsOfType(Vec x, Vec y, Vec z, const char *seq, const char *mpi, PetscBool *all)
{
  PetscBool same;

  PetscFunctionBegin;
  *all = PETSC_TRUE;
  for (Vec v : {x, y, z}) {
    if (!v) continue;
    PetscCall(PetscObjectTypeCompareAny((PetscObject)v, &same, seq, mpi, ""));
    if (!same) *all = PETSC_FALSE;
  }
  PetscFunctionReturn(0);
}

PetscErrorCode WhereFormula(Mat P, const StructuredTransfer *t, Vec x, Vec y, Vec z, Where *where)
{
  PetscObjectState state;
  PetscBool        all, host_matrix;

  PetscFunctionBegin;
  *where = Where::Fallback;
  if (!t) PetscFunctionReturn(0);
  PetscCall(PetscObjectStateGet((PetscObject)P, &state));
  if (state != t->checked_state) PetscFunctionReturn(0);
  PetscCall(PetscObjectTypeCompare((PetscObject)P, MATSEQAIJ, &host_matrix));
  PetscCall(VecsOfType(x, y, z, VECSEQ, VECMPI, &all));
  if (all && host_matrix) *where = Where::Host;
#if defined(PDIAG_PETSC_CUDA)
  if (!host_matrix && P->boundtocpu) PetscFunctionReturn(0); /* aijcusparse's own products run on the host then */
  PetscCall(VecsOfType(x, y, z, VECSEQCUDA, VECMPICUDA, &all));
  if (all) *where = Where::Device; /* a seqaij P too: the formula needs no device copy of it */
#endif
  PetscFunctionReturn(0);
}

/* y = P x + z (z may be null or y) or y = P^T x + z, from the formula. */
PetscErrorCode ApplyFormula(const StructuredTransfer *t, Where where, Vec x, Vec z, Vec y, bool transpose)
{
  const PetscScalar *xd, *zd = nullptr;
  PetscScalar       *yd;

  PetscFunctionBegin;
  if (where == Where::Host) {
    PetscCall(VecGetArrayRead(x, &xd));
    if (z && z != y) PetscCall(VecGetArrayRead(z, &zd));
    if (z == y) PetscCall(VecGetArray(y, &yd));
    else PetscCall(VecGetArrayWrite(y, &yd));
    if (z == y) zd = yd;
    if (transpose) pdiag::vertex_q1_restrict(t->g, xd, yd, zd);
    else pdiag::vertex_q1_prolong(t->g, xd, yd, zd);
    PetscCall(PetscLogFlops(t->flops));
    PetscCall(VecRestoreArrayRead(x, &xd));
    if (z && z != y) PetscCall(VecRestoreArrayRead(z, &zd));
    if (z == y) PetscCall(VecRestoreArray(y, &yd));
    else PetscCall(VecRestoreArrayWrite(y, &yd));
    PetscFunctionReturn(0);
  }
#if defined(PDIAG_PETSC_CUDA)
  PetscCall(VecCUDAGetArrayRead(x, &xd));
  if (z && z != y) PetscCall(VecCUDAGetArrayRead(z, &zd));
  if (z == y) PetscCall(VecCUDAGetArray(y, &yd));
  else PetscCall(VecCUDAGetArrayWrite(y, &yd));
  if (z == y) zd = yd;
  PetscCall(PetscLogGpuTimeBegin());
  if (transpose) DiagCallCUDA(pdiag::cuda::vertex_q1_restrict(t->g, xd, yd, zd, PetscDefaultCudaStream));
  else DiagCallCUDA(pdiag::cuda::vertex_q1_prolong(t->g, xd, yd, zd, PetscDefaultCudaStream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(t->flops));
  PetscCall(VecCUDARestoreArrayRead(x, &xd));
  if (z && z != y) PetscCall(VecCUDARestoreArrayRead(z, &zd));
  if (z == y) PetscCall(VecCUDARestoreArray(y, &yd));
  else PetscCall(VecCUDARestoreArrayWrite(y, &yd));
#endif
  PetscFunctionReturn(0);
}

/* The four products: y = P x (+ z) or y = P^T x (+ z) from the formula
   where it computes them now, else by the matrix's own operation. */
PetscErrorCode Product(Mat P, Vec x, Vec z, Vec y, bool transpose)
{
  StructuredTransfer *t;
  Where               where;

  PetscFunctionBegin;
  PetscCall(GetStructuredTransfer(P, &t));
  PetscCheck(t, PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag: a structured grid transfer lost its data (a copy of its operations?)");
  PetscCall(WhereFormula(P, t, x, y, z, &where));
  if (where != Where::Fallback) PetscCall(ApplyFormula(t, where, x, z, y, transpose));
  else if (z) PetscCall((*(transpose ? t->mult_transpose_add : t->mult_add))(P, x, z, y));
  else PetscCall((*(transpose ? t->mult_transpose : t->mult))(P, x, y));
  PetscFunctionReturn(0);
}

PetscErrorCode MatMult_StructuredTransfer(Mat P, Vec x, Vec y)
{
  return Product(P, x, nullptr, y, false);
}

PetscErrorCode MatMultAdd_StructuredTransfer(Mat P, Vec x, Vec z, Vec y)
{
  return Product(P, x, z, y, false);
}

PetscErrorCode MatMultTranspose_StructuredTransfer(Mat P, Vec x, Vec y)
{
  return Product(P, x, nullptr, y, true);
}

PetscErrorCode MatMultTransposeAdd_StructuredTransfer(Mat P, Vec x, Vec z, Vec y)
{
  return Product(P, x, z, y, true);
}

/* Points per direction of the level solver's DM when it is a DMDA with one
   degree of freedom and no periodic direction (*ok false otherwise). */
PetscErrorCode LevelGrid(KSP ksp, Index points[3], PetscBool *ok)
{
  DM              dm = ksp ? ksp->dm : nullptr; /* KSPGetDM would make a DMShell where none is */
  PetscBool       isda;
  PetscInt        dim, M, N, P, dof;
  DMBoundaryType  bx, by, bz;

  PetscFunctionBegin;
  *ok = PETSC_FALSE;
  if (!dm) PetscFunctionReturn(0);
  PetscCall(PetscObjectTypeCompare((PetscObject)dm, DMDA, &isda));
  if (!isda) PetscFunctionReturn(0);
  PetscCall(DMDAGetInfo(dm, &dim, &M, &N, &P, NULL, NULL, NULL, &dof, NULL, &bx, &by, &bz, NULL));
  if (dof != 1 || bx == DM_BOUNDARY_PERIODIC || by == DM_BOUNDARY_PERIODIC || bz == DM_BOUNDARY_PERIODIC) PetscFunctionReturn(0);
  points[0] = M, points[1] = dim > 1 ? N : 1, points[2] = dim > 2 ? P : 1;
  *ok = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* The answer of the last check of a matrix (composed on it): the Galerkin
   product and then the transfer set-up of one PCMG set-up ask the same
   question of the same interpolation (57 million entries at 257^3). */
struct Q1Checked {
  pdiag::VertexGrids g;
  PetscObjectState   state = -1;
  PetscBool          holds = PETSC_FALSE;
};

constexpr const char kCheckedName[] = "MatDiagQ1Checked";

bool SameGrids(const pdiag::VertexGrids &a, const pdiag::VertexGrids &b)
{
  for (int d = 0; d < 3; d++)
    if (a.fine[d] != b.fine[d] || a.coarse[d] != b.coarse[d]) return false;
  return true;
}

/* Whether the sequential aij matrix T holds exactly the Q1 interpolation of g. */
PetscErrorCode HoldsQ1Interpolation(Mat T, const pdiag::VertexGrids &g, PetscBool *holds)
{
  const PetscInt    *ia, *ja;
  const PetscScalar *v;
  PetscInt           n;
  PetscBool          done;
  PetscObjectState   state;
  Q1Checked         *checked;

  PetscFunctionBegin;
  *holds = PETSC_FALSE;
  if (T->rmap->n != g.fine_points() || T->cmap->n != g.coarse_points()) PetscFunctionReturn(0);
  PetscCall(PetscObjectStateGet((PetscObject)T, &state));
  PetscCall(PetscDiagQueryObject((PetscObject)T, kCheckedName, &checked));
  if (checked && checked->state == state && SameGrids(checked->g, g)) {
    *holds = checked->holds;
    PetscFunctionReturn(0);
  }
  PetscCall(MatGetRowIJ(T, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  if (!done) PetscFunctionReturn(0);
  PetscCall(MatSeqAIJGetArrayRead(T, &v));
  *holds = pdiag::csr_is_vertex_q1(g, ia, ja, v) ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(MatSeqAIJRestoreArrayRead(T, &v));
  PetscCall(MatRestoreRowIJ(T, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  if (!checked) {
    PetscCallCXX(checked = new Q1Checked());
    PetscCall(PetscDiagComposeObject((PetscObject)T, kCheckedName, checked));
  }
  checked->g     = g;
  checked->holds = *holds;
  PetscCall(PetscObjectStateGet((PetscObject)T, &checked->state)); /* composing does not move the state; read again all the same */
  PetscFunctionReturn(0);
}

} // namespace

/* Inside a PCMG set-up (diag_mg.cpp), whether P is the interpolation (also
   the restriction) into one of its levels that holds exactly the Q1
   interpolation between the DMDAs of that level and the next coarser, with
   the refinement in *g: what a Galerkin product P^T A P needs to run from
   the formula (diag_galerkin_structured.cpp). Not collective. */
PetscErrorCode MatDiagMGQ1Interpolation_Private(Mat P, pdiag::VertexGrids *g, PetscBool *is)
{
  PC        pc = MatDiagMGInSetUp_Private();
  PetscBool fine_ok, coarse_ok;

  PetscFunctionBegin;
  *is = PETSC_FALSE;
  if (!pc) PetscFunctionReturn(0);
  PC_MG *mg = (PC_MG *)pc->data;
  if (!mg->levels) PetscFunctionReturn(0);
  for (PetscInt l = 1; l < mg->nlevels; l++) {
    PC_MG_Levels *fine = mg->levels[l], *coarse = mg->levels[l - 1];
    if (!fine || !coarse || fine->interpolate != P || (fine->restrct && fine->restrct != P)) continue;
    PetscCall(LevelGrid(fine->smoothd, g->fine, &fine_ok));
    PetscCall(LevelGrid(coarse->smoothd, g->coarse, &coarse_ok));
    if (!fine_ok || !coarse_ok || !pdiag::is_vertex_refinement(*g)) PetscFunctionReturn(0);
    PetscCall(HoldsQ1Interpolation(P, *g, is));
    PetscFunctionReturn(0);
  }
  PetscFunctionReturn(0);
}

/* Level `level` of the PCMG pc: when its operator is diag and its
   interpolation (also its restriction) is a sequential aij or aijcusparse
   matrix holding the Q1 interpolation between the DMDAs of levels level - 1
   and level, its products are set to the formula's (see the top); *taken
   says whether they are. Not collective. */
PetscErrorCode MatDiagMGStructuredTransfer_Private(PC pc, PetscInt level, PetscBool *taken)
{
  PC_MG             *mg = (PC_MG *)pc->data;
  PC_MG_Levels      *fine = mg->levels[level], *coarse = mg->levels[level - 1];
  Mat                T    = fine->interpolate, A = nullptr;
  PetscBool          on = PETSC_TRUE, seq, isdiag, fine_ok, coarse_ok, holds;
  StructuredTransfer probe, *done_already;

  PetscFunctionBegin;
  *taken = PETSC_FALSE;
  PetscCall(PetscOptionsGetBool(((PetscObject)pc)->options, ((PetscObject)pc)->prefix, "-pc_mg_diag_structured_transfer", &on, NULL));
  if (!on || !T || fine->restrct != T || !fine->smoothd) PetscFunctionReturn(0);
  PetscCall(KSPGetOperators(fine->smoothd, &A, NULL));
  PetscCall(MatDiagIsDiag_Private(A, &isdiag));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)T, &seq, MATSEQAIJ, MATSEQAIJCUSPARSE, ""));
  if (!isdiag || !seq) PetscFunctionReturn(0);
  PetscCall(GetStructuredTransfer(T, &done_already));
  if (done_already) { /* a later set-up: the same matrix, checked again if its entries changed */
    PetscObjectState state;
    PetscCall(PetscObjectStateGet((PetscObject)T, &state));
    if (state == done_already->checked_state) {
      *taken = PETSC_TRUE;
      PetscFunctionReturn(0);
    }
  }
  PetscCall(LevelGrid(fine->smoothd, probe.g.fine, &fine_ok));
  PetscCall(LevelGrid(coarse->smoothd, probe.g.coarse, &coarse_ok));
  if (!fine_ok || !coarse_ok || !pdiag::is_vertex_refinement(probe.g)) PetscFunctionReturn(0);
  PetscCall(HoldsQ1Interpolation(T, probe.g, &holds));
  if (!holds) {
    PetscCall(PetscInfo(T, "diag: PCMG interpolation into level %" PetscInt_FMT " is not the DMDAs' Q1 interpolation; its products stay %s's\n", level, ((PetscObject)T)->type_name));
    PetscFunctionReturn(0);
  }
  *taken = PETSC_TRUE;
  if (done_already) {
    PetscCall(PetscObjectStateGet((PetscObject)T, &done_already->checked_state));
    PetscFunctionReturn(0);
  }
  MatInfo info;
  PetscCall(MatGetInfo(T, MAT_LOCAL, &info));
  std::unique_ptr<StructuredTransfer> owned(new StructuredTransfer(probe));
  StructuredTransfer                 *t = owned.get();
  t->flops                              = 2.0 * info.nz_used;
  PetscCall(PetscObjectStateGet((PetscObject)T, &t->checked_state));
  PetscCall(MatGetOperation(T, MATOP_MULT, (void (**)(void))&t->mult));
  PetscCall(MatGetOperation(T, MATOP_MULT_ADD, (void (**)(void))&t->mult_add));
  PetscCall(MatGetOperation(T, MATOP_MULT_TRANSPOSE, (void (**)(void))&t->mult_transpose));
  PetscCall(MatGetOperation(T, MATOP_MULT_TRANSPOSE_ADD, (void (**)(void))&t->mult_transpose_add));
  PetscCall(PetscDiagComposeObject((PetscObject)T, kComposedName, t));
  owned.release(); /* T's now */
  PetscCall(MatSetOperation(T, MATOP_MULT, (void (*)(void))MatMult_StructuredTransfer));
  PetscCall(MatSetOperation(T, MATOP_MULT_ADD, (void (*)(void))MatMultAdd_StructuredTransfer));
  PetscCall(MatSetOperation(T, MATOP_MULT_TRANSPOSE, (void (*)(void))MatMultTranspose_StructuredTransfer));
  PetscCall(MatSetOperation(T, MATOP_MULT_TRANSPOSE_ADD, (void (*)(void))MatMultTransposeAdd_StructuredTransfer));
  PetscCall(PetscInfo(T, "diag: PCMG interpolation into level %" PetscInt_FMT " is the Q1 interpolation of %" PetscInt_FMT "x%" PetscInt_FMT "x%" PetscInt_FMT " from %" PetscInt_FMT "x%" PetscInt_FMT "x%" PetscInt_FMT " points: its products run from the formula\n", level, (PetscInt)probe.g.fine[0], (PetscInt)probe.g.fine[1], (PetscInt)probe.g.fine[2], (PetscInt)probe.g.coarse[0], (PetscInt)probe.g.coarse[1], (PetscInt)probe.g.coarse[2]));
  PetscFunctionReturn(0);
}
