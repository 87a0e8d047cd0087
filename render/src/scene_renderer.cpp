// SceneRenderer: pipelines, shadow maps and per-frame buffers, and the recording of one frame's passes.
//
// Each frame slot has one host-visible buffer that holds everything the frame draws from, rewritten by PrepareFrame:
// mesh vertices, indices, per-instance data (scene instances sorted by mesh, then the arrows' shafts and heads),
// particles, line vertices and the ground's triangles, each section aligned to kSectionAlignment. It only grows (by
// half again when a scene needs more), so a steady scene allocates nothing per frame, and the meshes in it are
// rewritten only when the scene's meshes differ from the last frame's (compared by content). Uniforms live in a
// small buffer of their own; the frame's descriptor set points at them and at the shadow map for the object's whole
// life, and at the frame's particles (a storage buffer the particle vertex shaders read) from PrepareFrame on.
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
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <numbers>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ductile/render/image.h"
#include "ductile/render/renderer.h"
#include "ductile/render/vulkan_util.h"
#include "hud_overlay.h"
#include "render_math.h"
#include "scene_renderer_impl.h"
#include "shaders.h"

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

  // A CPU device (lavapipe) runs every fragment on the CPU: it gets a smaller shadow map and particles whose depth
  // the rasterizer can test before shading (particle.frag).
  VkPhysicalDeviceProperties properties{};
  vkGetPhysicalDeviceProperties(physical_device, &properties);
  cpu_device = properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
  encode_srgb = target.srgb_target ? VK_FALSE : VK_TRUE;

  CreateShadowPass();

  std::array<VkDescriptorSetLayoutBinding, 5> bindings{};
  bindings[0].binding = 0;
  bindings[0].descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
  bindings[0].descriptorCount = 1;
  bindings[0].stageFlags = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
  bindings[1].binding = 1;
  bindings[1].descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
  bindings[1].descriptorCount = 1;
  bindings[1].stageFlags = VK_SHADER_STAGE_FRAGMENT_BIT;
  bindings[2].binding = 2;
  bindings[2].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  bindings[2].descriptorCount = 1;
  bindings[2].stageFlags = VK_SHADER_STAGE_VERTEX_BIT;
  bindings[3].binding = 3;  // The ground cache (ground_cache.frag); written when the cache is sized.
  bindings[3].descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
  bindings[3].descriptorCount = 1;
  bindings[3].stageFlags = VK_SHADER_STAGE_FRAGMENT_BIT;
  bindings[4] = bindings[3];
  bindings[4].binding = 4;  // The scene image (upscale.frag); written when it is sized.
  VkDescriptorSetLayoutCreateInfo set_layout_info{};
  set_layout_info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
  set_layout_info.bindingCount = static_cast<std::uint32_t>(bindings.size());
  set_layout_info.pBindings = bindings.data();
  Check(vkCreateDescriptorSetLayout(device, &set_layout_info, nullptr, &set_layout), "vkCreateDescriptorSetLayout");

  const std::uint32_t frame_count = target.frames_in_flight;
  std::array<VkDescriptorPoolSize, 3> pool_sizes{{{VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, frame_count},
                                                  {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 3 * frame_count},
                                                  {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, frame_count}}};
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
    VkDescriptorSetAllocateInfo allocate{};

    allocate.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
    allocate.descriptorPool = descriptor_pool;
    allocate.descriptorSetCount = 1;
    allocate.pSetLayouts = &set_layout;
    Check(vkAllocateDescriptorSets(device, &allocate, &frame.descriptor_set), "vkAllocateDescriptorSets");
    const VkDescriptorBufferInfo buffer_info{frame.uniforms.buffer(), 0, sizeof(FrameUniforms)};
    WriteBufferDescriptor(device, frame.descriptor_set, 0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, buffer_info);
    // A full-size map until PrepareFrame knows the scene's extent (a CPU device sizes it from that).
    ResizeShadowMap(frame, cpu_device ? kCpuShadowMapSize : kShadowMapSize);
  }

  CreateShadowPipelines();

  CreateBackgroundPipeline();
  CreateMeshPipeline();
  CreateParticlePipeline();

  CreateGroundPipelines();
  CreateLinePipeline();

  CreateGroundCache();
  CreateScaledPass();
  CreateHudPass();

  cleanup.impl = nullptr;
}

