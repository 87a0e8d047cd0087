#!/usr/bin/env python3
"""Writes assets/meshes/t_figure.obj: a figure in T-pose, a T-shaped prism, for a soft body with a skeleton.

Our own generator (Python 3 standard library only). The T's outline lies in the x-z plane: a torso TORSO_WIDTH wide
from the ground (z = 0) to ARM_BOTTOM, and arms spanning SPAN from ARM_BOTTOM to ARM_TOP; it is extruded DEPTH along
y, centred on y = 0. Each cap is six triangles that share the outline's vertices (no T-junctions); each outline edge
a side quad of two. Triangles are wound counter-clockwise seen from outside, which the check of the signed volume
against the T's area times its depth confirms.

Usage: python3 assets/meshes/make_t_figure.py [OUTPUT]   (default: t_figure.obj next to this script)
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_mug import signed_volume, write_obj  # noqa: E402  (the same volume and OBJ writer)

TORSO_WIDTH = 0.12  # [m]
SPAN = 0.60  # fingertip to fingertip [m]
ARM_BOTTOM = 0.40  # the armpits' height [m]
ARM_TOP = 0.50  # the top of the arms and shoulders [m]
DEPTH = 0.06  # front to back [m]


def build():
    a, b = TORSO_WIDTH / 2, SPAN / 2
    # The outline, counter-clockwise seen from −y (x right, z up).
    outline = [(-a, 0), (a, 0), (a, ARM_BOTTOM), (b, ARM_BOTTOM), (b, ARM_TOP), (-b, ARM_TOP), (-b, ARM_BOTTOM),
               (-a, ARM_BOTTOM)]
    n = len(outline)
    front = [(x, -DEPTH / 2, z) for x, z in outline]  # vertices 0..7
    back = [(x, DEPTH / 2, z) for x, z in outline]  # vertices 8..15
    # The cap's triangles over the outline's indices, counter-clockwise seen from −y: the torso, then the arms' band.
    cap = [(0, 1, 2), (0, 2, 7), (6, 7, 5), (7, 4, 5), (7, 2, 4), (2, 3, 4)]
    triangles = []
    for i, j, k in cap:
        triangles.append((i, j, k))  # front cap, seen from −y (outside)
        triangles.append((n + i, n + k, n + j))  # back cap, seen from +y
    for i in range(n):
        j = (i + 1) % n
        triangles.append((i, n + j, j))  # side: outward, the outline running counter-clockwise
        triangles.append((i, n + i, n + j))
    return front + back, triangles


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "t_figure.obj")
    vertices, triangles = build()
    expected = (TORSO_WIDTH * ARM_BOTTOM + SPAN * (ARM_TOP - ARM_BOTTOM)) * DEPTH
    volume = signed_volume(vertices, triangles)
    if abs(volume - expected) > 1e-12:
        sys.exit(f"make_t_figure.py: signed volume {volume:.6e} m^3, expected {expected:.6e}: bad winding")
    write_obj(out, f"a figure in T-pose: torso {TORSO_WIDTH} m wide, arms spanning {SPAN} m, {ARM_TOP} m tall, "
              f"{DEPTH} m deep (assets/meshes/make_t_figure.py)", vertices, triangles)


if __name__ == "__main__":
    main()
