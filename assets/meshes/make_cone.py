#!/usr/bin/env python3
"""Writes assets/meshes/cone.obj: a right circular cone as a closed triangle mesh, for a rigid body.

Our own generator (Python 3 standard library only). Base radius RADIUS on z = 0, apex at height HEIGHT on the z
axis; the frame's origin is the centre of the base. The base circle has SEGMENTS vertices; the side is a fan from the
apex, the base a fan from its centre. Triangles are wound counter-clockwise seen from outside (outward normals), which
the check of the signed volume against π r² h / 3 (within the polygon's shortfall) confirms.

Usage: python3 assets/meshes/make_cone.py [OUTPUT]   (default: cone.obj next to this script)
"""

import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_mug import signed_volume, write_obj  # noqa: E402  (the same volume and OBJ writer)

RADIUS = 0.06  # base radius [m]
HEIGHT = 0.12  # apex height [m]
SEGMENTS = 32  # vertices on the base circle


def build():
    vertices = [(0.0, 0.0, 0.0), (0.0, 0.0, HEIGHT)]  # 0: base centre, 1: apex
    for k in range(SEGMENTS):
        a = 2 * math.pi * k / SEGMENTS
        vertices.append((RADIUS * math.cos(a), RADIUS * math.sin(a), 0.0))
    triangles = []
    for k in range(SEGMENTS):
        i, j = 2 + k, 2 + (k + 1) % SEGMENTS
        triangles.append((i, j, 1))  # side: counter-clockwise seen from outside
        triangles.append((0, j, i))  # base: seen from below
    return vertices, triangles


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "cone.obj")
    vertices, triangles = build()
    polygon = 0.5 * SEGMENTS * RADIUS**2 * math.sin(2 * math.pi / SEGMENTS)  # the base polygon's area
    volume = signed_volume(vertices, triangles)
    if abs(volume - polygon * HEIGHT / 3) > 1e-12:
        sys.exit(f"cone.obj: signed volume {volume} is not the polygonal cone's {polygon * HEIGHT / 3}")
    write_obj(out, f"cone: base radius {RADIUS} m, height {HEIGHT} m, {SEGMENTS} segments (assets/meshes/make_cone.py)",
              vertices, triangles)


if __name__ == "__main__":
    main()
