// SceneRenderer's Vulkan objects that do not belong to one pass: the descriptor set layout every pipeline shares
// (binding 0 the frame's uniforms, 1 the shadow map, 2 the particles, 3 the ground cache, 4 the scene image), the
// frame slots, the pipelines' common state, and the creation and destruction of everything in order.
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

#include "scene_renderer_impl.h"

namespace ductile::render {
namespace {

// Filled primitives, back faces culled where `desc` asks, depth-biased where it asks (the shadow map's casters).
VkPipelineRasterizationStateCreateInfo RasterizationState(const PipelineDesc& desc) {
  VkPipelineRasterizationStateCreateInfo raster{};
  raster.sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO;
  raster.polygonMode = VK_POLYGON_MODE_FILL;
  raster.cullMode = desc.cull_back ? VK_CULL_MODE_BACK_BIT : VK_CULL_MODE_NONE;
  raster.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE;
  raster.lineWidth = 1.0f;
  // Slope-scaled bias for the shadow map; the receivers also move their lookup along the normal.
  raster.depthBiasEnable = desc.depth_bias ? VK_TRUE : VK_FALSE;
  raster.depthBiasConstantFactor = 1.0f;
  raster.depthBiasSlopeFactor = 1.5f;
  return raster;
}

// `desc`'s samples, with alpha to coverage where it asks.
VkPipelineMultisampleStateCreateInfo MultisampleState(const PipelineDesc& desc) {
  VkPipelineMultisampleStateCreateInfo multisample{};
  multisample.sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO;
  multisample.rasterizationSamples = desc.samples;
  multisample.alphaToCoverageEnable = desc.alpha_to_coverage ? VK_TRUE : VK_FALSE;
  return multisample;
}

// The depth test and write `desc` asks for, passing where the depth is less than or equal to the stored one.
VkPipelineDepthStencilStateCreateInfo DepthStencilState(const PipelineDesc& desc) {
  VkPipelineDepthStencilStateCreateInfo depth{};
  depth.sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO;
  depth.depthTestEnable = desc.depth_test ? VK_TRUE : VK_FALSE;
  depth.depthWriteEnable = desc.depth_write ? VK_TRUE : VK_FALSE;
  depth.depthCompareOp = VK_COMPARE_OP_LESS_OR_EQUAL;
  return depth;
}

// Writes `desc`'s colour channels, blended over what is there where it asks.
VkPipelineColorBlendAttachmentState BlendAttachment(const PipelineDesc& desc) {
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
  return blend_attachment;
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

  // The passes' objects in the order a frame uses them; the pipelines need the layouts, the frame slots the shadow
  // pass.
  CreateShadowPass();
  CreateDescriptorLayouts();
  CreateFrames();
  CreateShadowPipelines();
  CreateBackgroundPipeline();
  CreateMeshPipeline();
  CreateSurfacePipelines();
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
       {shadow.mesh_pipeline, shadow.particle_pipeline, shadow.surface_pipeline, background_pipeline, mesh_pipeline,
        surface_pipeline, water_surface_pipeline, particle_pipeline, ground.shadowed_pipeline, ground.plain_pipeline,
        line_pipeline, ground.cache_pipeline, ground.copy_pipeline, ground.shadow_pipeline, scaled.upscale_pipeline}) {
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

void SceneRenderer::Impl::CreateDescriptorLayouts() {
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
}

void SceneRenderer::Impl::CreateFrames() {
  frames.resize(target.frames_in_flight);
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
    result = CreateGraphicsPipeline(desc, std::span(stages).first(stage_count), pipeline);
    failed_call = "vkCreateGraphicsPipelines";
  }
  for (VkShaderModule module : modules) {
    if (module != VK_NULL_HANDLE) vkDestroyShaderModule(device, module, nullptr);
  }
  Check(result, failed_call);
  return pipeline;
}

VkResult SceneRenderer::Impl::CreateGraphicsPipeline(const PipelineDesc& desc,
                                                     std::span<const VkPipelineShaderStageCreateInfo> stages,
                                                     VkPipeline& pipeline) const {
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
  // No culling but for closed surfaces: imported meshes may wind either way, and impostor triangles and the grid are
  // seen from both sides.
  const VkPipelineRasterizationStateCreateInfo raster = RasterizationState(desc);
  const VkPipelineMultisampleStateCreateInfo multisample = MultisampleState(desc);
  const VkPipelineDepthStencilStateCreateInfo depth = DepthStencilState(desc);
  const VkPipelineColorBlendAttachmentState blend_attachment = BlendAttachment(desc);
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
  info.stageCount = static_cast<std::uint32_t>(stages.size());
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
  return vkCreateGraphicsPipelines(device, VK_NULL_HANDLE, 1, &info, nullptr, &pipeline);
}

PipelineDesc SceneRenderer::Impl::TargetPipeline(ShaderId vertex, std::optional<ShaderId> fragment,
                                                 std::vector<VkVertexInputBindingDescription> bindings,
                                                 std::vector<VkVertexInputAttributeDescription> attributes) const {
  PipelineDesc desc{vertex, fragment, std::move(bindings), std::move(attributes)};
  desc.render_pass = target.render_pass;
  desc.samples = target.samples;
  return desc;
}

}  // namespace ductile::render
