// SceneRenderer's internals, shared by the files that implement it: the layouts of the data the shaders read, the
// Vulkan objects of each pass, and SceneRenderer::Impl with its frame slots.
//
// Files, one per pass after the first two: scene_renderer.cpp (the public functions, the order of a frame's passes
// and the upload of the scene), scene_renderer_resources.cpp (the descriptor layout, the frame slots, pipeline
// creation, and the creation and destruction of everything), scene_renderer_shadow.cpp (the key light's shadow map),
// scene_renderer_meshes.cpp (lit meshes, arrows and lines), scene_renderer_surfaces.cpp (the continua's
// reconstructed surfaces), scene_renderer_particles.cpp (sphere impostors),
// scene_renderer_ground.cpp (the ground, split by the shadow map's reach, and its cache), scene_renderer_compose.cpp
// (the background, the scene image of a render scale below 1, its upscale and the host's composition) and
// scene_renderer_hud.cpp (the HUD).
#pragma once

#include <vulkan/vulkan.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "ductile/render/render_scene.h"
#include "ductile/render/renderer.h"
#include "ductile/render/vulkan_util.h"
#include "hud_overlay.h"
#include "render_math.h"
#include "shaders.h"

namespace ductile::render {

// Shadow map side [texels]: on a GPU, and at most on a CPU device (lavapipe), where every texel costs shader time.
constexpr std::uint32_t kShadowMapSize = 2048;
constexpr std::uint32_t kCpuShadowMapSize = 1024;
// Each particle is one triangle, in the main pass (particle.vert) and in the shadow map (particle_shadow.vert).
constexpr std::uint32_t kParticleVertices = 3;
// Bound on the ground's triangle corners: the shadow map's footprint (a quadrilateral) clipped to the square (at
// most 8 corners, 6 triangles) and the rest of the square, one convex piece per footprint edge (each at most 8
// corners, 6 triangles).
constexpr std::size_t kMaxGridVertices = std::size_t{3} * (6 + 4 * 6);
constexpr VkDeviceSize kSectionAlignment = 256;  // [bytes]; covers every vertex and index alignment rule.

// Must match the Frame block in shaders/common.glsl (std140: every member a vec4 or mat4, so no padding).
struct FrameUniforms {
  Mat4 view_proj;
  Mat4 light_view_proj;
  std::array<float, 4> eye;
  std::array<float, 4> key_direction;
  std::array<float, 4> key_color;
  std::array<float, 4> ambient;
  std::array<float, 4> background_top;
  std::array<float, 4> background_bottom;
  std::array<float, 4> grid_color;
  std::array<float, 4> grid;
  std::array<float, 4> grid_center;
  std::array<float, 4> viewport;
};
static_assert(sizeof(FrameUniforms) == 2 * sizeof(Mat4) + 10 * sizeof(std::array<float, 4>), "no padding");

// What the ground cache's pixels depend on: the frame's uniforms but for the shadow map's (the cached ground is
// unshadowed), and whether the ground is drawn. The ground's square follows from grid and grid_center.
struct GroundCacheKey {
  FrameUniforms uniforms{};
  bool grid_visible = false;

