// RenderScene: the neutral description of one frame that the renderer draws (docs/architecture.md, "Snapshot and
// rendering"). It knows nothing of the engine: meshes with transforms and colours, particle sets, lines and arrows, a
// camera and lights. Built from an engine Snapshot by BuildRenderScene (snapshot_scene.h); drawn by the Vulkan renderer
// into a window or an offscreen image. World units are metres, z up; colours are linear RGBA in [0, 1].
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace ductile::render {

using Vec3 = std::array<float, 3>;
using Rgba = std::array<float, 4>;
/// A 4x4 matrix, column-major (element (row r, column c) at [4c + r]), as GLSL expects.
using Mat4 = std::array<float, 16>;

/// The identity transform.
inline constexpr Mat4 kIdentity4 = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};

/// A perspective camera looking from `eye` at `target`.
struct Camera {
  Vec3 eye{1.0f, -1.5f, 1.0f};  ///< [m].
  Vec3 target{0, 0, 0};         ///< [m].
  Vec3 up{0, 0, 1};             ///< World up.
  float fov_y_degrees = 40;     ///< Vertical field of view.
  float near_plane = 0.01f;     ///< [m].
  float far_plane = 50;         ///< [m].
};

/// The key light, a directional light that casts the shadow, and the ambient term.
struct Lighting {
  Vec3 key_direction{-0.4f, 0.3f, -1.0f};  ///< Direction the light travels (need not be unit).
  Vec3 key_color{1.0f, 0.97f, 0.92f};      ///< Radiance scale of the key light.
  Vec3 ambient{0.28f, 0.30f, 0.34f};       ///< Ambient colour added to every lit surface.
  bool shadows = true;                     ///< Shadow map from the key light.
};

/// Triangle mesh data shared by instances: positions and per-vertex normals in the mesh frame, indices in
/// triples (counter-clockwise seen from outside).
struct MeshData {
  std::vector<Vec3> positions;
  std::vector<Vec3> normals;  ///< Same size as positions.
  std::vector<std::uint32_t> indices;
};

/// One drawn mesh: world_from_mesh places MeshData `mesh` (index into RenderScene::meshes) in the world.
struct MeshInstance {
  int mesh = 0;
  Mat4 world_from_mesh = kIdentity4;
  Rgba color{0.7f, 0.7f, 0.7f, 1.0f};
  bool selected = false;  ///< Drawn with the selection highlight (an outline or rim tint).
};

/// Particles drawn as shaded spheres (impostors) of one radius, one colour per particle.
struct ParticleSet {
  std::vector<Vec3> positions;  ///< [m].
  std::vector<Rgba> colors;     ///< Same size as positions.
  float radius = 0.005f;        ///< [m].
};

/// A lit surface with a colour per vertex: the reconstructed surface of a particle continuum (particle_surface.h).
/// World coordinates, no transform.
struct SurfaceMesh {
  std::vector<Vec3> positions;         ///< [m].
  std::vector<Vec3> normals;           ///< Unit, pointing out; same size as positions.
  std::vector<Rgba> colors;            ///< Linear; alpha is the opacity where `translucent`; same size.
  std::vector<std::uint32_t> indices;  ///< Triangles, counter-clockwise seen from outside (back faces are culled).
  /// Blended over what lies behind it (water), after everything opaque, without writing depth; else opaque.
  bool translucent = false;
};

/// A line segment, drawn one pixel or more wide, unlit.
struct Line {
  Vec3 from{}, to{};
  Rgba color{1, 1, 1, 1};
};

/// An arrow from `origin` along `vector` (its length in metres as drawn), a shaft and a cone head, lit.
struct Arrow {
  Vec3 origin{};
  Vec3 vector{0, 0, 0.1f};
  Rgba color{1.0f, 0.8f, 0.1f, 1.0f};
  float shaft_radius = 0.003f;  ///< [m]; the head is 2.5x as wide.
};

/// A ground grid on the plane z = height: minor lines every `spacing` metres, major ones every 10, fading with
/// distance from the camera's target.
struct GroundGrid {
  bool visible = true;
  float height = 0;      ///< [m].
  float spacing = 0.1f;  ///< [m].
  float extent = 5;      ///< Half side of the drawn square [m].
  Rgba color{0.55f, 0.57f, 0.60f, 1.0f};
};

/// A text overlay in the top-left corner: one line per entry, drawn on a translucent dark panel with Dear ImGui.
struct Hud {
  bool visible = false;
  std::vector<std::string> lines;
};

/// Everything in one frame.
struct RenderScene {
  Camera camera;
  Lighting lighting;
  Rgba background{0.16f, 0.17f, 0.19f, 1.0f};  ///< Clear colour (the top of a subtle vertical gradient).
  GroundGrid grid;
  std::vector<MeshData> meshes;
  std::vector<MeshInstance> instances;
  std::vector<ParticleSet> particles;
  std::vector<SurfaceMesh> surfaces;
  std::vector<Line> lines;
  std::vector<Arrow> arrows;
  Hud hud;
};

}  // namespace ductile::render
