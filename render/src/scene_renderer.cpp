// SceneRenderer: pipelines, shadow maps and per-frame buffers, and the recording of one frame's passes.
//
// Each frame slot has one host-visible buffer that holds everything the frame draws from, rewritten by PrepareFrame:
// mesh vertices, indices, per-instance data (scene instances sorted by mesh, then the arrows' shafts and heads),
// particles and line vertices, each section aligned to kSectionAlignment. It only grows (by half again when a scene
// needs more), so a steady scene allocates nothing per frame. Uniforms live in a small buffer of their own, which
// the frame's descriptor set points at for the object's whole life.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ductile/render/renderer.h"
#include "render_math.h"
#include "shaders.h"
#include "vulkan_util.h"

namespace ductile::render {
namespace {

constexpr std::uint32_t kShadowMapSize = 2048;   // [texels] on a side.
constexpr VkDeviceSize kSectionAlignment = 256;  // [bytes]; covers every vertex and index alignment rule.
constexpr int kArrowSegments = 16;               // Facets around the arrow's shaft and head.

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

struct MeshVertex {
  Vec3 position;
  Vec3 normal;
};

// Per-instance vertex attributes of mesh.vert, locations 2 to 10.
struct InstanceData {
  Mat4 world_from_mesh;
  std::array<float, 12> normal_matrix;  // Three columns of vec4 (w unused).
  Rgba color;
  std::array<float, 4> flags;  // x: 1 when selected.
};

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

ArrowMeshes BuildArrowMeshes() {
  ArrowMeshes arrows;
  auto add_disk = [&arrows](float z) {
    const auto center = static_cast<std::uint32_t>(arrows.vertices.size());
    arrows.vertices.push_back({{0, 0, z}, {0, 0, -1}});
    for (int i = 0; i < kArrowSegments; ++i) {
      const float angle = 2.0f * std::numbers::pi_v<float> * static_cast<float>(i) / kArrowSegments;
      arrows.vertices.push_back({{std::cos(angle), std::sin(angle), z}, {0, 0, -1}});
    }
    for (std::uint32_t i = 0; i < kArrowSegments; ++i) {
      arrows.indices.insert(arrows.indices.end(), {center, center + 1 + (i + 1) % kArrowSegments, center + 1 + i});
    }
  };
  auto begin = [&arrows](MeshDraw& draw) {
    draw.first_index = static_cast<std::uint32_t>(arrows.indices.size());
    draw.vertex_offset = static_cast<std::int32_t>(arrows.vertices.size());
  };
  auto end = [&arrows](MeshDraw& draw) {
    draw.index_count = static_cast<std::uint32_t>(arrows.indices.size()) - draw.first_index;
  };

  // Shaft: smooth side (two rings with radial normals) and the bottom disk. Indices are relative to the mesh.
  begin(arrows.shaft);
  const auto shaft_base = static_cast<std::uint32_t>(arrows.vertices.size());
  for (int i = 0; i < kArrowSegments; ++i) {
    const float angle = 2.0f * std::numbers::pi_v<float> * static_cast<float>(i) / kArrowSegments;
    const Vec3 radial{std::cos(angle), std::sin(angle), 0};
    arrows.vertices.push_back({radial, radial});
    arrows.vertices.push_back({{radial[0], radial[1], 1}, radial});
  }
  for (std::uint32_t i = 0; i < kArrowSegments; ++i) {
    const std::uint32_t a = 2 * i, b = 2 * ((i + 1) % kArrowSegments);
    arrows.indices.insert(arrows.indices.end(), {a, b, b + 1, a, b + 1, a + 1});
  }
  add_disk(0.0f);
  for (std::size_t i = arrows.shaft.first_index + 6 * kArrowSegments; i < arrows.indices.size(); ++i) {
    arrows.indices[i] -= shaft_base;
  }
  end(arrows.shaft);

  // Head: one apex vertex per facet so each carries the normal of its facet's middle, then the base disk. The side
  // normal of a unit cone is (cos, sin, 1) / sqrt(2); the normal matrix corrects it for the head's real proportions.
  begin(arrows.head);
  const auto head_base = static_cast<std::uint32_t>(arrows.vertices.size());
  for (int i = 0; i < kArrowSegments; ++i) {
    const float angle = 2.0f * std::numbers::pi_v<float> * static_cast<float>(i) / kArrowSegments;
    const float middle = 2.0f * std::numbers::pi_v<float> * (static_cast<float>(i) + 0.5f) / kArrowSegments;
    const float root_half = std::numbers::sqrt2_v<float> * 0.5f;
    arrows.vertices.push_back(
        {{std::cos(angle), std::sin(angle), 0}, {std::cos(angle) * root_half, std::sin(angle) * root_half, root_half}});
    arrows.vertices.push_back({{0, 0, 1}, {std::cos(middle) * root_half, std::sin(middle) * root_half, root_half}});
  }
  for (std::uint32_t i = 0; i < kArrowSegments; ++i) {
    const std::uint32_t a = 2 * i, b = 2 * ((i + 1) % kArrowSegments);
    arrows.indices.insert(arrows.indices.end(), {a, b, a + 1});
  }
  add_disk(0.0f);
  for (std::size_t i = arrows.head.first_index + 3 * kArrowSegments; i < arrows.indices.size(); ++i) {
    arrows.indices[i] -= head_base;
  }
  end(arrows.head);
  return arrows;
}

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

std::array<float, 4> Vec4(const Vec3& v, float w) {
  return {v[0], v[1], v[2], w};
}
std::array<float, 4> Vec4(const Rgba& c) {
  return {c[0], c[1], c[2], c[3]};
}

VkDeviceSize AlignUp(VkDeviceSize value) {
  return (value + kSectionAlignment - 1) / kSectionAlignment * kSectionAlignment;
}

// The orthographic view-projection of the key light (travelling along unit `direction`) that just contains
// `casters`, and the size of one shadow map texel [m].
std::pair<Mat4, float> FitLight(const Vec3& direction, const Bounds& casters) {
  Bounds box = casters;
  if (box.empty()) box.Add({0, 0, 0}, 1.0f);
  const Vec3 center = Scale(Add(box.min, box.max), 0.5f);
  const float radius = std::max(0.5f * Length(Subtract(box.max, box.min)), 1e-3f);
  const Mat4 view = LookAt(Subtract(center, Scale(direction, 2.0f * radius)), center, {0, 0, 1});
  Bounds in_view;
  for (int corner = 0; corner < 8; ++corner) {
    const Vec3 p{(corner & 1) != 0 ? box.max[0] : box.min[0], (corner & 2) != 0 ? box.max[1] : box.min[1],
                 (corner & 4) != 0 ? box.max[2] : box.min[2]};
    in_view.Add(TransformPoint(view, p));
  }
  // A margin of a few texels keeps PCF taps at the edge inside the map; the depth range is padded so that casters
  // at its ends store depths strictly inside (0, 1).
  const float margin = 0.02f * radius + 1e-4f;
  const float width = in_view.max[0] - in_view.min[0] + 2.0f * margin;
  const Mat4 projection = Orthographic(in_view.min[0] - margin, in_view.max[0] + margin, in_view.min[1] - margin,
                                       in_view.max[1] + margin, -in_view.max[2] - margin, -in_view.min[2] + margin);
  return {Multiply(projection, view), width / static_cast<float>(kShadowMapSize)};
}

void ValidateScene(const RenderScene& scene) {
  const Camera& camera = scene.camera;
  if (!(camera.fov_y_degrees > 0.0f && camera.fov_y_degrees < 180.0f) || !(camera.near_plane > 0.0f) ||
      !(camera.far_plane > camera.near_plane) || !std::isfinite(camera.far_plane)) {
    throw std::invalid_argument(
        "RenderScene camera: need 0 < fov_y_degrees < 180 and 0 < near_plane < far_plane, got " +
        std::to_string(camera.fov_y_degrees) + ", " + std::to_string(camera.near_plane) + ", " +
        std::to_string(camera.far_plane));
  }
  for (std::size_t m = 0; m < scene.meshes.size(); ++m) {
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
  bool has_color = true;
  VkRenderPass render_pass = VK_NULL_HANDLE;
  VkSampleCountFlagBits samples = VK_SAMPLE_COUNT_1_BIT;
};

// Vertex layouts: meshes (binding 0 per vertex, binding 1 per instance), particles and lines (binding 0).
std::vector<VkVertexInputBindingDescription> MeshBindings() {
  return {{0, sizeof(MeshVertex), VK_VERTEX_INPUT_RATE_VERTEX},
          {1, sizeof(InstanceData), VK_VERTEX_INPUT_RATE_INSTANCE}};
}
std::vector<VkVertexInputAttributeDescription> MeshAttributes() {
  std::vector<VkVertexInputAttributeDescription> attributes = {
      {0, 0, VK_FORMAT_R32G32B32_SFLOAT, offsetof(MeshVertex, position)},
      {1, 0, VK_FORMAT_R32G32B32_SFLOAT, offsetof(MeshVertex, normal)}};
  // world_from_mesh, normal matrix, colour and flags: nine consecutive vec4s.
  for (std::uint32_t i = 0; i < 9; ++i) {
    attributes.push_back({2 + i, 1, VK_FORMAT_R32G32B32A32_SFLOAT, 16 * i});
  }
  return attributes;
}

}  // namespace

struct SceneRenderer::Impl {
  // What PrepareFrame recorded for RecordDraws, and the frame slot's resources.
  struct Frame {
    HostBuffer uniforms;
    HostBuffer data;
    GpuImage shadow_map;
    VkFramebuffer shadow_framebuffer = VK_NULL_HANDLE;
    VkDescriptorSet descriptor_set = VK_NULL_HANDLE;

