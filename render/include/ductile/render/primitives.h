// Triangle meshes of the primitive shapes, centred in their own frame, with outward normals and
// counter-clockwise triangles seen from outside: what RenderScene instances of boxes, spheres, cylinders,
// capsules, planes and imported meshes draw.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "ductile/render/render_scene.h"

namespace ductile::render {

/// A box with the given half extents [m].
MeshData MakeBox(const Vec3& half_extents);
/// A UV sphere: `segments` around z, `rings` from pole to pole.
MeshData MakeSphere(float radius, int segments = 32, int rings = 16);
/// A closed cylinder along z, `length` long, centred at the origin.
MeshData MakeCylinder(float radius, float length, int segments = 48);
/// A capsule along z: a cylinder of `length` with hemispherical caps of `radius`.
MeshData MakeCapsule(float radius, float length, int segments = 32, int rings = 8);
/// A square of half side `half_size` in the plane z = 0, facing +z.
MeshData MakeSquare(float half_size);
/// An arbitrary triangle mesh with flat shading: each triangle gets its own three vertices and face normal.
MeshData MakeFlatMesh(const std::vector<std::array<float, 3>>& vertices,
                      const std::vector<std::array<std::uint32_t, 3>>& triangles);

}  // namespace ductile::render
