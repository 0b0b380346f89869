"""2D Poisson on a DMDA from petsc4py, with the matrix type from the options.

  /usr/bin/python3 examples/petsc4py_poisson.py -dll_append $PWD/build/lib/libpetscdiag.so -dm_mat_type diag
  mpiexec -n 2 /usr/bin/python3 examples/petsc4py_poisson.py -dll_append $PWD/build/lib/libpetscdiag.so -dm_mat_type diag
  /usr/bin/python3 examples/petsc4py_poisson.py -dm_mat_type aij          # the same solve with aij

Prints the matrix type, the CG + Jacobi iterations, the error against the
exact solution (ones), and the norm of A u minus the product of an
aij copy of A (B = A.convert('aij', PETSc.Mat()) leaves A as it is; a bare
A.convert('aij') would retype A itself).
"""
import sys

import petsc4py

petsc4py.init(sys.argv)
from petsc4py import PETSc  # noqa: E402

n = PETSc.Options().getInt("n", 65)
# setup=False: the DMDA reads -dm_mat_type (and -da_grid_x, ...) in setFromOptions;
# created with the default setup=True it is set up before the options are read
da = PETSc.DMDA().create([n, n], stencil_width=1, setup=False)
da.setFromOptions()
da.setUp()

A = da.createMatrix()
row, col = PETSc.Mat.Stencil(), PETSc.Mat.Stencil()
(xs, xe), (ys, ye) = da.getRanges()
for j in range(ys, ye):
    for i in range(xs, xe):
        row.index = (i, j)
        if i in (0, n - 1) or j in (0, n - 1):
            A.setValueStencil(row, row, 1.0)
            continue
        A.setValueStencil(row, row, 4.0)
        for ci, cj in ((i - 1, j), (i + 1, j), (i, j - 1), (i, j + 1)):
            if 0 < ci < n - 1 and 0 < cj < n - 1:  # boundary values eliminated: A is SPD
                col.index = (ci, cj)
                A.setValueStencil(row, col, -1.0)
A.assemble()

u = da.createGlobalVec()  # exact solution: ones
u.set(1.0)
b = u.duplicate()
A.mult(u, b)
x = u.duplicate()
ksp = PETSc.KSP().create()
ksp.setOperators(A)
ksp.setType("cg")
ksp.getPC().setType("jacobi")
ksp.setTolerances(rtol=1e-10)
ksp.setFromOptions()
ksp.solve(b, x)
x.axpy(-1.0, u)

B = A.convert("aij", PETSc.Mat())  # a new aij matrix; A keeps its type
y, z = b.duplicate(), b.duplicate()
A.mult(u, y)
B.mult(u, z)
z.axpy(-1.0, y)
PETSc.Sys.Print(f"matrix {A.getType()} (copy {B.getType()}), {n}x{n} grid")
reason = ksp.getConvergedReason()
PETSc.Sys.Print(f"CG + Jacobi: {ksp.getIterationNumber()} iterations, " + ("converged" if reason > 0 else f"not converged ({reason})"))
PETSc.Sys.Print(f"error |x - u| / |u| = {x.norm() / u.norm():.2e}; |A u - B u| = {z.norm():.2e}")