  GroundCacheKey(const FrameUniforms& frame, bool visible) : uniforms(frame), grid_visible(visible) {
    uniforms.light_view_proj = Mat4{};
    uniforms.key_direction[3] = 0;
    uniforms.viewport[3] = 0;
  }
  // Bitwise on purpose: a key whose floats differ only as -0 and +0 (or two NaNs) costs one redraw of the ground,
  // and FrameUniforms has no padding (asserted after it).
  bool operator==(const GroundCacheKey& other) const {
    // NOLINTNEXTLINE(bugprone-suspicious-memory-comparison)
    return grid_visible == other.grid_visible && std::memcmp(&uniforms, &other.uniforms, sizeof(uniforms)) == 0;
  }
};

// The ground cache's format: colours stored sRGB-encoded by the hardware and decoded when read, which round-trips
// 8-bit colours exactly, whatever the target's format.
constexpr VkFormat kGroundCacheFormat = VK_FORMAT_R8G8B8A8_SRGB;

struct MeshVertex {
  Vec3 position;
  Vec3 normal;
};

// Vertex attributes of surface.vert: a continuum's surface, in world coordinates.
struct SurfaceVertex {
  Vec3 position;
  Vec3 normal;
  Rgba color;
};

// Per-instance vertex attributes of mesh.vert, locations 2 to 10.
struct InstanceData {
  Mat4 world_from_mesh;
  std::array<float, 12> normal_matrix;  // Three columns of vec4 (w unused).
  Rgba color;
  std::array<float, 4> flags;  // x: 1 when selected.
};

// Must match Particle in shaders/particles.glsl (std430).
struct ParticleData {
  std::array<float, 4> center_radius;
  Rgba color;
};

struct LineVertex {
  std::array<float, 4> position;
  Rgba color;
};

// One instanced indexed draw: instances [first_instance, +instance_count) of the mesh at the given ranges.
struct MeshDraw {
  std::uint32_t index_count = 0;
  std::uint32_t first_index = 0;
  std::int32_t vertex_offset = 0;
  std::uint32_t instance_count = 0;
  std::uint32_t first_instance = 0;
};

// The arrows' two unit meshes: a cylinder (radius 1, z from 0 to 1) and a cone (base radius 1 at z = 0, apex at
// z = 1), both closed at the bottom.
struct ArrowMeshes {
  std::vector<MeshVertex> vertices;
  std::vector<std::uint32_t> indices;
  MeshDraw shaft;  // Index range and vertex offset of the cylinder; instance fields unset.
  MeshDraw head;
};

// Builds the arrows' unit meshes.
ArrowMeshes BuildArrowMeshes();

// An axis-aligned box grown point by point; empty until the first point.
struct Bounds {
  Vec3 min{std::numeric_limits<float>::max(), std::numeric_limits<float>::max(), std::numeric_limits<float>::max()};
  Vec3 max{-std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(), -std::numeric_limits<float>::max()};
  bool empty() const { return min[0] > max[0]; }
  void Add(const Vec3& p, float margin = 0.0f) {
    for (int k = 0; k < 3; ++k) {
      min[k] = std::min(min[k], p[k] - margin);
      max[k] = std::max(max[k], p[k] + margin);
    }
  }
};

inline std::array<float, 4> Vec4(const Vec3& v, float w) {
  return {v[0], v[1], v[2], w};
}
inline std::array<float, 4> Vec4(const Rgba& c) {
  return {c[0], c[1], c[2], c[3]};
}

// `value` rounded up to a multiple of kSectionAlignment.
inline VkDeviceSize AlignUp(VkDeviceSize value) {
  return (value + kSectionAlignment - 1) / kSectionAlignment * kSectionAlignment;
}

// The key light's shadow map: its orthographic view-projection, the size of one texel [m] and the world corners of
// the rectangle it covers (on a plane facing the light; the map covers the prism swept from it along the light).
struct LightFit {
  Mat4 view_proj;
  float texel_size = 0;
  std::array<Vec3, 4> corners;  // In order around the rectangle.
};

// The LightFit of the key light travelling along unit `direction` that just contains `casters`, for a shadow map
// `map_size` texels on a side.
LightFit FitLight(const Vec3& direction, const Bounds& casters, std::uint32_t map_size);

using Point2 = std::array<float, 2>;

// Everything that varies per pipeline; the rest (dynamic viewport and scissor, the one layout) is shared.
struct PipelineDesc {
  ShaderId vertex;
  std::optional<ShaderId> fragment;
  std::vector<VkVertexInputBindingDescription> bindings;
  std::vector<VkVertexInputAttributeDescription> attributes;
  VkPrimitiveTopology topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
  bool depth_test = true;
  bool depth_write = true;
  bool blend = false;
  bool alpha_to_coverage = false;
  VkColorComponentFlags write_mask =
      VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT | VK_COLOR_COMPONENT_B_BIT | VK_COLOR_COMPONENT_A_BIT;
  bool depth_bias = false;
  bool cull_back = false;  // Cull triangles that wind clockwise on screen (closed surfaces seen from outside).
  bool has_color = true;
  bool encode_srgb = true;  // false: never encode sRGB in the shader (an _SRGB target of the renderer's own).
  VkRenderPass render_pass = VK_NULL_HANDLE;
  VkSampleCountFlagBits samples = VK_SAMPLE_COUNT_1_BIT;
};

// Vertex layouts of the meshes: binding 0 per vertex (MeshVertex), binding 1 per instance (InstanceData).
std::vector<VkVertexInputBindingDescription> MeshBindings();
std::vector<VkVertexInputAttributeDescription> MeshAttributes();

// The shadow pass's objects: the map's depth format, the pass that draws it, the comparison sampler the main pass
// reads it with, and the pipelines of the casters.
struct ShadowObjects {
  VkFormat format = VK_FORMAT_UNDEFINED;
  VkRenderPass render_pass = VK_NULL_HANDLE;
  VkSampler sampler = VK_NULL_HANDLE;
  VkPipeline mesh_pipeline = VK_NULL_HANDLE;
  VkPipeline particle_pipeline = VK_NULL_HANDLE;
  VkPipeline surface_pipeline = VK_NULL_HANDLE;
};

// The ground's objects: its pipelines in the target's pass, drawn directly (where the shadow map reaches and the
// rest), and the ground cache's (null handles where the device cannot render and sample kGroundCacheFormat: then the
// ground is drawn directly every frame).
struct GroundObjects {
  VkPipeline shadowed_pipeline = VK_NULL_HANDLE;  // grid.frag
  VkPipeline plain_pipeline = VK_NULL_HANDLE;     // grid_unshadowed.frag
  VkRenderPass cache_pass = VK_NULL_HANDLE;
  VkSampler cache_sampler = VK_NULL_HANDLE;
  VkPipeline cache_pipeline = VK_NULL_HANDLE;   // grid_cache.frag into the cache.
  VkPipeline copy_pipeline = VK_NULL_HANDLE;    // ground_cache.frag on the unshadowed ground.
  VkPipeline shadow_pipeline = VK_NULL_HANDLE;  // ground_shadow.frag where the shadow map reaches.
};

// The render scale's objects: its pass, compatible with the target's (same formats, samples and attachment
// structure), so the scene's pipelines draw in both; the bilinear sampler and pipeline that scale its image up (null
// handles where the target did not name its formats or the device cannot sample and filter the colour format).
struct ScaledObjects {
  VkRenderPass render_pass = VK_NULL_HANDLE;
  VkSampler sampler = VK_NULL_HANDLE;
  VkPipeline upscale_pipeline = VK_NULL_HANDLE;
};

struct SceneRenderer::Impl {
  // What PrepareFrame recorded for RecordDraws, and the frame slot's resources.
  struct Frame {
    HostBuffer uniforms;
    HostBuffer data;
    GpuImage shadow_map;
    VkFramebuffer shadow_framebuffer = VK_NULL_HANDLE;
    std::uint32_t shadow_map_size = 0;  // [texels] on a side.
    VkDescriptorSet descriptor_set = VK_NULL_HANDLE;
    // The scene image for a render scale below 1: colour (multisampled when the target is, then resolved into
    // scaled_resolve, which the upscale reads), depth and their framebuffer in the scaled pass, scaled_extent large
    // (zero while the slot has none).
    GpuImage scaled_color, scaled_depth, scaled_resolve;
    VkFramebuffer scaled_framebuffer = VK_NULL_HANDLE;
    VkExtent2D scaled_extent{};

