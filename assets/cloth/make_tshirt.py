#!/usr/bin/env python3
"""Writes assets/cloth/tshirt.obj: a T-shirt to be simulated as cloth (a `mesh` shape of a `cloth` material).

Our own generator (Python 3 standard library only). The shirt lies flat in the x-y plane, its front layer at
z = +GAP/2 and its back layer at z = -GAP/2, about 0.5 m wide and 0.65 m long (waist at y = -0.325, shoulders at
y = +0.325), with short sleeves and a neck opening. The two layers share their vertices (are stitched, at z = 0)
along the side seams, under the sleeves, on the shoulders and along the top of the sleeves; the shirt is open at
the neck, the waist and the sleeve ends.

Each layer is made of quadrilateral patches (bilinear, or with a curved top edge for the neck), each meshed with a
regular grid of about SPACING, its cells cut along alternating diagonals. Patches meet along whole edges with the
same number of divisions, so their vertices coincide and are welded here (one OBJ vertex per position). The size
follows Yu et al. 2025 (Table I): about 4,000 vertices and 8,000 triangles, 12,160 particles in all.

Usage: python3 assets/cloth/make_tshirt.py [OUTPUT]   (default: tshirt.obj next to this script)
"""

import math
import os
import sys

SPACING = 0.0142  # target grid spacing of the patches [m]
GAP = 0.005  # distance between the front and back layers [m]

# The outline of the left half in metres, waist at y = 0 (shifted to centre the shirt on the origin when written).
HALF_WIDTH = 0.25  # body: x in [-0.25, 0.25]
ARMPIT_Y = 0.45  # where the sleeve's underarm seam meets the side seam
NECK_HALF_WIDTH = 0.09  # the neck opening's half width at the shoulders
NECK_Y = 0.65  # shoulder seam at the neck (the top of the shirt)
SHOULDER = (-0.235, 0.62)  # where the shoulder seam meets the sleeve
FRONT_NECK_DEPTH = 0.09  # the neck's drop below NECK_Y at the centre, front
BACK_NECK_DEPTH = 0.025  # and back
NECK_ROUNDNESS = 1.2  # the neck's drop is depth · sin(πu)^NECK_ROUNDNESS along its width, u in [0, 1]
SLEEVE_ANGLE = math.radians(30)  # the sleeves point this far below horizontal
SLEEVE_LENGTH = 0.2  # along the top of the sleeve [m]
SLEEVE_END_WIDTH = 0.14  # across the sleeve's open end [m]


def divisions(length):
    return max(1, round(length / SPACING))


def lerp(a, b, t):
    return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)


class Patch:
    """A quadrilateral p00, p10, p11, p01 (counter-clockwise seen from +z) meshed nu x nv. `top(u)` may replace the
    straight edge from p01 to p11. `seams` names the edges ('u0', 'u1', 'v0', 'v1') stitched to the other layer."""

    def __init__(self, p00, p10, p11, p01, nu, nv, top=None, seams=()):
        self.corners = (p00, p10, p11, p01)
        self.nu, self.nv, self.top, self.seams = nu, nv, top, set(seams)

    def point(self, i, j):
        p00, p10, p11, p01 = self.corners
        u, v = i / self.nu, j / self.nv
        bottom = lerp(p00, p10, u)
        top = self.top(u) if self.top else lerp(p01, p11, u)
        return lerp(bottom, top, v)

    def on_seam(self, i, j):
        return (
            ("u0" in self.seams and i == 0)
            or ("u1" in self.seams and i == self.nu)
            or ("v0" in self.seams and j == 0)
            or ("v1" in self.seams and j == self.nv)
        )


def mirror(p):
    return (-p[0], p[1])


def neck_curve(depth):
    """The neck opening from (-NECK_HALF_WIDTH, NECK_Y) to (+NECK_HALF_WIDTH, NECK_Y), `depth` lower at the centre:
    a round curve that leaves the shoulders gently, so that the cells below it are not sheared too far."""

    def top(u):
        x = NECK_HALF_WIDTH * (2 * u - 1)
        return (x, NECK_Y - depth * math.sin(math.pi * u) ** NECK_ROUNDNESS)

    return top


