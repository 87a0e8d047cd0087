#!/usr/bin/env python3
"""Checks the robot descriptions in assets/robots and prints the numbers quoted in assets/robots/README.md.

Standard library only. Usage: python3 assets/robots/verify_urdf.py [FILE.urdf ...]  (default: every URDF here)

For each file: well-formed XML; primitive geometry only (box, sphere, cylinder); every mass > 0; every
inertia positive definite with principal moments that satisfy the triangle inequality; every joint's parent
and child defined, no link with two parents, exactly one root, no cycle; limits ordered, efforts and
velocities > 0, damping >= 0, axes of unit length. Then the total mass, the zero-pose forward kinematics (the
position of every link frame in the root frame) and the overall centre of mass; collision shapes of links
that are not parent and child must not overlap in the zero pose (checked on axis-aligned bounding boxes).
Exits 1 on any failure.
"""
import glob
import math
import os
import sys
import xml.dom.minidom
import xml.etree.ElementTree as ET


def vec(text, n=3):
    v = [float(x) for x in (text or "").split()]
    return v if v else [0.0] * n


def rot_rpy(r, p, y):
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), math.sin(y)
    return [[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
            [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
            [-sp, cp * sr, cp * cr]]


def rot_axis(a, t):
    x, y, z = a
    c, s, C = math.cos(t), math.sin(t), 1 - math.cos(t)
    return [[c + x * x * C, x * y * C - z * s, x * z * C + y * s],
            [y * x * C + z * s, c + y * y * C, y * z * C - x * s],
            [z * x * C - y * s, z * y * C + x * s, c + z * z * C]]


def mm(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)] for i in range(3)]


def mv(a, v):
    return [sum(a[i][k] * v[k] for k in range(3)) for i in range(3)]


def add(a, b):
    return [a[i] + b[i] for i in range(3)]


def compose(x1, x2):  # poses as (R, p)
    return (mm(x1[0], x2[0]), add(x1[1], mv(x1[0], x2[1])))


def origin_of(el):
    o = el.find("origin") if el is not None else None
    if o is None:
        return ([[1, 0, 0], [0, 1, 0], [0, 0, 1]], [0.0, 0.0, 0.0])
    return (rot_rpy(*vec(o.get("rpy"))), vec(o.get("xyz")))


def sym_eigenvalues(m):
    """Eigenvalues of a symmetric 3x3 matrix (closed form)."""
    p1 = m[0][1] ** 2 + m[0][2] ** 2 + m[1][2] ** 2
    if p1 == 0:
        return sorted([m[0][0], m[1][1], m[2][2]])
    q = (m[0][0] + m[1][1] + m[2][2]) / 3
    p2 = sum((m[i][i] - q) ** 2 for i in range(3)) + 2 * p1
    p = math.sqrt(p2 / 6)
    b = [[(m[i][j] - (q if i == j else 0)) / p for j in range(3)] for i in range(3)]
    det = (b[0][0] * (b[1][1] * b[2][2] - b[1][2] * b[2][1]) - b[0][1] * (b[1][0] * b[2][2] - b[1][2] * b[2][0])
           + b[0][2] * (b[1][0] * b[2][1] - b[1][1] * b[2][0]))
    phi = math.acos(max(-1.0, min(1.0, det / 2))) / 3
    e1 = q + 2 * p * math.cos(phi)
    e3 = q + 2 * p * math.cos(phi + 2 * math.pi / 3)
    return sorted([e1, 3 * q - e1 - e3, e3])


def shape_half_extents(geom):
    """Local axis-aligned half extents of a primitive, or None for anything else."""
    box, sph, cyl = geom.find("box"), geom.find("sphere"), geom.find("cylinder")
    if box is not None:
        return [s / 2 for s in vec(box.get("size"))]
    if sph is not None:
        r = float(sph.get("radius"))
        return [r, r, r]
    if cyl is not None:
        r, l = float(cyl.get("radius")), float(cyl.get("length"))
        return [r, r, l / 2]
    return None


def world_aabb(pose, half):
    r, p = pose
    ext = [sum(abs(r[i][k]) * half[k] for k in range(3)) for i in range(3)]
    return [p[i] - ext[i] for i in range(3)], [p[i] + ext[i] for i in range(3)]


