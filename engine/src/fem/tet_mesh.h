// Tetrahedral meshes for the FEM-IPC domain: the mesh itself, its check (orientation, degenerate and non-manifold
// elements), the boundary surface that IPC contact needs (triangles, edges, vertices), and a reader for Gmsh's
// MSH 4 ASCII files.
//
// Orientation: a tet (a, b, c, d) is positive when its signed volume
//   V = (b − a)·((c − a) × (d − a)) / 6
// is positive, i.e. d lies on the side of triangle (a, b, c) that its counter-clockwise normal points to. Its faces
// seen counter-clockwise from outside are then (a, c, b), (a, b, d), (a, d, c) and (b, c, d).
//
// Boundary: a face is on the boundary when exactly one tet has it; seen from outside, a consistent mesh's two tets
// on an inner face list it in opposite orders.
//
// Gmsh file format: MSH 4.1 (and 4.0) ASCII as documented in the Gmsh reference manual (Geuzaine and Remacle 2009,
// "Gmsh: a 3-D finite element mesh generator with built-in pre- and post-processing facilities").
//
// The functions keep no state: calls from several threads at once are safe on different meshes (CheckAndOrient and
// RemoveUnreferencedVertices modify theirs).
#pragma once

#include <array>
#include <filesystem>
#include <string>
#include <vector>

#include <Eigen/Core>

namespace ductile::fem {

/// A tetrahedral mesh in its own frame. Plain data; not synchronised (share it read-only).
struct TetMesh {
  std::vector<Eigen::Vector3d> vertices;  ///< Vertex positions [m].
  std::vector<std::array<int, 4>> tets;   ///< Corner indices into `vertices`; positive (file comment) once
                                          ///< CheckAndOrient has accepted the mesh.
};

/// The boundary of a tetrahedral mesh, what IPC contact collides: plain data, derived from a TetMesh by
/// BuildSurface and stale once the mesh's connectivity changes (positions may move).
struct TetSurface {
  std::vector<std::array<int, 3>> triangles;  ///< Boundary faces, vertex indices of the TetMesh, counter-clockwise
                                              ///< seen from outside (outward normal (b − a) × (c − a)).
  std::vector<std::array<int, 2>> edges;      ///< Edges of the boundary faces, each once as (low, high), sorted.
  std::vector<int> vertices;                  ///< Vertices of the boundary faces, ascending.
};

/// What CheckAndOrient found.
struct TetMeshCheck {
  std::string error;              ///< Empty when the mesh is fine; otherwise the first problem, naming the tet,
                                  ///< vertex or face (indices from 0).
  int reoriented_tets = 0;        ///< Tets that had negative volume and got two corners swapped.
  int unreferenced_vertices = 0;  ///< Vertices that no tet uses (allowed; they carry no mass in an FEM model).
};

/// A mesh, or why there is none: `error` is empty exactly when `mesh` is valid.
struct TetMeshResult {
  TetMesh mesh;
  std::string error;
  bool ok() const { return error.empty(); }
};

/// Signed volume [m³] of the tet (a, b, c, d) (file comment): positive when oriented positively.
double SignedVolume(const Eigen::Vector3d& a, const Eigen::Vector3d& b, const Eigen::Vector3d& c,
                    const Eigen::Vector3d& d);

/// Signed volume [m³] of tet `t` of `mesh`; 0 ≤ t < tets.size().
double TetVolume(const TetMesh& mesh, int t);

/// Sum of the signed tet volumes [m³].
double TotalVolume(const TetMesh& mesh);

/// Volume-to-length quality [-] of the tet (a, b, c, d): 6√2·V / ℓ³ with ℓ the root mean square of its six edge
/// lengths; 1 for the regular tet, 0 for a flat one, negative for an inverted one. A cube's Kuhn tets score 0.657.
double TetQuality(const Eigen::Vector3d& a, const Eigen::Vector3d& b, const Eigen::Vector3d& c,
                  const Eigen::Vector3d& d);

/// Checks `mesh` and orients every tet positively, in this order: every corner index in range, every vertex finite,
/// no tet repeating a corner; a tet with negative volume gets corners 2 and 3 swapped (counted); a tet whose |V| is
/// below 1e-12·D³ (D the diagonal of the vertices' bounding box) is degenerate, an error naming it; a face shared by
/// more than two tets (non-manifold), or by two tets on the same side of it (overlapping tets, or two copies of one
/// tet), is an error naming the face's vertices and the tets. The first problem found is reported and the check
/// stops there (tets before it may already be reoriented). An empty mesh (no tets) is an error. O(n log n) in tets.
TetMeshCheck CheckAndOrient(TetMesh& mesh);

/// The boundary of `mesh` (see TetSurface), from faces that exactly one tet has. Expects positively oriented tets
/// (CheckAndOrient); a negative tet's faces come out pointing inward. O(n log n) in tets.
TetSurface BuildSurface(const TetMesh& mesh);

/// Drops the vertices that no tet uses and renumbers the others from 0 in their order.
void RemoveUnreferencedVertices(TetMesh& mesh);

/// Reads the 4-node tetrahedra (element type 4) of a Gmsh MSH 4.1 or 4.0 ASCII file; other element types (points,
/// lines, triangles, ...) and sections other than $MeshFormat, $Nodes and $Elements ($PhysicalNames, $Entities, ...)
/// are skipped. Every node is kept, in the order of the file, sparse node tags numbered densely from 0; unreferenced
/// ones stay (RemoveUnreferencedVertices drops them). The tets are then checked and oriented (CheckAndOrient).
/// Records are read one per line, as Gmsh writes them. On failure `error` names the file and, where it applies, the
/// line: "part.msh:12: expected 3 coordinates, got 2"; a binary file, a missing or unreadable file, a truncated
/// one, a tet referring to a node that $Nodes does not define, and a file with no tetrahedra are all errors.
TetMeshResult ReadGmsh(const std::filesystem::path& file);

}  // namespace ductile::fem
