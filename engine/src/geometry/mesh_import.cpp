#include "geometry/mesh_import.h"

#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <array>
#include <assimp/Importer.hpp>
#include <map>
#include <stdexcept>
#include <vector>

namespace ductile::geometry {

TriangleMesh LoadMesh(const std::filesystem::path& file) {
  std::string extension = file.extension().string();
  for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (extension == ".obj") return LoadObjMesh(file);

  Assimp::Importer importer;
  // Keep the file's own units and axes: URDF meshes are given in the link frame as they are.
  importer.SetPropertyBool(AI_CONFIG_IMPORT_COLLADA_IGNORE_UP_DIRECTION, true);
  const aiScene* scene = importer.ReadFile(
      file.string(), aiProcess_Triangulate | aiProcess_JoinIdenticalVertices | aiProcess_PreTransformVertices);
  if (!scene) throw std::runtime_error("cannot read mesh '" + file.string() + "': " + importer.GetErrorString());
  // Vertices at the same position are one vertex (formats such as STL repeat them per face, with normals that
  // keep Assimp from joining them), so the mesh is closed when the surface is.
  TriangleMesh mesh;
  std::map<std::array<double, 3>, int> index_of;
  for (unsigned m = 0; m < scene->mNumMeshes; ++m) {
    const aiMesh* part = scene->mMeshes[m];
    std::vector<int> index(part->mNumVertices);
    for (unsigned v = 0; v < part->mNumVertices; ++v) {
      const std::array<double, 3> p{part->mVertices[v].x, part->mVertices[v].y, part->mVertices[v].z};
      const auto [it, added] = index_of.try_emplace(p, static_cast<int>(mesh.vertices.size()));
      if (added) mesh.vertices.emplace_back(p[0], p[1], p[2]);
      index[v] = it->second;
    }
    for (unsigned f = 0; f < part->mNumFaces; ++f) {
      const aiFace& face = part->mFaces[f];
      if (face.mNumIndices != 3) continue;  // points and lines left after triangulation
      mesh.triangles.push_back({index[face.mIndices[0]], index[face.mIndices[1]], index[face.mIndices[2]]});
    }
  }
  if (mesh.triangles.empty()) throw std::runtime_error("mesh '" + file.string() + "' has no triangles");
  return mesh;
}

}  // namespace ductile::geometry
