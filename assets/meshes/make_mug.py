#!/usr/bin/env python3
"""Writes assets/meshes/mug.obj: a mug (a cup without a handle) as a closed triangle mesh, for a rigid body.

Our own generator (Python 3 standard library only). The mug is a solid of revolution about the z axis: outer radius
OUTER, inner radius INNER, height HEIGHT, a bottom BOTTOM thick; its frame's origin is the centre of its base. The
profile (r, z) runs from the axis on the base, out along the base, up the outer wall, over the rim, down the inner
wall and in along the inner bottom back to the axis; it is swept about z in SEGMENTS steps. Triangles are wound
counter-clockwise seen from outside (outward normals), so the signed volume is positive.

Usage: python3 assets/meshes/make_mug.py [OUTPUT]   (default: mug.obj next to this script)
"""

import math
import os
import sys

OUTER = 0.04  # outer radius [m]
INNER = 0.03  # inner radius [m]
HEIGHT = 0.10  # height [m]
BOTTOM = 0.01  # thickness of the bottom [m]
SEGMENTS = 40  # steps of the sweep about z

# The profile off the axis, in order: base, outer wall, rim, inner wall, inner bottom.
PROFILE = [(OUTER, 0.0), (OUTER, HEIGHT), (INNER, HEIGHT), (INNER, BOTTOM)]


def build():
    vertices = [(0.0, 0.0, 0.0)]  # 0: the base's centre
    for r, z in PROFILE:
        for k in range(SEGMENTS):
            a = 2.0 * math.pi * k / SEGMENTS
            vertices.append((r * math.cos(a), r * math.sin(a), z))
    top = len(vertices)
    vertices.append((0.0, 0.0, BOTTOM))  # the inner bottom's centre

    def ring(i, k):
        return 1 + i * SEGMENTS + k % SEGMENTS

    faces = []
    for k in range(SEGMENTS):  # the base, seen from below
        faces.append((0, ring(0, k + 1), ring(0, k)))
    for i in range(len(PROFILE) - 1):  # the walls and the rim: quads between consecutive rings
        for k in range(SEGMENTS):
            a, b = ring(i, k), ring(i, k + 1)
            c, d = ring(i + 1, k + 1), ring(i + 1, k)
            faces.append((a, b, c))
            faces.append((a, c, d))
    last = len(PROFILE) - 1
    for k in range(SEGMENTS):  # the inner bottom, seen from above
        faces.append((top, ring(last, k), ring(last, k + 1)))
    return vertices, faces


def signed_volume(vertices, faces):
    total = 0.0
    for a, b, c in faces:
        (ax, ay, az), (bx, by, bz), (cx, cy, cz) = vertices[a], vertices[b], vertices[c]
        total += (ax * (by * cz - bz * cy) - ay * (bx * cz - bz * cx) + az * (bx * cy - by * cx)) / 6.0
    return total


def write_obj(path, comment, vertices, triangles, number=".9g"):
    """Writes a triangle mesh as OBJ: a comment line, then the vertices (each coordinate in `number` format) and the
    triangles (1-based). Shared by the generators in this folder."""
    with open(path, "w", encoding="ascii") as f:
        f.write(f"# {comment}\n")
        for x, y, z in vertices:
            f.write(f"v {x:{number}} {y:{number}} {z:{number}}\n")
        for a, b, c in triangles:
            f.write(f"f {a + 1} {b + 1} {c + 1}\n")


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "mug.obj")
    vertices, faces = build()
    volume = signed_volume(vertices, faces)
    expected = math.pi * (OUTER**2 * HEIGHT - INNER**2 * (HEIGHT - BOTTOM))
    if abs(volume - expected) > 0.02 * expected:
        sys.exit(f"make_mug.py: signed volume {volume:.4e} m^3, expected about {expected:.4e}: bad winding")
    write_obj(out, f"mug: outer radius {OUTER} m, inner {INNER} m, height {HEIGHT} m, bottom {BOTTOM} m; "
              "written by make_mug.py", vertices, faces, number=".6f")
    print(f"{out}: {len(vertices)} vertices, {len(faces)} triangles, volume {volume:.4e} m^3")


if __name__ == "__main__":
    main()
