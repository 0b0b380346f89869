#!/usr/bin/env bash
# shellcheck disable=SC2086  # $P is a command with its arguments, split on purpose
# Regenerates the convergence figures of docs/solvers.md (docs/img/conv_*.png)
# from a CPU build's solvers, -dm_mat_type diag, 1 process, and prints the
# measured orders. About 30 s on a 2-core machine. From the repository root:
#   bash solvers/convergence_figures.sh [build folder, default build]
# The commands are the ones docs/solvers.md shows, section by section.
set -euo pipefail
B=${1:-build}/solvers
# matplotlib: Debian's python3-matplotlib is in /usr/bin/python3's path
P="/usr/bin/python3 solvers/plot_convergence.py"
$P --exe $B/poisson --out docs/img/conv_poisson.png --title "poisson: -lap u = f, Dirichlet (second order)" \
   --series "2D 5-point" "-dim 2 -da_grid_x 17 -da_grid_y 17" 0,1,2,3 2 \
   --series "3D 7-point" "-dim 3 -da_grid_x 9 -da_grid_y 9 -da_grid_z 9" 0,1,2,3 2
$P --exe $B/poisson_ext --out docs/img/conv_poisson_ext.png --title "poisson_ext: compact stencils, Mehrstellen or plain right side" \
   --series "2D 9-point, Dirichlet, Mehrstellen" "-dim 2 -da_grid_x 9 -da_grid_y 9" 0,1,2,3,4 4 \
   --series "2D 9-point, Neumann, Mehrstellen" "-dim 2 -bc neumann -da_grid_x 9 -da_grid_y 9" 0,1,2,3,4 4 \
   --series "3D 27-point, Dirichlet, Mehrstellen" "-dim 3 -da_grid_x 9 -da_grid_y 9 -da_grid_z 9" 0,1,2,3 4 \
   --series "2D 9-point, Dirichlet, plain f" "-dim 2 -rhs plain -da_grid_x 9 -da_grid_y 9" 0,1,2,3,4 2
$P --exe $B/diffusion --out docs/img/conv_diffusion.png --title "diffusion: -div(k grad u) = f, smooth k, contrast 100" \
   --series "2D 5-point" "-dim 2 -coef smooth -da_grid_x 17 -da_grid_y 17" 0,1,2,3 2 \
   --series "3D 7-point" "-dim 3 -coef smooth -da_grid_x 9 -da_grid_y 9 -da_grid_z 9" 0,1,2,3 2
$P --exe $B/convdiff --out docs/img/conv_convdiff.png --title "convdiff: -eps lap u + b.grad u = f, eps 0.1" \
   --series "2D upwind" "-dim 2 -scheme upwind -da_grid_x 17 -da_grid_y 17" 0,1,2,3 1 \
   --series "2D central" "-dim 2 -scheme central -da_grid_x 17 -da_grid_y 17" 0,1,2,3 2 \
   --series "3D upwind" "-dim 3 -scheme upwind -da_grid_x 9 -da_grid_y 9 -da_grid_z 9" 0,1,2,3 1 \
   --series "3D central" "-dim 3 -scheme central -da_grid_x 9 -da_grid_y 9 -da_grid_z 9" 0,1,2,3 2
$P --exe $B/heat --x dt --out docs/img/conv_heat.png --title "heat: time error at t = 0.1 against the ODE system's solution" \
   --series "2D 33^2, backward Euler" "-dim 2 -ts_type beuler" 0.02,0.01,0.005,0.0025,0.00125 1 \
   --series "2D 33^2, Crank-Nicolson" "-dim 2 -ts_type cn" 0.02,0.01,0.005,0.0025,0.00125 2 \
   --series "3D 17^3, Crank-Nicolson" "-dim 3 -ts_type cn -da_grid_x 17 -da_grid_y 17 -da_grid_z 17" 0.02,0.01,0.005,0.0025,0.00125 2
$P --exe $B/highorder --out docs/img/conv_highorder.png --title "highorder: wide stencil (fourth order) vs 5-point" \
   --series "2D, exact closure" "-dim 2 -closure exact -da_grid_x 9 -da_grid_y 9" 0,1,2,3,4 4 \
   --series "2D, second-order closure" "-dim 2 -closure second -da_grid_x 9 -da_grid_y 9" 0,1,2,3,4 4 \
   --series "3D, exact closure" "-dim 3 -closure exact -da_grid_x 9 -da_grid_y 9 -da_grid_z 9" 0,1,2,3 4 \
   --series "2D 5-point (-order 2)" "-dim 2 -order 2 -da_grid_x 9 -da_grid_y 9" 0,1,2,3,4 2
