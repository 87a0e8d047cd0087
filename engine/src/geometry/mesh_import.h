// Loads a triangle mesh of any format the studio accepts: Wavefront OBJ through tinyobjloader (LoadObjMesh), every
// other format Assimp reads (STL, DAE, PLY, glTF, ...) through Assimp, triangulated, with vertices at the same
// position joined.
#pragma once

#include <filesystem>

#include "geometry/triangle_mesh.h"

namespace ductile::geometry {

/// The mesh in `file`, all of its meshes merged, in the file's units. Throws std::runtime_error naming the file
/// when it cannot be read or holds no triangles.
TriangleMesh LoadMesh(const std::filesystem::path& file);

}  // namespace ductile::geometry