    VkExtent2D extent{};
    VkDeviceSize vertex_offset = 0, index_offset = 0, instance_offset = 0, particle_offset = 0, line_offset = 0;
    std::vector<MeshDraw> mesh_draws;   // Scene instances.
    std::vector<MeshDraw> arrow_draws;  // Shafts and heads.
    std::uint32_t particle_count = 0;
    std::uint32_t line_vertex_count = 0;
    bool grid_visible = false;
    bool prepared = false;
  };

  Impl(VkPhysicalDevice physical, VkDevice dev, const SceneRendererTarget& target_in);
  ~Impl();
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  void DestroyHandles();
  VkPipeline CreatePipeline(const PipelineDesc& desc) const;
  void WriteFrameData(Frame& frame, const RenderScene& scene, VkExtent2D extent, Bounds& casters);
  void DrawMeshes(VkCommandBuffer command_buffer, const Frame& frame, const std::vector<MeshDraw>& draws) const;

  VkPhysicalDevice physical_device;
  VkDevice device;
  SceneRendererTarget target;
  ArrowMeshes arrow_meshes = BuildArrowMeshes();
  VkFormat shadow_format = VK_FORMAT_UNDEFINED;

  VkRenderPass shadow_pass = VK_NULL_HANDLE;
  VkSampler shadow_sampler = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  VkDescriptorPool descriptor_pool = VK_NULL_HANDLE;
  VkPipelineLayout pipeline_layout = VK_NULL_HANDLE;
  VkPipeline shadow_mesh_pipeline = VK_NULL_HANDLE;
  VkPipeline shadow_particle_pipeline = VK_NULL_HANDLE;
  VkPipeline background_pipeline = VK_NULL_HANDLE;
  VkPipeline mesh_pipeline = VK_NULL_HANDLE;
  VkPipeline particle_pipeline = VK_NULL_HANDLE;
  VkPipeline grid_pipeline = VK_NULL_HANDLE;
  VkPipeline line_pipeline = VK_NULL_HANDLE;
  std::vector<Frame> frames;
};

SceneRenderer::Impl::Impl(VkPhysicalDevice physical, VkDevice dev, const SceneRendererTarget& target_in)
    : physical_device(physical), device(dev), target(target_in) {
  if (target.render_pass == VK_NULL_HANDLE || target.frames_in_flight == 0) {
    throw std::invalid_argument("SceneRenderer: the target needs a render pass and at least one frame in flight");
  }
  // The constructor's body may throw after creating some handles; the destructor of a partly built Impl does not
  // run, so a guard destroys the handles that exist (the members that own memory clean up after themselves).
  struct Cleanup {
    Impl* impl;
    ~Cleanup() {
      if (impl != nullptr) impl->DestroyHandles();
    }
  } cleanup{this};

  // A shadow map format the device renders and samples; bilinear comparison when it can filter one (lavapipe
  // cannot), else nearest, where the shader's PCF alone softens the edges.
  const VkFormatFeatureFlags shadow_features =
      VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT;
  std::optional<VkFormat> found_shadow_format =
      FindDepthFormat(physical_device, shadow_features | VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT);
  const VkFilter shadow_filter = found_shadow_format ? VK_FILTER_LINEAR : VK_FILTER_NEAREST;
  if (!found_shadow_format) found_shadow_format = FindDepthFormat(physical_device, shadow_features);
  if (!found_shadow_format) throw RenderError("SceneRenderer: the device has no depth format it can sample");
  shadow_format = *found_shadow_format;

  // Shadow pass: one depth attachment, cleared, left readable by the fragment shaders of the main pass. The
  // dependencies order this frame's shadow writes after the previous frame's reads of the same map, and the
  // main pass's reads after these writes.
  VkAttachmentDescription depth{};
  depth.format = shadow_format;
  depth.samples = VK_SAMPLE_COUNT_1_BIT;
  depth.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
  depth.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
  depth.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
  depth.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
  depth.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  depth.finalLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL;
  VkAttachmentReference depth_reference{0, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
  VkSubpassDescription subpass{};
  subpass.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
  subpass.pDepthStencilAttachment = &depth_reference;
  std::array<VkSubpassDependency, 2> dependencies{};
  dependencies[0].srcSubpass = VK_SUBPASS_EXTERNAL;
  dependencies[0].dstSubpass = 0;
  dependencies[0].srcStageMask = VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT;
  dependencies[0].dstStageMask = VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT;
  dependencies[0].srcAccessMask = VK_ACCESS_SHADER_READ_BIT;
  dependencies[0].dstAccessMask =
      VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
  dependencies[1].srcSubpass = 0;
  dependencies[1].dstSubpass = VK_SUBPASS_EXTERNAL;
  dependencies[1].srcStageMask = VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT;
  dependencies[1].dstStageMask = VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT;
  dependencies[1].srcAccessMask = VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
  dependencies[1].dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
  VkRenderPassCreateInfo pass_info{};
  pass_info.sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO;
  pass_info.attachmentCount = 1;
  pass_info.pAttachments = &depth;
  pass_info.subpassCount = 1;
  pass_info.pSubpasses = &subpass;
  pass_info.dependencyCount = static_cast<std::uint32_t>(dependencies.size());
  pass_info.pDependencies = dependencies.data();
  Check(vkCreateRenderPass(device, &pass_info, nullptr, &shadow_pass), "vkCreateRenderPass (shadow)");

  // Hardware depth comparison; with bilinear filtering each tap of the shader's PCF is already a 2x2 filter.
  // Outside the map (the shader never samples there) the border reads as lit.
  VkSamplerCreateInfo sampler_info{};
  sampler_info.sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO;
  sampler_info.magFilter = shadow_filter;
  sampler_info.minFilter = shadow_filter;
  sampler_info.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
  sampler_info.addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER;
  sampler_info.addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER;
  sampler_info.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER;
  sampler_info.borderColor = VK_BORDER_COLOR_FLOAT_OPAQUE_WHITE;
  sampler_info.compareEnable = VK_TRUE;
  sampler_info.compareOp = VK_COMPARE_OP_LESS_OR_EQUAL;
  sampler_info.maxLod = 0.0f;
  Check(vkCreateSampler(device, &sampler_info, nullptr, &shadow_sampler), "vkCreateSampler");

  std::array<VkDescriptorSetLayoutBinding, 2> bindings{};
  bindings[0].binding = 0;
  bindings[0].descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
  bindings[0].descriptorCount = 1;
  bindings[0].stageFlags = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
  bindings[1].binding = 1;
  bindings[1].descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
  bindings[1].descriptorCount = 1;
  bindings[1].stageFlags = VK_SHADER_STAGE_FRAGMENT_BIT;
  VkDescriptorSetLayoutCreateInfo set_layout_info{};
  set_layout_info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
  set_layout_info.bindingCount = static_cast<std::uint32_t>(bindings.size());
  set_layout_info.pBindings = bindings.data();
  Check(vkCreateDescriptorSetLayout(device, &set_layout_info, nullptr, &set_layout), "vkCreateDescriptorSetLayout");

  const std::uint32_t frame_count = target.frames_in_flight;
  std::array<VkDescriptorPoolSize, 2> pool_sizes{
      {{VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, frame_count}, {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, frame_count}}};
  VkDescriptorPoolCreateInfo pool_info{};
  pool_info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
  pool_info.maxSets = frame_count;
  pool_info.poolSizeCount = static_cast<std::uint32_t>(pool_sizes.size());
  pool_info.pPoolSizes = pool_sizes.data();
  Check(vkCreateDescriptorPool(device, &pool_info, nullptr, &descriptor_pool), "vkCreateDescriptorPool");

  VkPipelineLayoutCreateInfo layout_info{};

  layout_info.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  layout_info.setLayoutCount = 1;
  layout_info.pSetLayouts = &set_layout;
  Check(vkCreatePipelineLayout(device, &layout_info, nullptr, &pipeline_layout), "vkCreatePipelineLayout");

  frames.resize(frame_count);
  for (Frame& frame : frames) {
    frame.uniforms = HostBuffer(physical_device, device, sizeof(FrameUniforms), VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT);
    frame.shadow_map =
        GpuImage(physical_device, device, {kShadowMapSize, kShadowMapSize}, shadow_format, VK_SAMPLE_COUNT_1_BIT,
                 VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT, VK_IMAGE_ASPECT_DEPTH_BIT);
    const VkImageView view = frame.shadow_map.view();
    VkFramebufferCreateInfo framebuffer_info{};
    framebuffer_info.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO;
    framebuffer_info.renderPass = shadow_pass;
    framebuffer_info.attachmentCount = 1;
    framebuffer_info.pAttachments = &view;
    framebuffer_info.width = kShadowMapSize;
    framebuffer_info.height = kShadowMapSize;
    framebuffer_info.layers = 1;
    Check(vkCreateFramebuffer(device, &framebuffer_info, nullptr, &frame.shadow_framebuffer),
          "vkCreateFramebuffer (shadow)");

    VkDescriptorSetAllocateInfo allocate{};

    allocate.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
    allocate.descriptorPool = descriptor_pool;
    allocate.descriptorSetCount = 1;
    allocate.pSetLayouts = &set_layout;
    Check(vkAllocateDescriptorSets(device, &allocate, &frame.descriptor_set), "vkAllocateDescriptorSets");
    VkDescriptorBufferInfo buffer_info{frame.uniforms.buffer(), 0, sizeof(FrameUniforms)};
    VkDescriptorImageInfo image_info{shadow_sampler, view, VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL};
    std::array<VkWriteDescriptorSet, 2> writes{};
    writes[0].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    writes[0].dstSet = frame.descriptor_set;
    writes[0].dstBinding = 0;
    writes[0].descriptorCount = 1;
    writes[0].descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
    writes[0].pBufferInfo = &buffer_info;
    writes[1].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    writes[1].dstSet = frame.descriptor_set;
    writes[1].dstBinding = 1;
    writes[1].descriptorCount = 1;
    writes[1].descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
    writes[1].pImageInfo = &image_info;
    vkUpdateDescriptorSets(device, static_cast<std::uint32_t>(writes.size()), writes.data(), 0, nullptr);
  }

  const std::vector<VkVertexInputBindingDescription> particle_bindings = {
      {0, sizeof(ParticleData), VK_VERTEX_INPUT_RATE_INSTANCE}};
  const std::vector<VkVertexInputAttributeDescription> particle_attributes = {
      {0, 0, VK_FORMAT_R32G32B32A32_SFLOAT, offsetof(ParticleData, center_radius)},
      {1, 0, VK_FORMAT_R32G32B32A32_SFLOAT, offsetof(ParticleData, color)}};

  PipelineDesc shadow_mesh{ShaderId::kShadowVert, std::nullopt, MeshBindings(), MeshAttributes()};
  shadow_mesh.depth_bias = true;
  shadow_mesh.has_color = false;
  shadow_mesh.render_pass = shadow_pass;
  shadow_mesh_pipeline = CreatePipeline(shadow_mesh);

  PipelineDesc shadow_particle{
      ShaderId::kParticleShadowVert, ShaderId::kParticleShadowFrag, particle_bindings, {particle_attributes[0]}};
  shadow_particle.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP;
  shadow_particle.depth_bias = true;
  shadow_particle.has_color = false;
  shadow_particle.render_pass = shadow_pass;
  shadow_particle_pipeline = CreatePipeline(shadow_particle);

  PipelineDesc background{ShaderId::kBackgroundVert, ShaderId::kBackgroundFrag, {}, {}};
  background.depth_test = false;
  background.depth_write = false;
  background.render_pass = target.render_pass;
  background.samples = target.samples;
  background_pipeline = CreatePipeline(background);

  PipelineDesc mesh{ShaderId::kMeshVert, ShaderId::kMeshFrag, MeshBindings(), MeshAttributes()};
  mesh.render_pass = target.render_pass;
  mesh.samples = target.samples;
  mesh_pipeline = CreatePipeline(mesh);

  // Particles keep the target's alpha: their alpha output is coverage for alpha-to-coverage, not opacity.
  PipelineDesc particle{ShaderId::kParticleVert, ShaderId::kParticleFrag, particle_bindings, particle_attributes};
  particle.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP;
  particle.alpha_to_coverage = target.samples != VK_SAMPLE_COUNT_1_BIT;
  particle.write_mask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT | VK_COLOR_COMPONENT_B_BIT;
  particle.render_pass = target.render_pass;
  particle.samples = target.samples;
  particle_pipeline = CreatePipeline(particle);

  PipelineDesc grid{ShaderId::kGridVert, ShaderId::kGridFrag, {}, {}};
  grid.depth_write = false;
  grid.blend = true;
  grid.render_pass = target.render_pass;
  grid.samples = target.samples;
  grid_pipeline = CreatePipeline(grid);

  PipelineDesc line{ShaderId::kLineVert,
                    ShaderId::kLineFrag,
                    {{0, sizeof(LineVertex), VK_VERTEX_INPUT_RATE_VERTEX}},
                    {{0, 0, VK_FORMAT_R32G32B32A32_SFLOAT, offsetof(LineVertex, position)},
                     {1, 0, VK_FORMAT_R32G32B32A32_SFLOAT, offsetof(LineVertex, color)}}};
  line.topology = VK_PRIMITIVE_TOPOLOGY_LINE_LIST;
  line.depth_write = false;
  line.blend = true;
  line.render_pass = target.render_pass;
  line.samples = target.samples;
  line_pipeline = CreatePipeline(line);

  cleanup.impl = nullptr;
}

SceneRenderer::Impl::~Impl() {
  DestroyHandles();
}

void SceneRenderer::Impl::DestroyHandles() {
  for (VkPipeline pipeline : {shadow_mesh_pipeline, shadow_particle_pipeline, background_pipeline, mesh_pipeline,
                              particle_pipeline, grid_pipeline, line_pipeline}) {
    if (pipeline != VK_NULL_HANDLE) vkDestroyPipeline(device, pipeline, nullptr);
  }
  for (Frame& frame : frames) {
    if (frame.shadow_framebuffer != VK_NULL_HANDLE) vkDestroyFramebuffer(device, frame.shadow_framebuffer, nullptr);
    frame.shadow_framebuffer = VK_NULL_HANDLE;
  }
  if (pipeline_layout != VK_NULL_HANDLE) vkDestroyPipelineLayout(device, pipeline_layout, nullptr);
  if (descriptor_pool != VK_NULL_HANDLE) vkDestroyDescriptorPool(device, descriptor_pool, nullptr);
  if (set_layout != VK_NULL_HANDLE) vkDestroyDescriptorSetLayout(device, set_layout, nullptr);
  if (shadow_sampler != VK_NULL_HANDLE) vkDestroySampler(device, shadow_sampler, nullptr);
  if (shadow_pass != VK_NULL_HANDLE) vkDestroyRenderPass(device, shadow_pass, nullptr);
  shadow_mesh_pipeline = shadow_particle_pipeline = background_pipeline = mesh_pipeline = particle_pipeline =
      grid_pipeline = line_pipeline = VK_NULL_HANDLE;
  pipeline_layout = VK_NULL_HANDLE;
  descriptor_pool = VK_NULL_HANDLE;
  set_layout = VK_NULL_HANDLE;
  shadow_sampler = VK_NULL_HANDLE;
  shadow_pass = VK_NULL_HANDLE;
}

VkPipeline SceneRenderer::Impl::CreatePipeline(const PipelineDesc& desc) const {
  std::array<VkShaderModule, 2> modules{VK_NULL_HANDLE, VK_NULL_HANDLE};
  std::array<VkPipelineShaderStageCreateInfo, 2> stages{};
  const std::uint32_t stage_count = desc.fragment ? 2 : 1;
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkResult result = VK_SUCCESS;
  const char* failed_call = "vkCreateShaderModule";
  for (std::uint32_t s = 0; s < stage_count && result == VK_SUCCESS; ++s) {
    const std::span<const std::uint32_t> code = ShaderCode(s == 0 ? desc.vertex : *desc.fragment);
    VkShaderModuleCreateInfo module_info{};
    module_info.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
    module_info.codeSize = code.size_bytes();
    module_info.pCode = code.data();
    result = vkCreateShaderModule(device, &module_info, nullptr, &modules[s]);
    stages[s].sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    stages[s].stage = s == 0 ? VK_SHADER_STAGE_VERTEX_BIT : VK_SHADER_STAGE_FRAGMENT_BIT;
    stages[s].module = modules[s];
    stages[s].pName = "main";
  }

  if (result == VK_SUCCESS) {
    VkPipelineVertexInputStateCreateInfo vertex_input{};
    vertex_input.sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO;
    vertex_input.vertexBindingDescriptionCount = static_cast<std::uint32_t>(desc.bindings.size());
    vertex_input.pVertexBindingDescriptions = desc.bindings.data();
    vertex_input.vertexAttributeDescriptionCount = static_cast<std::uint32_t>(desc.attributes.size());
    vertex_input.pVertexAttributeDescriptions = desc.attributes.data();
    VkPipelineInputAssemblyStateCreateInfo input_assembly{};
    input_assembly.sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO;
    input_assembly.topology = desc.topology;
    VkPipelineViewportStateCreateInfo viewport{};
    viewport.sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO;
    viewport.viewportCount = 1;
    viewport.scissorCount = 1;
    // No culling: imported meshes may wind either way, and impostor quads and the grid are seen from both sides.
    VkPipelineRasterizationStateCreateInfo raster{};
    raster.sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO;
    raster.polygonMode = VK_POLYGON_MODE_FILL;
    raster.cullMode = VK_CULL_MODE_NONE;
    raster.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE;
    raster.lineWidth = 1.0f;
    // Slope-scaled bias for the shadow map; the receivers also move their lookup along the normal.
    raster.depthBiasEnable = desc.depth_bias ? VK_TRUE : VK_FALSE;
    raster.depthBiasConstantFactor = 1.0f;
    raster.depthBiasSlopeFactor = 1.5f;
    VkPipelineMultisampleStateCreateInfo multisample{};
    multisample.sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO;
    multisample.rasterizationSamples = desc.samples;
    multisample.alphaToCoverageEnable = desc.alpha_to_coverage ? VK_TRUE : VK_FALSE;
    VkPipelineDepthStencilStateCreateInfo depth{};
    depth.sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO;
    depth.depthTestEnable = desc.depth_test ? VK_TRUE : VK_FALSE;
    depth.depthWriteEnable = desc.depth_write ? VK_TRUE : VK_FALSE;
    depth.depthCompareOp = VK_COMPARE_OP_LESS_OR_EQUAL;
    VkPipelineColorBlendAttachmentState blend_attachment{};
    blend_attachment.colorWriteMask = desc.write_mask;
    if (desc.blend) {
      // Straight alpha over what is there; the target's alpha stays opaque.
      blend_attachment.blendEnable = VK_TRUE;
      blend_attachment.srcColorBlendFactor = VK_BLEND_FACTOR_SRC_ALPHA;
      blend_attachment.dstColorBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA;
      blend_attachment.colorBlendOp = VK_BLEND_OP_ADD;
      blend_attachment.srcAlphaBlendFactor = VK_BLEND_FACTOR_ZERO;
      blend_attachment.dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE;
      blend_attachment.alphaBlendOp = VK_BLEND_OP_ADD;
    }
    VkPipelineColorBlendStateCreateInfo blend{};
    blend.sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO;
    blend.attachmentCount = desc.has_color ? 1 : 0;
    blend.pAttachments = &blend_attachment;
    const std::array<VkDynamicState, 2> dynamic_states{VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
    VkPipelineDynamicStateCreateInfo dynamic{};
    dynamic.sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO;
    dynamic.dynamicStateCount = static_cast<std::uint32_t>(dynamic_states.size());
    dynamic.pDynamicStates = dynamic_states.data();

    VkGraphicsPipelineCreateInfo info{};

    info.sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO;
    info.stageCount = stage_count;
    info.pStages = stages.data();
    info.pVertexInputState = &vertex_input;
    info.pInputAssemblyState = &input_assembly;
    info.pViewportState = &viewport;
    info.pRasterizationState = &raster;
    info.pMultisampleState = &multisample;
    info.pDepthStencilState = &depth;
    info.pColorBlendState = &blend;
    info.pDynamicState = &dynamic;
    info.layout = pipeline_layout;
    info.renderPass = desc.render_pass;
    info.subpass = 0;
    result = vkCreateGraphicsPipelines(device, VK_NULL_HANDLE, 1, &info, nullptr, &pipeline);
    failed_call = "vkCreateGraphicsPipelines";
  }
  for (VkShaderModule module : modules) {
    if (module != VK_NULL_HANDLE) vkDestroyShaderModule(device, module, nullptr);
  }
  Check(result, failed_call);
  return pipeline;
}

void SceneRenderer::Impl::WriteFrameData(Frame& frame, const RenderScene& scene, VkExtent2D extent, Bounds& casters) {
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

  frame.vertex_offset = 0;
  frame.index_offset = AlignUp(frame.vertex_offset + vertex_count * sizeof(MeshVertex));
  frame.instance_offset = AlignUp(frame.index_offset + index_count * sizeof(std::uint32_t));
  frame.particle_offset = AlignUp(frame.instance_offset + instance_count * sizeof(InstanceData));
  frame.line_offset = AlignUp(frame.particle_offset + particle_count * sizeof(ParticleData));
  const VkDeviceSize total = AlignUp(frame.line_offset + line_vertex_count * sizeof(LineVertex));
  if (frame.data.size() < total) {
    frame.data = HostBuffer(physical_device, device, std::max<VkDeviceSize>(total + total / 2, 1 << 16),
                            VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_INDEX_BUFFER_BIT);
  }
  std::byte* base = frame.data.data();
  auto* vertices = reinterpret_cast<MeshVertex*>(base + frame.vertex_offset);
  auto* indices = reinterpret_cast<std::uint32_t*>(base + frame.index_offset);
  auto* instances = reinterpret_cast<InstanceData*>(base + frame.instance_offset);
  auto* particles = reinterpret_cast<ParticleData*>(base + frame.particle_offset);
  auto* line_vertices = reinterpret_cast<LineVertex*>(base + frame.line_offset);

  // Mesh geometry: the scene's meshes, then the arrow meshes. Indices stay relative to their mesh; each draw
  // carries its mesh's first vertex.
  std::vector<MeshDraw> mesh_ranges(scene.meshes.size());
  std::vector<Vec3> mesh_min(scene.meshes.size()), mesh_max(scene.meshes.size());
  std::size_t next_vertex = 0, next_index = 0;
  for (std::size_t m = 0; m < scene.meshes.size(); ++m) {
    const MeshData& mesh = scene.meshes[m];
    mesh_ranges[m].first_index = static_cast<std::uint32_t>(next_index);
    mesh_ranges[m].index_count = static_cast<std::uint32_t>(mesh.indices.size());
    mesh_ranges[m].vertex_offset = static_cast<std::int32_t>(next_vertex);
    Bounds bounds;
    for (std::size_t v = 0; v < mesh.positions.size(); ++v) {
      vertices[next_vertex + v] = {mesh.positions[v], mesh.normals[v]};
      bounds.Add(mesh.positions[v]);
    }
    mesh_min[m] = bounds.min;
    mesh_max[m] = bounds.max;
    std::memcpy(indices + next_index, mesh.indices.data(), mesh.indices.size() * sizeof(std::uint32_t));
    next_vertex += mesh.positions.size();
    next_index += mesh.indices.size();
  }
  std::memcpy(vertices + next_vertex, arrow_meshes.vertices.data(), arrow_meshes.vertices.size() * sizeof(MeshVertex));
  std::memcpy(indices + next_index, arrow_meshes.indices.data(), arrow_meshes.indices.size() * sizeof(std::uint32_t));
  MeshDraw shaft = arrow_meshes.shaft, head = arrow_meshes.head;
  shaft.first_index += static_cast<std::uint32_t>(next_index);
  head.first_index += static_cast<std::uint32_t>(next_index);
  shaft.vertex_offset += static_cast<std::int32_t>(next_vertex);
  head.vertex_offset += static_cast<std::int32_t>(next_vertex);

  auto write_instance = [&instances](std::size_t slot, const Mat4& world_from_mesh, const Rgba& color, bool selected) {
    InstanceData& data = instances[slot];
    data.world_from_mesh = world_from_mesh;
    const Mat4 normal = NormalMatrix(world_from_mesh);
    for (int c = 0; c < 3; ++c) {
      for (int r = 0; r < 4; ++r) data.normal_matrix[4 * c + r] = normal[4 * c + r];
    }
    data.color = color;
    data.flags = {selected ? 1.0f : 0.0f, 0, 0, 0};
  };

  // Scene instances in mesh order, one instanced draw per mesh that has any.
  std::vector<std::uint32_t> order(scene.instances.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&scene](std::uint32_t a, std::uint32_t b) {
    return scene.instances[a].mesh < scene.instances[b].mesh;
  });
  frame.mesh_draws.clear();
  for (std::uint32_t slot = 0; slot < order.size(); ++slot) {
    const MeshInstance& instance = scene.instances[order[slot]];
    const auto m = static_cast<std::size_t>(instance.mesh);
    write_instance(slot, instance.world_from_mesh, instance.color, instance.selected);
    if (!scene.meshes[m].positions.empty()) {
      for (int corner = 0; corner < 8; ++corner) {
        const Vec3 p{(corner & 1) != 0 ? mesh_max[m][0] : mesh_min[m][0],
                     (corner & 2) != 0 ? mesh_max[m][1] : mesh_min[m][1],
                     (corner & 4) != 0 ? mesh_max[m][2] : mesh_min[m][2]};
        casters.Add(TransformPoint(instance.world_from_mesh, p));
      }
    }
    if (mesh_ranges[m].index_count == 0) continue;
    if (!frame.mesh_draws.empty() && slot > 0 && scene.instances[order[slot - 1]].mesh == instance.mesh) {
      ++frame.mesh_draws.back().instance_count;
    } else {
      MeshDraw draw = mesh_ranges[m];
      draw.instance_count = 1;
      draw.first_instance = slot;
      frame.mesh_draws.push_back(draw);
    }
  }

  // Arrows: all shafts, then all heads, so they take two instanced draws. Each is placed in a frame whose z axis is
  // the arrow; the head is 2.5 shaft radii wide and at most 40% of the arrow long. Arrows of zero length or radius
  // are not drawn.
  auto drawable = [](const Arrow& arrow) {
    const float length = Length(arrow.vector);
    return length > 0.0f && std::isfinite(length) && arrow.shaft_radius > 0.0f;
  };
  const auto arrow_count =
      static_cast<std::uint32_t>(std::count_if(scene.arrows.begin(), scene.arrows.end(), drawable));
  const auto first_shaft = static_cast<std::uint32_t>(scene.instances.size());
  std::uint32_t arrow_index = 0;
  for (const Arrow& arrow : scene.arrows) {
    if (!drawable(arrow)) continue;
    const float length = Length(arrow.vector);
    const Vec3 axis = Scale(arrow.vector, 1.0f / length);
    const Vec3 helper = std::fabs(axis[2]) < 0.9f ? Vec3{0, 0, 1} : Vec3{1, 0, 0};
    const Vec3 u = Normalize(Cross(helper, axis), {1, 0, 0});
    const Vec3 v = Cross(axis, u);
    const float head_radius = 2.5f * arrow.shaft_radius;
    const float head_length = std::min(0.4f * length, 3.0f * head_radius);
    const float shaft_length = length - head_length;
    const Vec3 head_base = Add(arrow.origin, Scale(axis, shaft_length));
    auto frame_of = [&](float radius, float height, const Vec3& origin) {
      return Mat4{
          u[0] * radius,    u[1] * radius,    u[2] * radius,    0, v[0] * radius, v[1] * radius, v[2] * radius, 0,
          axis[0] * height, axis[1] * height, axis[2] * height, 0, origin[0],     origin[1],     origin[2],     1};
    };
    write_instance(first_shaft + arrow_index, frame_of(arrow.shaft_radius, shaft_length, arrow.origin), arrow.color,
                   false);
    write_instance(first_shaft + arrow_count + arrow_index, frame_of(head_radius, head_length, head_base), arrow.color,
                   false);
    casters.Add(arrow.origin, head_radius);
    casters.Add(Add(arrow.origin, arrow.vector), head_radius);
    ++arrow_index;
  }
  frame.arrow_draws.clear();
  if (arrow_count > 0) {
    shaft.instance_count = head.instance_count = arrow_count;
    shaft.first_instance = first_shaft;
    head.first_instance = first_shaft + arrow_count;
    frame.arrow_draws = {shaft, head};
  }

  std::size_t next_particle = 0;
  for (const ParticleSet& set : scene.particles) {
    for (std::size_t p = 0; p < set.positions.size(); ++p) {
      const Vec3& x = set.positions[p];
      particles[next_particle + p] = {{x[0], x[1], x[2], set.radius}, set.colors[p]};
      casters.Add(x, set.radius);
    }
    next_particle += set.positions.size();
  }
  frame.particle_count = static_cast<std::uint32_t>(particle_count);

  for (std::size_t l = 0; l < scene.lines.size(); ++l) {
    const Line& line = scene.lines[l];
    line_vertices[2 * l] = {Vec4(line.from, 1.0f), line.color};
    line_vertices[2 * l + 1] = {Vec4(line.to, 1.0f), line.color};
  }
  frame.line_vertex_count = static_cast<std::uint32_t>(line_vertex_count);
  frame.grid_visible = scene.grid.visible && scene.grid.extent > 0.0f && scene.grid.spacing > 0.0f;
  frame.extent = extent;
}

void SceneRenderer::Impl::DrawMeshes(VkCommandBuffer command_buffer, const Frame& frame,
                                     const std::vector<MeshDraw>& draws) const {
  if (draws.empty()) return;
  const std::array<VkBuffer, 2> buffers{frame.data.buffer(), frame.data.buffer()};
  const std::array<VkDeviceSize, 2> offsets{frame.vertex_offset, frame.instance_offset};
  vkCmdBindVertexBuffers(command_buffer, 0, 2, buffers.data(), offsets.data());
  vkCmdBindIndexBuffer(command_buffer, frame.data.buffer(), frame.index_offset, VK_INDEX_TYPE_UINT32);
  for (const MeshDraw& draw : draws) {
    vkCmdDrawIndexed(command_buffer, draw.index_count, draw.instance_count, draw.first_index, draw.vertex_offset,
                     draw.first_instance);
  }
}

SceneRenderer::SceneRenderer(VkPhysicalDevice physical_device, VkDevice device, const SceneRendererTarget& target)
    : impl_(std::make_unique<Impl>(physical_device, device, target)) {}

SceneRenderer::~SceneRenderer() = default;

void SceneRenderer::PrepareFrame(VkCommandBuffer command_buffer, std::uint32_t frame_index, const RenderScene& scene,
                                 VkExtent2D extent) {
  if (frame_index >= impl_->frames.size()) {
    throw std::invalid_argument("SceneRenderer::PrepareFrame: frame " + std::to_string(frame_index) + " of " +
                                std::to_string(impl_->frames.size()));
  }
  if (extent.width == 0 || extent.height == 0) {
    throw std::invalid_argument("SceneRenderer::PrepareFrame: empty extent");
  }
  ValidateScene(scene);
  Impl::Frame& frame = impl_->frames[frame_index];
  Bounds casters;
  impl_->WriteFrameData(frame, scene, extent, casters);

  const Lighting& lighting = scene.lighting;
  const Vec3 light_direction = Normalize(lighting.key_direction, {0, 0, -1});
  const bool shadows = lighting.shadows && !casters.empty();
  const auto [light_view_proj, texel_size] = FitLight(light_direction, casters);
  const Camera& camera = scene.camera;
  const float aspect = static_cast<float>(extent.width) / static_cast<float>(extent.height);
  const Mat4 view_proj = Multiply(Perspective(camera.fov_y_degrees * std::numbers::pi_v<float> / 180.0f, aspect,
                                              camera.near_plane, camera.far_plane),
                                  LookAt(camera.eye, camera.target, camera.up));

  FrameUniforms uniforms{};
  uniforms.view_proj = view_proj;
  uniforms.light_view_proj = light_view_proj;
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
  uniforms.viewport = {static_cast<float>(extent.width), static_cast<float>(extent.height),
                       impl_->target.srgb_target ? 0.0f : 1.0f, texel_size};
  std::memcpy(frame.uniforms.data(), &uniforms, sizeof(uniforms));

  // The shadow pass runs even without casters: it clears the map and leaves it in the layout the main pass reads.
  VkClearValue clear{};
  clear.depthStencil = {1.0f, 0};
  VkRenderPassBeginInfo begin{};
  begin.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO;
  begin.renderPass = impl_->shadow_pass;
  begin.framebuffer = frame.shadow_framebuffer;
  begin.renderArea = {{0, 0}, {kShadowMapSize, kShadowMapSize}};
  begin.clearValueCount = 1;
  begin.pClearValues = &clear;
  vkCmdBeginRenderPass(command_buffer, &begin, VK_SUBPASS_CONTENTS_INLINE);
  if (shadows) {
    const VkViewport viewport{0, 0, static_cast<float>(kShadowMapSize), static_cast<float>(kShadowMapSize), 0, 1};
    const VkRect2D scissor{{0, 0}, {kShadowMapSize, kShadowMapSize}};
    vkCmdSetViewport(command_buffer, 0, 1, &viewport);
    vkCmdSetScissor(command_buffer, 0, 1, &scissor);
    vkCmdBindDescriptorSets(command_buffer, VK_PIPELINE_BIND_POINT_GRAPHICS, impl_->pipeline_layout, 0, 1,
                            &frame.descriptor_set, 0, nullptr);
    if (!frame.mesh_draws.empty() || !frame.arrow_draws.empty()) {
      vkCmdBindPipeline(command_buffer, VK_PIPELINE_BIND_POINT_GRAPHICS, impl_->shadow_mesh_pipeline);
      impl_->DrawMeshes(command_buffer, frame, frame.mesh_draws);
      impl_->DrawMeshes(command_buffer, frame, frame.arrow_draws);
    }
    if (frame.particle_count > 0) {
      vkCmdBindPipeline(command_buffer, VK_PIPELINE_BIND_POINT_GRAPHICS, impl_->shadow_particle_pipeline);
      const VkBuffer buffer = frame.data.buffer();
      vkCmdBindVertexBuffers(command_buffer, 0, 1, &buffer, &frame.particle_offset);
      vkCmdDraw(command_buffer, 4, frame.particle_count, 0, 0);
    }
  }
  vkCmdEndRenderPass(command_buffer);
  frame.prepared = true;
}

void SceneRenderer::RecordDraws(VkCommandBuffer command_buffer, std::uint32_t frame_index) const {
  if (frame_index >= impl_->frames.size() || !impl_->frames[frame_index].prepared) {
    throw std::invalid_argument("SceneRenderer::RecordDraws: frame " + std::to_string(frame_index) +
                                " was not prepared");
  }
  const Impl::Frame& frame = impl_->frames[frame_index];
  const VkViewport viewport{0, 0, static_cast<float>(frame.extent.width), static_cast<float>(frame.extent.height),
                            0, 1};
  const VkRect2D scissor{{0, 0}, frame.extent};
  vkCmdSetViewport(command_buffer, 0, 1, &viewport);
  vkCmdSetScissor(command_buffer, 0, 1, &scissor);
  vkCmdBindDescriptorSets(command_buffer, VK_PIPELINE_BIND_POINT_GRAPHICS, impl_->pipeline_layout, 0, 1,
                          &frame.descriptor_set, 0, nullptr);
  const VkBuffer buffer = frame.data.buffer();

  vkCmdBindPipeline(command_buffer, VK_PIPELINE_BIND_POINT_GRAPHICS, impl_->background_pipeline);
  vkCmdDraw(command_buffer, 3, 1, 0, 0);

  if (!frame.mesh_draws.empty()) {
    vkCmdBindPipeline(command_buffer, VK_PIPELINE_BIND_POINT_GRAPHICS, impl_->mesh_pipeline);
    impl_->DrawMeshes(command_buffer, frame, frame.mesh_draws);
  }
  if (frame.particle_count > 0) {
    vkCmdBindPipeline(command_buffer, VK_PIPELINE_BIND_POINT_GRAPHICS, impl_->particle_pipeline);
    vkCmdBindVertexBuffers(command_buffer, 0, 1, &buffer, &frame.particle_offset);
    vkCmdDraw(command_buffer, 4, frame.particle_count, 0, 0);
  }
  if (frame.grid_visible) {
    vkCmdBindPipeline(command_buffer, VK_PIPELINE_BIND_POINT_GRAPHICS, impl_->grid_pipeline);
    vkCmdDraw(command_buffer, 6, 1, 0, 0);
  }
  if (!frame.arrow_draws.empty()) {
    vkCmdBindPipeline(command_buffer, VK_PIPELINE_BIND_POINT_GRAPHICS, impl_->mesh_pipeline);
    impl_->DrawMeshes(command_buffer, frame, frame.arrow_draws);
  }
  if (frame.line_vertex_count > 0) {
    vkCmdBindPipeline(command_buffer, VK_PIPELINE_BIND_POINT_GRAPHICS, impl_->line_pipeline);
    vkCmdBindVertexBuffers(command_buffer, 0, 1, &buffer, &frame.line_offset);
    vkCmdDraw(command_buffer, frame.line_vertex_count, 1, 0, 0);
  }
}

}  // namespace ductile::render
