// SceneRenderer's public functions and the order of one frame's passes (PrepareFrame, RecordDraws, RecordScene), with
// the upload of the scene into its frame slot. The passes themselves live in files of their own, which
// scene_renderer_impl.h lists.
//
// Each frame slot has one host-visible buffer that holds everything the frame draws from, rewritten by PrepareFrame:
// mesh vertices, indices, per-instance data (scene instances sorted by mesh, then the arrows' shafts and heads),
// particles, line vertices, the ground's triangles and the surfaces' vertices and indices, each section aligned to
// kSectionAlignment. It only grows (by half again when a scene needs more), so a steady scene allocates nothing per
// frame, and the meshes in it are rewritten only when the scene's meshes differ from the last frame's (compared by
// content). Uniforms live in a small buffer of their own; the frame's descriptor set points at them and at the shadow
// map for the object's whole life, and at the frame's particles (a storage buffer the particle vertex shaders read)
// from PrepareFrame on.
//
// Cost on CPU devices (lavapipe, where every fragment runs on the CPU), which shaped the passes:
// - Particles are drawn front to back from the camera (a radix sort per frame) at the depth of the plane touching
//   each sphere, so the depth test rejects hidden impostors before they are shaded (particle.glsl).
// - Particles and their shadows are non-instanced draws of one triangle per particle reading a storage buffer:
//   lavapipe runs the vertex stage of every instance on its own, and for small particles setting up triangles costs
//   more than shading the extra fragments of a triangle (cut to a disc by the fragment shader) over a quad.
// - The shadow map is 0.8 texels per pixel of the scene image's longer side, at most 1024 (2048 on a GPU): 1024 at
//   1280x720, 512 at a render scale of 0.5.
// - A render scale below 1 draws the scene into a smaller image of the frame slot and scales it up (upscale.frag),
//   or, for a frame composed on the host, copies it out to be scaled up and given its HUD on the CPU (UpscaleOnHost).
// - The ground is opaque (it mixes in the background itself) and is split into the part the shadow map reaches and
//   the rest, drawn without the shadow lookup: CPU devices evaluate both sides of every branch.
// - The ground's pattern and the background are drawn into a ground cache per frame slot only when the uniforms they
//   depend on change (GroundCacheKey): while the camera stays put, a frame copies them (one texel read per pixel)
//   and shades only the ground's shadows (ground_shadow.frag). The background is copied last, at the far plane, so
//   only the pixels nothing covers read it.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <numbers>
#include <span>
#include <stdexcept>
#include <string>

#include "ductile/render/renderer.h"
#include "ductile/render/vulkan_util.h"
#include "render_math.h"
#include "scene_renderer_impl.h"