    VkExtent2D extent{};         // The scene's: the target's, or the scene image's when `scaled`.
    VkExtent2D target_extent{};  // The target's.
    bool scaled = false;         // PrepareFrame drew the scene into the scene image.
    // Composing on the host (SceneRendererTarget::host_upscale): the scene image as copied out by PrepareFrame's
    // commands; the HUD's panel drawn over black and over white (images hud_capacity large, of which the top-left
    // hud_extent holds this frame's panel; zero: no HUD) and both copied out, one after the other, into hud_readback.
    bool host_scaled = false;
    HostBuffer scene_readback;
    GpuImage hud_black, hud_white;
    VkFramebuffer hud_black_framebuffer = VK_NULL_HANDLE, hud_white_framebuffer = VK_NULL_HANDLE;
    VkExtent2D hud_capacity{}, hud_extent{};
    HostBuffer hud_readback;
    // The HUD those copies hold and the target extent it was laid out for (none before the first).
    std::optional<Hud> hud_drawn;
    VkExtent2D hud_target_extent{};
    VkDeviceSize vertex_offset = 0, index_offset = 0, instance_offset = 0, particle_offset = 0, line_offset = 0,
                 grid_offset = 0, surface_vertex_offset = 0, surface_index_offset = 0;
    std::vector<MeshDraw> mesh_draws;   // Scene instances.
    std::vector<MeshDraw> arrow_draws;  // Shafts and heads.
    // The continua's surfaces, one draw each (instance fields unused): opaque ones and translucent ones.
    std::vector<MeshDraw> surface_draws, translucent_surface_draws;
    std::uint32_t particle_count = 0;
    std::uint32_t line_vertex_count = 0;
    std::vector<std::uint64_t> particle_order;  // Front-to-back sort: distance key above particle index.
    std::vector<std::uint64_t> sort_scratch;
    // The meshes whose vertices and indices the data buffer holds, and their index ranges and bounds: a scene with
    // the same meshes (compared by content) reuses them without copying.
    std::vector<MeshData> uploaded_meshes;
    std::vector<MeshDraw> mesh_ranges;
    std::vector<Vec3> mesh_min, mesh_max;
    bool grid_visible = false;
    std::uint32_t grid_shadowed_vertices = 0;  // Ground triangles the shadow map reaches, from grid_offset,
    std::uint32_t grid_plain_vertices = 0;     // then the rest.
    // The ground cache: the unshadowed ground (mixed with the background where it fades out) as last drawn for
    // this slot, the extent and the uniforms (GroundCacheKey) it was drawn with. Pixels off the ground are undefined.
    GpuImage ground_cache;
    VkFramebuffer ground_cache_framebuffer = VK_NULL_HANDLE;
    VkExtent2D ground_cache_extent{};
    std::optional<GroundCacheKey> ground_cache_key;
    bool direct_ground = false;  // This frame draws the ground without the cache (the view is changing).
    bool prepared = false;
  };

