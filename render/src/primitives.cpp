#include "ductile/render/primitives.h"

#include <cmath>
#include <numbers>

#include "render_math.h"

namespace ductile::render {
namespace {

constexpr float kPi = std::numbers::pi_v<float>;

// Appends a vertex; returns its index.
std::uint32_t AddVertex(MeshData& m, const Vec3& p, const Vec3& n) {
  m.positions.push_back(p);
  m.normals.push_back(n);
  return static_cast<std::uint32_t>(m.positions.size() - 1);
}

void AddTriangle(MeshData& m, std::uint32_t a, std::uint32_t b, std::uint32_t c) {
  m.indices.insert(m.indices.end(), {a, b, c});
}

// A surface of revolution about z: `profile` lists (radius, z, normal_r, normal_z) from bottom to top; rings of
// `segments` vertices each, joined by quads. A zero radius at an end closes the surface at a pole.
void AddRevolution(MeshData& m, const std::vector<std::array<float, 4>>& profile, int segments) {
  const std::uint32_t first = static_cast<std::uint32_t>(m.positions.size());
  for (const auto& [r, z, nr, nz] : profile)
    for (int s = 0; s <= segments; ++s) {
      const float phi = 2 * kPi * static_cast<float>(s) / static_cast<float>(segments);
      const float c = std::cos(phi), si = std::sin(phi);
      AddVertex(m, {r * c, r * si, z}, Normalize({nr * c, nr * si, nz}, {0, 0, 1}));
    }
  const std::uint32_t row = static_cast<std::uint32_t>(segments + 1);
  for (std::uint32_t i = 0; i + 1 < profile.size(); ++i)
    for (std::uint32_t s = 0; s < static_cast<std::uint32_t>(segments); ++s) {
      const std::uint32_t a = first + i * row + s, b = a + 1, c = a + row, d = c + 1;
      AddTriangle(m, a, b, d);
      AddTriangle(m, a, d, c);
    }
}

// A flat disc at height z facing +z (up) or −z.
void AddDisc(MeshData& m, float radius, float z, bool up, int segments) {
  const Vec3 n{0, 0, up ? 1.0f : -1.0f};
  const std::uint32_t centre = AddVertex(m, {0, 0, z}, n);
  const std::uint32_t first = static_cast<std::uint32_t>(m.positions.size());
  for (int s = 0; s < segments; ++s) {
    const float phi = 2 * kPi * static_cast<float>(s) / static_cast<float>(segments);
    AddVertex(m, {radius * std::cos(phi), radius * std::sin(phi), z}, n);
  }
  for (int s = 0; s < segments; ++s) {
    const std::uint32_t a = first + static_cast<std::uint32_t>(s);
    const std::uint32_t b = first + static_cast<std::uint32_t>((s + 1) % segments);
    if (up)
      AddTriangle(m, centre, a, b);
    else
      AddTriangle(m, centre, b, a);
  }
}

}  // namespace

MeshData MakeBox(const Vec3& h) {
  MeshData m;
  // Per face: normal axis, sign; two tangents (u, v) with u × v = n so the quad winds counter-clockwise.
  for (int axis = 0; axis < 3; ++axis)
    for (const float sign : {1.0f, -1.0f}) {
      Vec3 n{0, 0, 0};
      n[axis] = sign;
      const int ua = (axis + 1) % 3, va = (axis + 2) % 3;
      std::uint32_t idx[4];
      const float us[4] = {-1, 1, 1, -1}, vs[4] = {-1, -1, 1, 1};
      for (int c = 0; c < 4; ++c) {
        Vec3 p{};
        p[axis] = sign * h[axis];
        p[ua] = us[c] * h[ua];
        p[va] = vs[c] * h[va] * sign;  // mirrored on the negative face to keep the winding outward
        idx[c] = AddVertex(m, p, n);
      }
      AddTriangle(m, idx[0], idx[1], idx[2]);
      AddTriangle(m, idx[0], idx[2], idx[3]);
    }
  return m;
}

MeshData MakeSphere(float radius, int segments, int rings) {
  MeshData m;
  std::vector<std::array<float, 4>> profile;
  for (int r = 0; r <= rings; ++r) {
    const float theta = kPi * static_cast<float>(r) / static_cast<float>(rings);  // from the south pole
    const float s = std::sin(theta), c = -std::cos(theta);
    profile.push_back({radius * s, radius * c, s, c});
  }
  AddRevolution(m, profile, segments);
  return m;
}

MeshData MakeCylinder(float radius, float length, int segments) {
  MeshData m;
  const float z = length / 2;
  AddRevolution(m, {{radius, -z, 1, 0}, {radius, z, 1, 0}}, segments);
  AddDisc(m, radius, z, true, segments);
  AddDisc(m, radius, -z, false, segments);
  return m;
}

MeshData MakeCapsule(float radius, float length, int segments, int rings) {
  MeshData m;
  std::vector<std::array<float, 4>> profile;
  const float z = length / 2;
  for (int r = 0; r <= rings; ++r) {  // bottom cap, pole to equator
    const float theta = 0.5f * kPi * static_cast<float>(r) / static_cast<float>(rings);
    profile.push_back({radius * std::sin(theta), -z - radius * std::cos(theta), std::sin(theta), -std::cos(theta)});
  }
  for (int r = 0; r <= rings; ++r) {  // top cap, equator to pole
    const float theta = 0.5f * kPi * static_cast<float>(r) / static_cast<float>(rings);
    profile.push_back({radius * std::cos(theta), z + radius * std::sin(theta), std::cos(theta), std::sin(theta)});
  }
  AddRevolution(m, profile, segments);
  return m;
}

MeshData MakeSquare(float half_size) {
  MeshData m;
  const Vec3 n{0, 0, 1};
  const std::uint32_t a = AddVertex(m, {-half_size, -half_size, 0}, n);
  const std::uint32_t b = AddVertex(m, {half_size, -half_size, 0}, n);
  const std::uint32_t c = AddVertex(m, {half_size, half_size, 0}, n);
  const std::uint32_t d = AddVertex(m, {-half_size, half_size, 0}, n);
  AddTriangle(m, a, b, c);
  AddTriangle(m, a, c, d);
  return m;
}

MeshData MakeFlatMesh(const std::vector<std::array<float, 3>>& vertices,
                      const std::vector<std::array<std::uint32_t, 3>>& triangles) {
  MeshData m;
  m.positions.reserve(3 * triangles.size());
  m.normals.reserve(3 * triangles.size());
  m.indices.reserve(3 * triangles.size());
  for (const auto& t : triangles) {
    if (t[0] >= vertices.size() || t[1] >= vertices.size() || t[2] >= vertices.size()) continue;
    const Vec3 &a = vertices[t[0]], &b = vertices[t[1]], &c = vertices[t[2]];
    const Vec3 n = Normalize(Cross(Subtract(b, a), Subtract(c, a)), {0, 0, 1});
    AddTriangle(m, AddVertex(m, a, n), AddVertex(m, b, n), AddVertex(m, c, n));
  }
  return m;
}

}  // namespace ductile::render
