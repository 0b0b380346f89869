#!/usr/bin/env python3
"""Draws a sparsity pattern with its stored diagonals, for solvers/mtx
(-view_structure out.png). mtx writes two CSV files and calls this script:

  --pattern pattern.csv   "row,col" then one nonzero a line (0-based)
  --offsets offsets.csv   "offset" then one stored diagonal d = col - row a line

Each stored diagonal is shaded as a band one entry wide from its first to
its last row; the nonzeros are drawn on top (square markers the size of one
entry, at least one pixel). Where the shading covers much more than the dots,
diag stores many zeros (poor fill). Needs matplotlib (Debian's
python3-matplotlib) and numpy."""
import argparse
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pattern", required=True)
    ap.add_argument("--offsets", required=True)
    ap.add_argument("--rows", type=int, required=True)
    ap.add_argument("--cols", type=int, required=True)
    ap.add_argument("--out", required=True, help="the PNG to write")
    ap.add_argument("--title", default="")
    ap.add_argument("--info", default="", help="a line of numbers under the title")
    ap.add_argument("--size", type=float, default=6.0, help="figure size in inches (square)")
    ap.add_argument("--dpi", type=int, default=100)
    args = ap.parse_args()
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.collections import PolyCollection
        from matplotlib.patches import Patch
        from matplotlib.lines import Line2D
        from matplotlib.ticker import MaxNLocator
        import numpy as np
    except ImportError as e:
        sys.exit(f"plot_structure.py: {e} (install Debian's python3-matplotlib, or pass mtx -plot_python <python with matplotlib>)")

    pat = np.loadtxt(args.pattern, delimiter=",", skiprows=1, dtype=np.int64, ndmin=2)
    offs = np.loadtxt(args.offsets, skiprows=1, dtype=np.int64, ndmin=1)
    M, N = args.rows, args.cols

    fig, ax = plt.subplots(figsize=(args.size, args.size * min(1.6, max(0.4, M / N))), dpi=args.dpi)
    ax.set_xlim(-0.5, N - 0.5)
    ax.set_ylim(M - 0.5, -0.5)  # row 0 on top, as a matrix is written
    ax.set_aspect("equal")

    # the stored diagonals: band x - y in [d - 0.5, d + 0.5] for rows lo..hi-1
    polys = []
    for d in offs:
        lo, hi = max(0, -d), min(M, N - d)
        if hi <= lo:
            continue
        y0, y1 = lo - 0.5, hi - 0.5
        polys.append([(y0 + d - 0.5, y0), (y0 + d + 0.5, y0), (y1 + d + 0.5, y1), (y1 + d - 0.5, y1)])
    # one entry is this many points wide; a band stays at least ~1.5 pixels wide
    fig.canvas.draw()
    bbox = ax.get_window_extent()
    cell = bbox.width / N * 72.0 / fig.dpi
    px = 72.0 / fig.dpi
    band = "#9ecae1"
    edge = max(0.4, 1.5 * px - cell)
    ax.add_collection(PolyCollection(polys, facecolors=band, edgecolors=band, linewidths=edge, alpha=0.55, zorder=1))

    # the nonzeros on top
    ms = max(cell * 0.9, px)
    if len(pat):
        ax.scatter(pat[:, 1], pat[:, 0], s=ms * ms, marker="s", c="#08306b", linewidths=0, zorder=2)

    title = args.title
    if args.info:
        title += "\n" + args.info
    ax.set_title(title, fontsize=9)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.tick_params(labelsize=8, top=True, labeltop=True, bottom=False, labelbottom=False)
    ax.legend(
        handles=[
            Line2D([], [], marker="s", linestyle="", color="#08306b", markersize=5, label=f"nonzeros ({len(pat)})"),
            Patch(facecolor=band, alpha=0.55, label=f"stored diagonals ({len(offs)})"),
        ],
        loc="upper center",
        bbox_to_anchor=(0.5, -0.01),
        ncol=2,
        fontsize=8,
        frameon=False,
    )
    fig.tight_layout()
    fig.savefig(args.out, dpi=args.dpi)


if __name__ == "__main__":
    main()