  Impl(VkPhysicalDevice physical, VkDevice dev, const SceneRendererTarget& target_in);
  ~Impl();
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  // What the device and the target allow: a render scale below 1 (the scaled pass exists), the ground cache, and
  // frames composed on the host (SceneRendererTarget::host_upscale; single sample only, as the scene image is then
  // the one PrepareFrame copies out; and the scene image's pass must exist). UNORM formats of four bytes only: the
  // host's filter and its HUD blend B + (W − B)c work on the stored values, which for an sRGB format would differ
  // from what the device does in linear light.
  bool can_scale() const { return scaled.render_pass != VK_NULL_HANDLE; }
  bool use_ground_cache() const { return ground.cache_pass != VK_NULL_HANDLE; }
  bool host_upscale() const {
    const VkFormat f = target.color_format;
    const bool four_bytes_unorm = f == VK_FORMAT_B8G8R8A8_UNORM || f == VK_FORMAT_R8G8B8A8_UNORM;
    return target.host_upscale && target.samples == VK_SAMPLE_COUNT_1_BIT && four_bytes_unorm && can_scale();
  }
  // The frame's data buffer from byte `offset` on, as T.
  template <typename T>
  static T* Section(const Frame& frame, VkDeviceSize offset) {
    return reinterpret_cast<T*>(frame.data.data() + offset);
  }

  // Creation and destruction (scene_renderer_resources.cpp).
  // The descriptor set layout every pipeline uses, the pool of the frame slots' sets and the pipeline layout.
  void CreateDescriptorLayouts();
  // The frame slots, each with its uniform buffer, its descriptor set and a shadow map of the largest size.
  void CreateFrames();
  // Destroys the handles that exist (null ones are skipped) and nulls them; the members that own memory clean up
  // after themselves.
  void DestroyHandles();
  // A pipeline as `desc` describes it. Throws RenderError.
  VkPipeline CreatePipeline(const PipelineDesc& desc) const;
  // Creates the graphics pipeline of `desc` with the shader `stages` into `pipeline`; returns the call's result.
  VkResult CreateGraphicsPipeline(const PipelineDesc& desc, std::span<const VkPipelineShaderStageCreateInfo> stages,
                                  VkPipeline& pipeline) const;
  // A pipeline of the target's render pass and samples, its other settings the defaults.
  PipelineDesc TargetPipeline(ShaderId vertex, std::optional<ShaderId> fragment,
                              std::vector<VkVertexInputBindingDescription> bindings = {},
                              std::vector<VkVertexInputAttributeDescription> attributes = {}) const;