def check(path):
    errors = []
    xml.dom.minidom.parse(path)  # raises on malformed XML
    root = ET.parse(path).getroot()
    links = {l.get("name"): l for l in root.findall("link")}
    joints = root.findall("joint")
    print("== %s  (robot '%s': %d links, %d joints)" % (path, root.get("name"), len(links), len(joints)))

    # Geometry: primitives only.
    for l in links.values():
        for kind in ("visual", "collision"):
            for g in l.findall(kind):
                if shape_half_extents(g.find("geometry")) is None:
                    errors.append("%s: %s geometry that is not box/sphere/cylinder" % (l.get("name"), kind))

    # Inertials.
    total = 0.0
    for name, l in links.items():
        inert = l.find("inertial")
        if inert is None:
            continue
        m = float(inert.find("mass").get("value"))
        i = inert.find("inertia")
        ixx, iyy, izz, ixy, ixz, iyz = (float(i.get(k)) for k in ("ixx", "iyy", "izz", "ixy", "ixz", "iyz"))
        ev = sym_eigenvalues([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
        if m <= 0:
            errors.append("%s: mass %g <= 0" % (name, m))
        if ev[0] <= 0:
            errors.append("%s: inertia not positive definite, eigenvalues %s" % (name, ev))
        if ev[0] + ev[1] < ev[2] * (1 - 1e-9):
            errors.append("%s: principal moments %s violate the triangle inequality" % (name, ev))
        total += m

    # Tree structure.
    parent_of = {}
    for j in joints:
        p, c = j.find("parent").get("link"), j.find("child").get("link")
        for ln in (p, c):
            if ln not in links:
                errors.append("joint %s names undefined link %s" % (j.get("name"), ln))
        if c in parent_of:
            errors.append("link %s has two parent joints" % c)
        parent_of[c] = j
        jt = j.get("type")
        if jt in ("revolute", "prismatic"):
            lim = j.find("limit")
            lo, hi = float(lim.get("lower")), float(lim.get("upper"))
            eff, vel = float(lim.get("effort")), float(lim.get("velocity"))
            if lo > hi or eff <= 0 or vel <= 0:
                errors.append("joint %s: bad limits" % j.get("name"))
            axis = vec(j.find("axis").get("xyz"))
            if abs(math.sqrt(sum(a * a for a in axis)) - 1) > 1e-9:
                errors.append("joint %s: axis not unit" % j.get("name"))
        dyn = j.find("dynamics")
        if dyn is not None and float(dyn.get("damping", "0")) < 0:
            errors.append("joint %s: negative damping" % j.get("name"))
    roots = [n for n in links if n not in parent_of]
    if len(roots) != 1:
        errors.append("expected one root link, found %s" % roots)
    for n in links:  # cycle check: walk up to the root
        seen, k = set(), n
        while k in parent_of:
            if k in seen:
                errors.append("cycle through %s" % k)
                break
            seen.add(k)
            k = parent_of[k].find("parent").get("link")
    if errors:
        return errors, None

    # Forward kinematics at q (dict joint name -> value; default 0).
    def fk(q):
        poses = {roots[0]: ([[1, 0, 0], [0, 1, 0], [0, 0, 1]], [0.0, 0.0, 0.0])}
        pending = list(joints)
        while pending:
            for j in list(pending):
                p, c = j.find("parent").get("link"), j.find("child").get("link")
                if p not in poses:
                    continue
                x = compose(poses[p], origin_of(j))
                v = q.get(j.get("name"), 0.0)
                if j.get("type") in ("revolute", "continuous"):
                    x = (mm(x[0], rot_axis(vec(j.find("axis").get("xyz")), v)), x[1])
                elif j.get("type") == "prismatic":
                    x = (x[0], add(x[1], mv(x[0], [a * v for a in vec(j.find("axis").get("xyz"))])))
                poses[c] = x
                pending.remove(j)
        return poses

    poses = fk({})
    print("  total mass %.3f kg" % total)
    print("  zero-pose link frames (x, y, z) in %s [m]:" % roots[0])
    for n in links:
        p = poses[n][1]
        print("    %-22s %8.4f %8.4f %8.4f" % (n, p[0] + 0.0, p[1] + 0.0, p[2] + 0.0))
    com = [0.0, 0.0, 0.0]
    for n, l in links.items():
        inert = l.find("inertial")
        if inert is not None:
            c = compose(poses[n], origin_of(inert))[1]
            m = float(inert.find("mass").get("value"))
            com = add(com, [m * x / total for x in c])
    print("  zero-pose centre of mass: (%.4f, %.4f, %.4f)" % tuple(com))

    # Non-neighbour collision overlap in the zero pose.
    boxes = []
    for n, l in links.items():
        for c in l.findall("collision"):
            lo, hi = world_aabb(compose(poses[n], origin_of(c)), shape_half_extents(c.find("geometry")))
            boxes.append((n, lo, hi))
    neighbours = {frozenset((j.find("parent").get("link"), j.find("child").get("link"))) for j in joints}
    for a in range(len(boxes)):
        for b in range(a + 1, len(boxes)):
            na, la, ha = boxes[a]
            nb, lb, hb = boxes[b]
            if na == nb or frozenset((na, nb)) in neighbours:
                continue
            depth = min(min(ha[i], hb[i]) - max(la[i], lb[i]) for i in range(3))
            if depth > 1e-9:
                errors.append("zero pose: collision boxes of %s and %s overlap by %.4f m" % (na, nb, depth))
            elif depth > -1e-9:
                print("  note: %s and %s touch in the zero pose" % (na, nb))
    return errors, fk


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    files = sys.argv[1:] or sorted(glob.glob(os.path.join(here, "*", "*.urdf")))
    failed = False
    for f in files:
        errors, fk = check(f)
        if fk is not None:
            poses = fk({})
            if "iiwa_link_ee" in poses:
                print("  flange (iiwa_link_ee) height in the zero pose: %.4f m (expected 0.340+0.400+0.400+0.126 = 1.266)"
                      % poses["iiwa_link_ee"][1][2])
                if abs(poses["iiwa_link_ee"][1][2] - 1.266) > 1e-9:
                    errors.append("flange height is not 1.266 m")
                q = {"iiwa_joint_2": math.pi / 2}
                p = fk(q)["iiwa_link_ee"][1]
                print("  iiwa_joint_2 = +90 deg: flange at (%.4f, %.4f, %.4f)" % tuple(p))
                q = {"iiwa_joint_4": math.pi / 2}
                p = fk(q)["iiwa_link_ee"][1]
                print("  iiwa_joint_4 = +90 deg: flange at (%.4f, %.4f, %.4f)" % tuple(p))
            if "gripper_finger_left" in poses:
                for q in (0.0, 0.02, 0.04):
                    pz = fk({"gripper_finger_left_joint": q, "gripper_finger_right_joint": q})
                    yl = pz["gripper_finger_left"][1][1]
                    yr = pz["gripper_finger_right"][1][1]
                    print("  fingers at q = %.3f: left frame y = %+.3f, right frame y = %+.3f, pad gap %.3f m"
                          % (q, yl, yr, yl - yr))
        for e in errors:
            print("  ERROR: " + e)
        failed |= bool(errors)
        print("  %s" % ("FAILED" if errors else "ok"))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
