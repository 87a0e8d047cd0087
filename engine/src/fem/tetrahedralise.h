// Tetrahedral meshes of simple solids for the FEM-IPC domain, generated on a regular grid.
//
// Grid: every hexahedral cell is split into the 6 tets of the Kuhn (Freudenthal) triangulation: for each ordering
// (a, b, c) of the axes, the tet with corners 0, e_a, e_a + e_b, e_a + e_b + e_c of the unit cell (Kuhn 1960;
// Freudenthal 1942). All cells are split alike, so neighbouring cells' faces match and the mesh is conforming; a tet
// of an odd ordering has negative volume and gets two corners swapped, so every tet is positive (fem/tet_mesh.h).
//
// Solids given by a signed distance φ (negative inside): the Kuhn-split grid over the bounding box padded by one
// cell, with cubic cells of edge h; a tet is kept when φ(centroid) < 0. Where the kept tets' boundary is not a
// 2-manifold (more than two boundary triangles on an edge, or several fans of them at a vertex), all grid tets
// around the offending vertex are added, until it is. Then three passes, each of which
// 1. moves every boundary vertex, one at a time in index order, towards its projection p − φ(p)·∇φ/|∇φ|² (Newton
//    steps on φ = 0 from its grid position p, ∇φ by central differences): the whole way, or halved (up to 6 times,
//    else not at all) until every tet around it keeps a volume-to-length quality (TetQuality in fem/tet_mesh.h) of
//    at least 0.15, so no tet is ever inverted or flat;
// 2. smooths every inner vertex: it moves to the mean of its neighbours when that raises the worst quality of the
//    tets around it (a guarded, "smart" Laplacian smoothing, Freitag 1997), making room for step 1.
// This approximates isosurface stuffing (Labelle and Shewchuk 2007, "Isosurface Stuffing: Fast Tetrahedral Meshes
// with Good Dihedral Angles") without its guarantees: the quality threshold bounds the dihedral angles only loosely
// (smallest about 7° in the tests); a tet with all four corners on the boundary cannot lie flat on the surface, so
// one of them stays off it (up to about 0.6 h; some 70 % of the boundary vertices do reach it); features thinner
// than about h are lost; sharp edges and corners are rounded; nothing checks that the boundary does not fold onto
// itself.
// Typical volume error: −2 % for a sphere of radius 5h, under 1 % at 10h.
//
// Closed triangle meshes: the same, with inside meaning a generalized winding number |w| > 1/2 (Jacobson, Kavan and
// Sorkine-Hornung 2013) and the projection the closest point on the mesh (Ericson 2005, "Real-Time Collision
// Detection" §5.1.5), both by brute force over all triangles: O(tets·triangles), fine for meshes of a few thousand
// triangles at a few tens of cells across (a 4,000-triangle sphere at 24 cells across: 25,000 tets in about 4 s on
// one core of the development machine).
//
// Every function here keeps no state: calls from several threads at once are safe (TetrahedraliseSdf calls `sdf`
// on the calling thread only).
#pragma once

#include <array>
#include <functional>
#include <vector>

#include <Eigen/Core>

#include "fem/tet_mesh.h"

namespace ductile::geometry {
struct TriangleMesh;
}

namespace ductile::fem {

/// A signed distance φ(p) [m] of a point p [m]: negative inside the solid, positive outside. It only needs to be
/// exact near the surface (|φ| within a few h) and continuous.
using SignedDistanceFunction = std::function<double(const Eigen::Vector3d&)>;

/// The box [−half_extents, +half_extents] [m] (all three > 0), centred on the origin, as a grid of
/// ⌈2·half_extent / h⌉ cells along each axis (at least 1; the spacing shrinks to fit exactly), 6 Kuhn tets per cell,
/// all positive. `h` [m] > 0 the target edge length. Throws std::invalid_argument on a non-positive or non-finite
/// size, or when the grid would exceed 2·10⁶ cells.
TetMesh TetrahedraliseBox(const Eigen::Vector3d& half_extents, double h);

/// A thin sheet [−size_x/2, size_x/2] × [−size_y/2, size_y/2] × [−thickness/2, thickness/2] [m], centred on the
/// origin: one cell through the thickness, ⌈size / h⌉ cells along x and y, 6 Kuhn tets per cell. The tets are as
/// flat as thickness / h makes them. Throws like TetrahedraliseBox.
TetMesh TetrahedraliseSheet(double size_x, double size_y, double thickness, double h);

/// The solid φ < 0 inside the box [box_min, box_max] [m] (which should enclose it), meshed as the file comment
/// says with target edge length `h` [m] > 0. Calls `sdf` O(tets) times, from this thread only. Throws
/// std::invalid_argument on an empty or non-finite box, a non-positive h, a grid of more than 2·10⁶ cells, or when
/// no tet is kept (the solid is thinner than h, or outside the box).
TetMesh TetrahedraliseSdf(const SignedDistanceFunction& sdf, const Eigen::Vector3d& box_min,
                          const Eigen::Vector3d& box_max, double h);

/// A ball of `radius` [m] > 0 centred on the origin (TetrahedraliseSdf). Throws like it.
TetMesh TetrahedraliseSphere(double radius, double h);

/// A cylinder of `radius` [m] > 0 along z, from z = −half_length to +half_length [m] > 0, centred on the origin
/// (TetrahedraliseSdf; its rims are rounded to about h). Throws like it.
TetMesh TetrahedraliseCylinder(double radius, double half_length, double h);

/// A capsule along z: the points within `radius` [m] > 0 of the segment from (0, 0, −half_length) to
/// (0, 0, +half_length) [m] ≥ 0 (TetrahedraliseSdf). Throws like it.
TetMesh TetrahedraliseCapsule(double radius, double half_length, double h);

/// The solid that a closed triangle mesh encloses (outward or inward, but consistently oriented), meshed as the file
/// comment says with target edge length `h` [m] > 0. `error` (and no mesh) when a triangle index is out of range, a
/// triangle repeats a vertex, the mesh is open (an edge not shared by exactly two triangles) or inconsistently
/// oriented, or no tet is kept; the message names the triangle or edge (indices from 0). Throws std::invalid_argument
/// on a non-positive h or a grid of more than 2·10⁶ cells. Cost O(tets × triangles) (file comment).
TetMeshResult TetrahedraliseTriangleMesh(const geometry::TriangleMesh& mesh, double h);

}  // namespace ductile::fem