  // One frame (scene_renderer.cpp).
  // Validates `scene` and writes it into the frame's buffer for a scene image of `extent`; returns the bounds of what
  // casts shadows.
  Bounds UploadScene(Frame& frame, const RenderScene& scene, VkExtent2D extent);
  // Writes the scene into the frame's buffer (its meshes only when they differ from the frame's uploaded_meshes,
  // `meshes_unchanged` false, or the buffer was reallocated) and grows `casters` by everything that casts shadows.
  void WriteFrameData(Frame& frame, const RenderScene& scene, VkExtent2D extent, bool meshes_unchanged,
                      Bounds& casters);
  // Writes the frame's uniforms (for a scene image of `extent`, the key light along `light_direction` fitted as
  // `light`, casting shadows when `shadows`) into its uniform buffer, and returns them.
  FrameUniforms WriteUniforms(Frame& frame, const RenderScene& scene, VkExtent2D extent, const LightFit& light,
                              const Vec3& light_direction, bool shadows) const;
  // Sets the viewport and scissor to the whole of `extent` and binds the frame's descriptor set.
  void BindFrame(VkCommandBuffer command_buffer, const Frame& frame, VkExtent2D extent) const;
  // Records the scene's draws (everything but the HUD) at the frame's scene extent into the render pass that
  // `command_buffer` is inside: the target's, or the scaled pass.
  void RecordScene(VkCommandBuffer command_buffer, const Frame& frame) const;

  // The shadow map (scene_renderer_shadow.cpp).
  // Picks a depth format for the shadow map and creates the shadow pass (one depth attachment, cleared, left readable
  // by the fragment shaders of the main pass) and the comparison sampler the main pass reads the map with.
  void CreateShadowPass();
  // The pipelines that draw meshes and particles into the shadow map.
  void CreateShadowPipelines();
  // Makes the frame's shadow map `size` texels on a side and points binding 1 of its descriptor set at it (and
  // bindings 3 and 4 while the ground cache and the scene image do not exist: never read then, but every binding of a
  // set must be valid when it is bound).
  void ResizeShadowMap(Frame& frame, std::uint32_t size);
  // On a CPU device, resizes the frame's shadow map to suit a scene image of `extent` (a GPU keeps kShadowMapSize).
  void SizeShadowMap(Frame& frame, VkExtent2D extent);
  // Records the shadow pass: clears the frame's shadow map and, with `shadows`, draws the meshes, the arrows and the
  // particles into it.
  void RecordShadowPass(VkCommandBuffer command_buffer, const Frame& frame, bool shadows) const;

  // Meshes, arrows and lines (scene_renderer_meshes.cpp).
  void CreateMeshPipeline();
  void CreateLinePipeline();
  // Writes the scene's meshes, then the arrows' unit meshes, into the frame's vertex and index sections with the
  // meshes' index ranges and bounds, unless `meshes_unchanged` (the sections hold them from an earlier frame). Returns
  // the arrows' shaft and head draws at their place there (instance fields unset).
  std::array<MeshDraw, 2> WriteMeshGeometry(Frame& frame, const RenderScene& scene, bool meshes_unchanged) const;
  // Writes the scene's instances in mesh order and their draws (one per mesh), and grows `casters` by their bounds.
  void WriteMeshInstances(Frame& frame, const RenderScene& scene, Bounds& casters) const;
  // Writes the instances of the drawable arrows after the scene's, all shafts then all heads, and their two draws
  // from `shaft` and `head`; grows `casters` by them.
  void WriteArrows(Frame& frame, const RenderScene& scene, MeshDraw shaft, MeshDraw head, Bounds& casters) const;
  // Writes the lines' vertices, two per line.
  void WriteLines(const Frame& frame, const RenderScene& scene) const;
  // Records `draws` with the pipeline bound: the meshes' vertex, instance and index sections bound.
  void DrawMeshes(VkCommandBuffer command_buffer, const Frame& frame, const std::vector<MeshDraw>& draws) const;
  // Records the lit meshes of `draws` (the scene's instances or the arrows), if any.
  void RecordMeshes(VkCommandBuffer command_buffer, const Frame& frame, const std::vector<MeshDraw>& draws) const;
  // Records the lines, if any.
  void RecordLines(VkCommandBuffer command_buffer, const Frame& frame) const;