def layer(neck_depth):
    """The patches of one layer (the same outline front and back but for the neck's depth)."""
    w, n = HALF_WIDTH, NECK_HALF_WIDTH
    side = divisions(w - n)  # columns of a side panel
    centre = 2 * divisions(n)  # columns of the centre panel (even: a vertex on the centre line)
    lower = divisions(ARMPIT_Y)
    upper = divisions(NECK_Y - ARMPIT_Y)
    armpit, shoulder = (-w, ARMPIT_Y), SHOULDER
    # The sleeve: its top edge runs SLEEVE_LENGTH from the shoulder, SLEEVE_ANGLE below the -x direction; its open
    # end is square to it, SLEEVE_END_WIDTH across.
    d = (-math.cos(SLEEVE_ANGLE), -math.sin(SLEEVE_ANGLE))
    top_end = (shoulder[0] + SLEEVE_LENGTH * d[0], shoulder[1] + SLEEVE_LENGTH * d[1])
    bottom_end = (top_end[0] - SLEEVE_END_WIDTH * d[1], top_end[1] + SLEEVE_END_WIDTH * d[0])
    sleeve = divisions(SLEEVE_LENGTH)
    patches = []
    for flip in (False, True):  # the left half, then its mirror image
        m = mirror if flip else (lambda p: p)

        def add(p00, p10, p11, p01, nu, nv, seams):
            if flip:  # mirrored: swap u's ends to stay counter-clockwise
                swap = {"u0": "u1", "u1": "u0"}
                seams = [swap.get(s, s) for s in seams]
                p00, p10, p11, p01 = m(p10), m(p00), m(p01), m(p11)
            patches.append(Patch(p00, p10, p11, p01, nu, nv, seams=seams))

        add((-w, 0), (-n, 0), (-n, ARMPIT_Y), (-w, ARMPIT_Y), side, lower, ["u0"])  # lower side panel: side seam
        add(armpit, (-n, ARMPIT_Y), (-n, NECK_Y), shoulder, side, upper, ["v1"])  # upper side panel: shoulder seam
        # The sleeve: u from its open end to the armhole, v from the underarm seam to the top of the sleeve.
        add(bottom_end, armpit, shoulder, top_end, sleeve, upper, ["v0", "v1"])
    patches.append(Patch((-n, 0), (n, 0), (n, ARMPIT_Y), (-n, ARMPIT_Y), centre, lower))
    patches.append(
        Patch((-n, ARMPIT_Y), (n, ARMPIT_Y), (n, NECK_Y), (-n, NECK_Y), centre, upper, top=neck_curve(neck_depth))
    )
    return patches


def build():
    """Vertices (x, y, z) and triangles (0-based, counter-clockwise seen from outside the shirt)."""
    vertices, index, triangles = [], {}, []

    def vertex(p, z):
        key = (round(p[0], 9), round(p[1], 9), round(z, 9))
        if key not in index:
            index[key] = len(vertices)
            vertices.append(key)
        return index[key]

    def key2(p):
        return (round(p[0], 9), round(p[1], 9))

    for z, depth in ((GAP / 2, FRONT_NECK_DEPTH), (-GAP / 2, BACK_NECK_DEPTH)):
        patches = layer(depth)
        # A point on a seam of one patch is on it in every patch it belongs to (a patch's corner may lie on another
        # patch's seam): stitched points are found by position first.
        seam = {
            key2(p.point(i, j))
            for p in patches
            for i in range(p.nu + 1)
            for j in range(p.nv + 1)
            if p.on_seam(i, j)
        }
        for patch in patches:
            ids = [
                [
                    vertex(patch.point(i, j), 0.0 if key2(patch.point(i, j)) in seam else z)
                    for j in range(patch.nv + 1)
                ]
                for i in range(patch.nu + 1)
            ]
            for i in range(patch.nu):
                for j in range(patch.nv):
                    a, b, c, d = ids[i][j], ids[i + 1][j], ids[i + 1][j + 1], ids[i][j + 1]
                    # The shorter diagonal of a sheared cell; in a square one alternating diagonals, so that the
                    # mesh has no preferred shear direction.
                    ac, bd = math.dist(vertices[a], vertices[c]), math.dist(vertices[b], vertices[d])
                    use_ac = ac < 0.99 * bd or (abs(ac - bd) <= 0.01 * bd and (i + j) % 2 == 0)
                    pair = [(a, b, c), (a, c, d)] if use_ac else [(a, b, d), (b, c, d)]
                    for t in pair:
                        triangles.append(t if z > 0 else (t[0], t[2], t[1]))  # the back faces -z
    # Centre the shirt on the origin along y.
    shift = NECK_Y / 2
    vertices = [(x, y - shift, z) for x, y, z in vertices]
    return vertices, triangles


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "tshirt.obj")
    vertices, triangles = build()
    with open(out, "w", encoding="ascii", newline="\n") as f:
        f.write("# T-shirt for cloth simulation: front and back layers 5 mm apart, stitched at the side seams, under\n")
        f.write("# and along the top of the sleeves and on the shoulders; open at the neck, waist and sleeve ends.\n")
        f.write("# Flat in the x-y plane, about 0.5 m wide and 0.65 m long, in metres.\n")
        f.write("# Source: our own generator, assets/cloth/make_tshirt.py (Ductile); do not edit by hand.\n")
        f.write(f"# {len(vertices)} vertices, {len(triangles)} triangles\n")
        for x, y, z in vertices:
            f.write(f"v {x:.6f} {y:.6f} {z:.6f}\n")
        for a, b, c in triangles:
            f.write(f"f {a + 1} {b + 1} {c + 1}\n")
    print(f"{out}: {len(vertices)} vertices, {len(triangles)} triangles")


if __name__ == "__main__":
    main()