namespace ductile::render {
namespace {

// Throws std::invalid_argument unless `frame_index` names one of the `frame_count` frame slots, `extent` is not empty
// and `render_scale` is in (0, 1].
void CheckPrepareArguments(std::uint32_t frame_index, std::size_t frame_count, VkExtent2D extent, float render_scale) {
  if (frame_index >= frame_count) {
    throw std::invalid_argument("SceneRenderer::PrepareFrame: frame " + std::to_string(frame_index) + " of " +
                                std::to_string(frame_count));
  }
  if (extent.width == 0 || extent.height == 0) {
    throw std::invalid_argument("SceneRenderer::PrepareFrame: empty extent");
  }
  if (!(render_scale > 0.0f && render_scale <= 1.0f)) {
    throw std::invalid_argument("SceneRenderer::PrepareFrame: render scale " + std::to_string(render_scale) +
                                " is not in (0, 1]");
  }
}

// Whether two meshes hold the same data (the renderer's cache of uploaded meshes compares by content).
bool SameMesh(const MeshData& a, const MeshData& b) {
  return a.positions == b.positions && a.normals == b.normals && a.indices == b.indices;
}

// Throws std::invalid_argument for an inconsistent scene. `meshes_checked`: the scene's meshes are ones that passed
// before (the renderer's cache holds them), so their vertices and indices need no second look.
void ValidateScene(const RenderScene& scene, bool meshes_checked) {
  const Camera& camera = scene.camera;
  if (!(camera.fov_y_degrees > 0.0f && camera.fov_y_degrees < 180.0f) || !(camera.near_plane > 0.0f) ||
      !(camera.far_plane > camera.near_plane) || !std::isfinite(camera.far_plane)) {
    throw std::invalid_argument(
        "RenderScene camera: need 0 < fov_y_degrees < 180 and 0 < near_plane < far_plane, got " +
        std::to_string(camera.fov_y_degrees) + ", " + std::to_string(camera.near_plane) + ", " +
        std::to_string(camera.far_plane));
  }
  for (std::size_t m = 0; m < scene.meshes.size() && !meshes_checked; ++m) {
    const MeshData& mesh = scene.meshes[m];
    if (mesh.normals.size() != mesh.positions.size()) {
      throw std::invalid_argument("RenderScene mesh " + std::to_string(m) + ": " + std::to_string(mesh.normals.size()) +
                                  " normals for " + std::to_string(mesh.positions.size()) + " positions");
    }
    if (mesh.indices.size() % 3 != 0) {
      throw std::invalid_argument("RenderScene mesh " + std::to_string(m) + ": " + std::to_string(mesh.indices.size()) +
                                  " indices, not a multiple of 3");
    }
    for (std::uint32_t index : mesh.indices) {
      if (index >= mesh.positions.size()) {
        throw std::invalid_argument("RenderScene mesh " + std::to_string(m) + ": index " + std::to_string(index) +
                                    " past its " + std::to_string(mesh.positions.size()) + " vertices");
      }
    }
  }
  for (std::size_t i = 0; i < scene.instances.size(); ++i) {
    const int mesh = scene.instances[i].mesh;
    if (mesh < 0 || static_cast<std::size_t>(mesh) >= scene.meshes.size()) {
      throw std::invalid_argument("RenderScene instance " + std::to_string(i) + ": mesh " + std::to_string(mesh) +
                                  " does not exist (" + std::to_string(scene.meshes.size()) + " meshes)");
    }
  }
  for (std::size_t s = 0; s < scene.surfaces.size(); ++s) {
    const SurfaceMesh& surface = scene.surfaces[s];
    const std::string name = "RenderScene surface " + std::to_string(s) + ": ";
    if (surface.normals.size() != surface.positions.size() || surface.colors.size() != surface.positions.size()) {
      throw std::invalid_argument(name + std::to_string(surface.normals.size()) + " normals and " +
                                  std::to_string(surface.colors.size()) + " colours for " +
                                  std::to_string(surface.positions.size()) + " positions");
    }
    if (surface.indices.size() % 3 != 0) {
      throw std::invalid_argument(name + std::to_string(surface.indices.size()) + " indices, not a multiple of 3");
    }
    for (std::uint32_t index : surface.indices) {
      if (index >= surface.positions.size()) {
        throw std::invalid_argument(name + "index " + std::to_string(index) + " past its " +
                                    std::to_string(surface.positions.size()) + " vertices");
      }
    }
  }
  for (std::size_t s = 0; s < scene.particles.size(); ++s) {
    const ParticleSet& set = scene.particles[s];
    if (set.colors.size() != set.positions.size()) {
      throw std::invalid_argument("RenderScene particle set " + std::to_string(s) + ": " +
                                  std::to_string(set.colors.size()) + " colours for " +
                                  std::to_string(set.positions.size()) + " particles");
    }
    if (!(set.radius > 0.0f) || !std::isfinite(set.radius)) {
      throw std::invalid_argument("RenderScene particle set " + std::to_string(s) + ": radius " +
                                  std::to_string(set.radius) + " is not a positive length");
    }
  }
}

}  // namespace

SceneRenderer::SceneRenderer(VkPhysicalDevice physical_device, VkDevice device, const SceneRendererTarget& target)
    : impl_(std::make_unique<Impl>(physical_device, device, target)) {}

SceneRenderer::~SceneRenderer() = default;

void SceneRenderer::PrepareFrame(VkCommandBuffer command_buffer, std::uint32_t frame_index, const RenderScene& scene,
                                 VkExtent2D target_extent, float render_scale) {
  CheckPrepareArguments(frame_index, impl_->frames.size(), target_extent, render_scale);
  Impl::Frame& frame = impl_->frames[frame_index];
  // A frame composed on the host is always drawn into the scene image, at scale 1 too.
  const bool host_composed = impl_->host_upscale();
  const bool scaled = (render_scale < 1.0f || host_composed) && impl_->can_scale();
  // The scene's extent: the target's, or the scene image's at a render scale below 1.
  const VkExtent2D extent = scaled ? impl_->SizeSceneImage(frame, target_extent, render_scale) : target_extent;
  impl_->SizeShadowMap(frame, extent);
  const Bounds casters = impl_->UploadScene(frame, scene, extent);

  // The key light's shadow map fitted to the casters, the frame's uniforms, and the ground split by the map's reach.
  const Lighting& lighting = scene.lighting;
  const Vec3 light_direction = Normalize(lighting.key_direction, {0, 0, -1});
  const bool shadows = lighting.shadows && !casters.empty();
  const LightFit light = FitLight(light_direction, casters, frame.shadow_map_size);
  const FrameUniforms uniforms = impl_->WriteUniforms(frame, scene, extent, light, light_direction, shadows);
  if (frame.grid_visible)
    impl_->WriteGround(frame, scene.grid, scene.camera.target, shadows ? &light : nullptr, light_direction);

  impl_->RecordShadowPass(command_buffer, frame, shadows);
  impl_->PrepareGroundCache(command_buffer, frame, uniforms, extent);
  const bool hud_kept = impl_->PrepareHud(command_buffer, frame, frame_index, scene.hud, target_extent, host_composed);

  // At a render scale below 1 the scene is drawn here, into the scene image that RecordDraws scales up.
  frame.target_extent = target_extent;
  frame.scaled = scaled;
  if (scaled) {
    impl_->RecordScaledScene(command_buffer, frame, scene.background);
    if (host_composed) impl_->RecordHostReadback(command_buffer, frame, frame_index, scene.hud, hud_kept);
  }
  frame.host_scaled = scaled && host_composed;
  frame.prepared = true;
}

Bounds SceneRenderer::Impl::UploadScene(Frame& frame, const RenderScene& scene, VkExtent2D extent) {
  const bool meshes_unchanged = std::equal(scene.meshes.begin(), scene.meshes.end(), frame.uploaded_meshes.begin(),
                                           frame.uploaded_meshes.end(), SameMesh);
  ValidateScene(scene, meshes_unchanged);
  Bounds casters;
  WriteFrameData(frame, scene, extent, meshes_unchanged, casters);
  PrepareParticleDraws(frame);
  return casters;
}

void SceneRenderer::Impl::WriteFrameData(Frame& frame, const RenderScene& scene, VkExtent2D extent,
                                         bool meshes_unchanged, Bounds& casters) {
  // Section sizes, then the buffer (grown when too small), then the contents.
  std::size_t vertex_count = arrow_meshes.vertices.size();
  std::size_t index_count = arrow_meshes.indices.size();
  for (const MeshData& mesh : scene.meshes) {
    vertex_count += mesh.positions.size();
    index_count += mesh.indices.size();
  }
  std::size_t particle_count = 0;
  for (const ParticleSet& set : scene.particles) particle_count += set.positions.size();
  const std::size_t instance_count = scene.instances.size() + 2 * scene.arrows.size();
  const std::size_t line_vertex_count = 2 * scene.lines.size();
  std::size_t surface_vertex_count = 0, surface_index_count = 0;
  for (const SurfaceMesh& surface : scene.surfaces) {
    surface_vertex_count += surface.positions.size();
    surface_index_count += surface.indices.size();
  }

  frame.vertex_offset = 0;
  frame.index_offset = AlignUp(frame.vertex_offset + vertex_count * sizeof(MeshVertex));
  frame.instance_offset = AlignUp(frame.index_offset + index_count * sizeof(std::uint32_t));
  frame.particle_offset = AlignUp(frame.instance_offset + instance_count * sizeof(InstanceData));
  frame.line_offset = AlignUp(frame.particle_offset + particle_count * sizeof(ParticleData));
  frame.grid_offset = AlignUp(frame.line_offset + line_vertex_count * sizeof(LineVertex));
  frame.surface_vertex_offset = AlignUp(frame.grid_offset + kMaxGridVertices * sizeof(Point2));
  frame.surface_index_offset = AlignUp(frame.surface_vertex_offset + surface_vertex_count * sizeof(SurfaceVertex));
  const VkDeviceSize total = AlignUp(frame.surface_index_offset + surface_index_count * sizeof(std::uint32_t));
  if (frame.data.size() < total) {
    meshes_unchanged = false;  // A new buffer holds no meshes yet.
    frame.data = HostBuffer(
        physical_device, device, std::max<VkDeviceSize>(total + total / 2, 1 << 16),
        VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_INDEX_BUFFER_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  }

  const auto [shaft, head] = WriteMeshGeometry(frame, scene, meshes_unchanged);
  WriteMeshInstances(frame, scene, casters);
  WriteArrows(frame, scene, shaft, head, casters);
  WriteSurfaces(frame, scene, casters);
  WriteParticles(frame, scene, casters);
  frame.particle_count = static_cast<std::uint32_t>(particle_count);
  WriteLines(frame, scene);
  frame.line_vertex_count = static_cast<std::uint32_t>(line_vertex_count);
  frame.grid_visible = scene.grid.visible && scene.grid.extent > 0.0f && scene.grid.spacing > 0.0f;
  frame.extent = extent;
}

FrameUniforms SceneRenderer::Impl::WriteUniforms(Frame& frame, const RenderScene& scene, VkExtent2D extent,
                                                 const LightFit& light, const Vec3& light_direction,
                                                 bool shadows) const {
  const Lighting& lighting = scene.lighting;
  const Camera& camera = scene.camera;
  const float aspect = static_cast<float>(extent.width) / static_cast<float>(extent.height);
  const Mat4 view_proj = Multiply(Perspective(camera.fov_y_degrees * std::numbers::pi_v<float> / 180.0f, aspect,
                                              camera.near_plane, camera.far_plane),
                                  LookAt(camera.eye, camera.target, camera.up));

  FrameUniforms uniforms{};
  uniforms.view_proj = view_proj;
  uniforms.light_view_proj = light.view_proj;
  uniforms.eye = Vec4(camera.eye, 1.0f);
  uniforms.key_direction = Vec4(light_direction, shadows ? 1.0f : 0.0f);
  uniforms.key_color = Vec4(lighting.key_color, 0.0f);
  uniforms.ambient = Vec4(lighting.ambient, 0.0f);
  uniforms.background_top = Vec4(scene.background);
  // The bottom of the gradient is a little lighter than the clear colour at the top.
  for (int k = 0; k < 3; ++k) uniforms.background_bottom[k] = std::min(scene.background[k] * 1.6f + 0.01f, 1.0f);
  uniforms.background_bottom[3] = 1.0f;
  uniforms.grid_color = Vec4(scene.grid.color);
  uniforms.grid = {scene.grid.height, scene.grid.spacing, scene.grid.extent, frame.grid_visible ? 1.0f : 0.0f};
  uniforms.grid_center = {camera.target[0], camera.target[1], 0, 0};
  uniforms.viewport = {static_cast<float>(extent.width), static_cast<float>(extent.height), 0.0f, light.texel_size};
  std::memcpy(frame.uniforms.data(), &uniforms, sizeof(uniforms));
  return uniforms;
}

void SceneRenderer::RecordDraws(VkCommandBuffer command_buffer, std::uint32_t frame_index) const {
  if (frame_index >= impl_->frames.size() || !impl_->frames[frame_index].prepared) {
    throw std::invalid_argument("SceneRenderer::RecordDraws: frame " + std::to_string(frame_index) +
                                " was not prepared");
  }
  const Impl::Frame& frame = impl_->frames[frame_index];
  if (!frame.scaled) {
    impl_->RecordScene(command_buffer, frame);
  } else if (!frame.host_scaled) {
    impl_->RecordUpscale(command_buffer, frame);
  }
  // (A frame composed on the host has its HUD drawn by PrepareFrame's commands and blended by UpscaleOnHost.)
  if (impl_->hud && !frame.host_scaled) impl_->hud->Record(command_buffer, frame_index, frame.target_extent);
}

void SceneRenderer::Impl::RecordScene(VkCommandBuffer command_buffer, const Frame& frame) const {
  BindFrame(command_buffer, frame, frame.extent);
  // Opaque first: meshes and the continua's opaque surfaces, particles front to back, then the ground, so that
  // hidden ground costs nothing; the background at the far plane where nothing else was drawn; then the arrows,
  // the translucent surfaces over all of it, and the lines.
  RecordMeshes(command_buffer, frame, frame.mesh_draws);
  RecordSurfaces(command_buffer, frame, false);
  RecordParticles(command_buffer, frame);
  RecordGround(command_buffer, frame);
  RecordBackground(command_buffer);
  RecordMeshes(command_buffer, frame, frame.arrow_draws);
  RecordSurfaces(command_buffer, frame, true);
  RecordLines(command_buffer, frame);
}

void SceneRenderer::Impl::BindFrame(VkCommandBuffer command_buffer, const Frame& frame, VkExtent2D extent) const {
  SetViewportAndScissor(command_buffer, extent);
  vkCmdBindDescriptorSets(command_buffer, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline_layout, 0, 1, &frame.descriptor_set,
                          0, nullptr);
}

VkExtent2D SceneRenderer::SceneExtent(std::uint32_t frame_index) const {
  if (frame_index >= impl_->frames.size()) {
    throw std::invalid_argument("SceneRenderer::SceneExtent: frame " + std::to_string(frame_index) + " of " +
                                std::to_string(impl_->frames.size()));
  }
  return impl_->frames[frame_index].extent;
}

bool SceneRenderer::ComposesOnHost() const {
  return impl_->host_upscale();
}

bool SceneRenderer::UpscalesOnHost(std::uint32_t frame_index) const {
  return frame_index < impl_->frames.size() && impl_->frames[frame_index].prepared &&
         impl_->frames[frame_index].host_scaled;
}

void SceneRenderer::UpscaleOnHost(std::uint32_t frame_index, std::span<std::uint8_t> destination) {
  if (!UpscalesOnHost(frame_index)) {
    throw std::invalid_argument("SceneRenderer::UpscaleOnHost: frame " + std::to_string(frame_index) +
                                " was not prepared for composing on the host");
  }
  const Impl::Frame& frame = impl_->frames[frame_index];
  const VkExtent2D to = frame.target_extent;
  const std::size_t to_bytes = 4 * static_cast<std::size_t>(to.width) * to.height;
  if (destination.size() != to_bytes) {
    throw std::invalid_argument("SceneRenderer::UpscaleOnHost: " + std::to_string(destination.size()) +
                                " bytes for a frame of " + std::to_string(to.width) + "x" + std::to_string(to.height) +
                                " pixels");
  }
  impl_->ScaleSceneOnHost(frame, destination);
  impl_->CompositeHud(frame, destination);
}

}  // namespace ductile::render