  // The continua's surfaces (scene_renderer_surfaces.cpp).
  // The opaque and the translucent surfaces' pipelines in the target's pass.
  void CreateSurfacePipelines();
  // Writes the scene's surfaces into the frame's surface sections and their draws, and grows `casters` by them.
  void WriteSurfaces(Frame& frame, const RenderScene& scene, Bounds& casters) const;
  // Records `draws` with the pipeline bound: the surface sections bound.
  void DrawSurfaces(VkCommandBuffer command_buffer, const Frame& frame, const std::vector<MeshDraw>& draws) const;
  // Records the opaque surfaces, or the translucent ones (blended, after everything opaque), if any.
  void RecordSurfaces(VkCommandBuffer command_buffer, const Frame& frame, bool translucent) const;

  // Particles (scene_renderer_particles.cpp).
  void CreateParticlePipeline();
  // Writes the particles, sorted front to back from the camera, and grows `casters` by them.
  void WriteParticles(Frame& frame, const RenderScene& scene, Bounds& casters);
  // Points binding 2 of the frame's descriptor set at its particles.
  void PrepareParticleDraws(Frame& frame);
  // Records the particles' draw, if any.
  void RecordParticles(VkCommandBuffer command_buffer, const Frame& frame) const;

  // The ground (scene_renderer_ground.cpp).
  // The ground's pipeline in the target's pass (vertices of Point2 on the ground plane), with `fragment`.
  PipelineDesc GroundPipeline(ShaderId fragment) const;
  // The pipelines that draw the ground directly, where the shadow map reaches and the rest.
  void CreateGroundPipelines();
  // The ground cache's pass, sampler and pipelines, where the target asks for the cache and the device can draw into
  // and sample kGroundCacheFormat.
  void CreateGroundCache();
  // Writes the ground's triangles, split where the shadow map reaches (`light`, null without shadows).
  void WriteGround(Frame& frame, const GroundGrid& grid, const Vec3& center, const LightFit* light,
                   const Vec3& light_direction);
  // Makes the frame's ground cache `extent` large and points binding 3 of its descriptor set at it.
  void ResizeGroundCache(Frame& frame, VkExtent2D extent);
  // Decides how the frame draws the ground: from its cache, drawn again here first when what the cache holds differs
  // from this frame's `uniforms` and the view held still since the last frame prepared, or directly
  // (frame.direct_ground) while the view changes from frame to frame. `extent`: the scene's.
  void PrepareGroundCache(VkCommandBuffer command_buffer, Frame& frame, const FrameUniforms& uniforms,
                          VkExtent2D extent);
  // Records the drawing of the frame's ground cache (the unshadowed ground) into `command_buffer`.
  void RecordGroundCache(VkCommandBuffer command_buffer, Frame& frame) const;
  // Records the ground's draws in the scene's pass: from the cache, or directly.
  void RecordGround(VkCommandBuffer command_buffer, const Frame& frame) const;

  // The background, the scene image and the host's composition (scene_renderer_compose.cpp).
  // The background's pipeline: drawn after everything opaque, at the far plane.
  void CreateBackgroundPipeline();
  // The render scale's pass, sampler and upscale pipeline, where the target names its formats and the device can
  // draw into, sample and filter its colour format.
  void CreateScaledPass();
  // Makes the frame's scene image `extent` large and points binding 4 of its descriptor set at it.
  void ResizeSceneImage(Frame& frame, VkExtent2D extent);
  // The scene image's extent for `target_extent` at `render_scale` (each side at least 1 pixel), the frame's scene
  // image resized to it where it differs.
  VkExtent2D SizeSceneImage(Frame& frame, VkExtent2D target_extent, float render_scale);
  // Records the background gradient's draw.
  void RecordBackground(VkCommandBuffer command_buffer) const;
  // Records the scene's draws into the frame's scene image, cleared to `background`, in the scaled pass.
  void RecordScaledScene(VkCommandBuffer command_buffer, const Frame& frame, const Rgba& background) const;
  // Records the scene image's upscale to the target, inside the target's pass.
  void RecordUpscale(VkCommandBuffer command_buffer, const Frame& frame) const;
  // Records the copies out of a frame composed on the host: the scene image, and the HUD unless `hud_kept`.
  void RecordHostReadback(VkCommandBuffer command_buffer, Frame& frame, std::uint32_t frame_index, const Hud& scene_hud,
                          bool hud_kept);
  // Records the copy of the frame's scene image (just drawn by the scaled pass) into its scene_readback buffer.
  void RecordSceneReadback(VkCommandBuffer command_buffer, Frame& frame);
  // Writes the scene image copied out for the frame into `destination`, scaled up to the target's extent (4 bytes a
  // pixel, of the target's size).
  void ScaleSceneOnHost(const Frame& frame, std::span<std::uint8_t> destination) const;