SceneRenderer::Impl::~Impl() {
  DestroyHandles();
}

void SceneRenderer::Impl::DestroyHandles() {
  for (VkPipeline pipeline :
       {shadow.mesh_pipeline, shadow.particle_pipeline, background_pipeline, mesh_pipeline, particle_pipeline,
        ground.shadowed_pipeline, ground.plain_pipeline, line_pipeline, ground.cache_pipeline, ground.copy_pipeline,
        ground.shadow_pipeline, scaled.upscale_pipeline}) {
    if (pipeline != VK_NULL_HANDLE) vkDestroyPipeline(device, pipeline, nullptr);
  }
  ground.cache_pipeline = ground.copy_pipeline = ground.shadow_pipeline = scaled.upscale_pipeline = VK_NULL_HANDLE;
  for (Frame& frame : frames) {
    if (frame.scaled_framebuffer != VK_NULL_HANDLE) vkDestroyFramebuffer(device, frame.scaled_framebuffer, nullptr);
    frame.scaled_framebuffer = VK_NULL_HANDLE;
    if (frame.shadow_framebuffer != VK_NULL_HANDLE) vkDestroyFramebuffer(device, frame.shadow_framebuffer, nullptr);
    frame.shadow_framebuffer = VK_NULL_HANDLE;
    if (frame.ground_cache_framebuffer != VK_NULL_HANDLE) {
      vkDestroyFramebuffer(device, frame.ground_cache_framebuffer, nullptr);
    }
    frame.ground_cache_framebuffer = VK_NULL_HANDLE;
    for (VkFramebuffer* hud_framebuffer : {&frame.hud_black_framebuffer, &frame.hud_white_framebuffer}) {
      if (*hud_framebuffer != VK_NULL_HANDLE) vkDestroyFramebuffer(device, *hud_framebuffer, nullptr);
      *hud_framebuffer = VK_NULL_HANDLE;
    }
  }
  if (hud_pass != VK_NULL_HANDLE) vkDestroyRenderPass(device, hud_pass, nullptr);
  hud_pass = VK_NULL_HANDLE;
  if (ground.cache_sampler != VK_NULL_HANDLE) vkDestroySampler(device, ground.cache_sampler, nullptr);
  if (ground.cache_pass != VK_NULL_HANDLE) vkDestroyRenderPass(device, ground.cache_pass, nullptr);
  ground.cache_sampler = VK_NULL_HANDLE;
  ground.cache_pass = VK_NULL_HANDLE;
  if (scaled.sampler != VK_NULL_HANDLE) vkDestroySampler(device, scaled.sampler, nullptr);
  if (scaled.render_pass != VK_NULL_HANDLE) vkDestroyRenderPass(device, scaled.render_pass, nullptr);
  scaled.sampler = VK_NULL_HANDLE;
  scaled.render_pass = VK_NULL_HANDLE;
  if (pipeline_layout != VK_NULL_HANDLE) vkDestroyPipelineLayout(device, pipeline_layout, nullptr);
  if (descriptor_pool != VK_NULL_HANDLE) vkDestroyDescriptorPool(device, descriptor_pool, nullptr);
  if (set_layout != VK_NULL_HANDLE) vkDestroyDescriptorSetLayout(device, set_layout, nullptr);
  if (shadow.sampler != VK_NULL_HANDLE) vkDestroySampler(device, shadow.sampler, nullptr);
  if (shadow.render_pass != VK_NULL_HANDLE) vkDestroyRenderPass(device, shadow.render_pass, nullptr);
  shadow.mesh_pipeline = shadow.particle_pipeline = background_pipeline = mesh_pipeline = particle_pipeline =
      ground.shadowed_pipeline = ground.plain_pipeline = line_pipeline = VK_NULL_HANDLE;
  pipeline_layout = VK_NULL_HANDLE;
  descriptor_pool = VK_NULL_HANDLE;
  set_layout = VK_NULL_HANDLE;
  shadow.sampler = VK_NULL_HANDLE;
  shadow.render_pass = VK_NULL_HANDLE;
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
    stages[s].pSpecializationInfo =
        s == 0 ? nullptr : (desc.encode_srgb ? &fragment_specialization : &no_encode_specialization);
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
    // No culling: imported meshes may wind either way, and impostor triangles and the grid are seen from both sides.
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

  frame.vertex_offset = 0;
  frame.index_offset = AlignUp(frame.vertex_offset + vertex_count * sizeof(MeshVertex));
  frame.instance_offset = AlignUp(frame.index_offset + index_count * sizeof(std::uint32_t));
  frame.particle_offset = AlignUp(frame.instance_offset + instance_count * sizeof(InstanceData));
  frame.line_offset = AlignUp(frame.particle_offset + particle_count * sizeof(ParticleData));
  frame.grid_offset = AlignUp(frame.line_offset + line_vertex_count * sizeof(LineVertex));
  const VkDeviceSize total = AlignUp(frame.grid_offset + kMaxGridVertices * sizeof(Point2));
  if (frame.data.size() < total) {
    meshes_unchanged = false;  // A new buffer holds no meshes yet.
    frame.data = HostBuffer(
        physical_device, device, std::max<VkDeviceSize>(total + total / 2, 1 << 16),
        VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_INDEX_BUFFER_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  }

  const auto [shaft, head] = WriteMeshGeometry(frame, scene, meshes_unchanged);
  WriteMeshInstances(frame, scene, casters);
  WriteArrows(frame, scene, shaft, head, casters);
  WriteParticles(frame, scene, casters);
  frame.particle_count = static_cast<std::uint32_t>(particle_count);
  WriteLines(frame, scene);
  frame.line_vertex_count = static_cast<std::uint32_t>(line_vertex_count);
  frame.grid_visible = scene.grid.visible && scene.grid.extent > 0.0f && scene.grid.spacing > 0.0f;
  frame.extent = extent;
}

void SceneRenderer::Impl::BindFrame(VkCommandBuffer command_buffer, const Frame& frame, VkExtent2D extent) const {
  SetViewportAndScissor(command_buffer, extent);
  vkCmdBindDescriptorSets(command_buffer, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline_layout, 0, 1, &frame.descriptor_set,
                          0, nullptr);
}

PipelineDesc SceneRenderer::Impl::TargetPipeline(ShaderId vertex, std::optional<ShaderId> fragment,
                                                 std::vector<VkVertexInputBindingDescription> bindings,
                                                 std::vector<VkVertexInputAttributeDescription> attributes) const {
  PipelineDesc desc{vertex, fragment, std::move(bindings), std::move(attributes)};
  desc.render_pass = target.render_pass;
  desc.samples = target.samples;
  return desc;
}

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

VkExtent2D SceneRenderer::SceneExtent(std::uint32_t frame_index) const {
  if (frame_index >= impl_->frames.size()) {
    throw std::invalid_argument("SceneRenderer::SceneExtent: frame " + std::to_string(frame_index) + " of " +
                                std::to_string(impl_->frames.size()));
  }
  return impl_->frames[frame_index].extent;
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
  RecordMeshes(command_buffer, frame, frame.mesh_draws);
  RecordParticles(command_buffer, frame);
  RecordGround(command_buffer, frame);
  RecordBackground(command_buffer);
  RecordMeshes(command_buffer, frame, frame.arrow_draws);
  RecordLines(command_buffer, frame);
}

}  // namespace ductile::render