  // The HUD (scene_renderer_hud.cpp).
  // The HUD's pass for frames composed on the host.
  void CreateHudPass();
  // Creates the HUD's overlay for the first frame that shows it and lays `scene_hud` out for the frame, unless a frame
  // composed on the host (`host_composed`) keeps the HUD its slot read back last (the same text and target extent).
  // Returns whether it is kept.
  bool PrepareHud(VkCommandBuffer command_buffer, Frame& frame, std::uint32_t frame_index, const Hud& scene_hud,
                  VkExtent2D target_extent, bool host_composed);
  // Makes the frame's HUD images at least `extent` large.
  void ResizeHudImages(Frame& frame, VkExtent2D extent);
  // Records the HUD's panel (laid out for this frame) over black and over white and their copies into hud_readback.
  void RecordHudReadback(VkCommandBuffer command_buffer, Frame& frame, std::uint32_t frame_index);
  // Blends the HUD read back for the frame over `destination` (the target's extent, 4 bytes a pixel).
  void CompositeHud(const Frame& frame, std::span<std::uint8_t> destination) const;

  VkPhysicalDevice physical_device;
  VkDevice device;
  SceneRendererTarget target;
  ArrowMeshes arrow_meshes = BuildArrowMeshes();
  bool cpu_device = false;
  // Specialization constant 0 of every fragment shader (kEncodeSrgb in common.glsl): the shaders encode sRGB for a
  // UNORM target. Kept for the object's life, as the pipelines refer to it.
  VkBool32 encode_srgb = VK_FALSE;
  VkSpecializationMapEntry encode_srgb_entry{0, 0, sizeof(VkBool32)};
  VkSpecializationInfo fragment_specialization{1, &encode_srgb_entry, sizeof(VkBool32), &encode_srgb};
  VkBool32 no_encode = VK_FALSE;
  VkSpecializationInfo no_encode_specialization{1, &encode_srgb_entry, sizeof(VkBool32), &no_encode};

  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  VkDescriptorPool descriptor_pool = VK_NULL_HANDLE;
  VkPipelineLayout pipeline_layout = VK_NULL_HANDLE;
  ShadowObjects shadow;
  VkPipeline background_pipeline = VK_NULL_HANDLE;
  VkPipeline mesh_pipeline = VK_NULL_HANDLE;
  VkPipeline particle_pipeline = VK_NULL_HANDLE;
  VkPipeline surface_pipeline = VK_NULL_HANDLE;        // Opaque surfaces (surface.frag).
  VkPipeline water_surface_pipeline = VK_NULL_HANDLE;  // Translucent surfaces (surface_water.frag), blended.
  GroundObjects ground;
  VkPipeline line_pipeline = VK_NULL_HANDLE;
  // The ground cache's key of the last frame prepared, in any slot: a frame whose key differs is a changing view.
  std::optional<GroundCacheKey> last_ground_key;
  // The HUD's render pass for frames composed on the host: one colour attachment of the target's format, cleared,
  // left for a transfer read (null otherwise).
  VkRenderPass hud_pass = VK_NULL_HANDLE;
  ScaledObjects scaled;
  std::vector<Frame> frames;
  std::unique_ptr<HudOverlay> hud;  // Created by the first frame whose scene shows the HUD.
};

}  // namespace ductile::render
