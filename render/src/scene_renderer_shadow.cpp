// The shadow map of the key light: its size, the orthographic view that fits it to the shadow casters, and the
// depth-only pass that draws the meshes, the arrows, the continua's surfaces and the particles into it (each particle
// one disc-trimmed triangle, particle_shadow.vert). The main pass reads it through a comparison sampler with a 2x2
// gather.
#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>

#include "scene_renderer_impl.h"

namespace ductile::render {
namespace {

// Shadow map side on a CPU device for a scene image of `extent`: about 0.8 texels per pixel of its longer side, in
// steps of 64, from 256 to kCpuShadowMapSize (1024 at 1280x720, 512 at 640x360): the map's texels then stay about
// the size of the image's pixels on what the camera frames, whatever the render scale.
std::uint32_t CpuShadowMapSize(VkExtent2D extent) {
  const std::uint32_t side = std::max(extent.width, extent.height);
  return std::clamp<std::uint32_t>((side * 4 / 5 + 63) / 64 * 64, 256, kCpuShadowMapSize);
}

}  // namespace

// The LightFit of the key light travelling along unit `direction` that just contains `casters`, for a shadow map
// `map_size` texels on a side.
LightFit FitLight(const Vec3& direction, const Bounds& casters, std::uint32_t map_size) {
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
  const float left = in_view.min[0] - margin, right = in_view.max[0] + margin;
  const float bottom = in_view.min[1] - margin, top = in_view.max[1] + margin;
  const Mat4 projection = Orthographic(left, right, bottom, top, -in_view.max[2] - margin, -in_view.min[2] + margin);
  // The view's rows are the light's right and up axes in the world; view-space (x, y, 0) is eye + x right + y up.
  const Vec3 light_eye = Subtract(center, Scale(direction, 2.0f * radius));
  const Vec3 light_right{view[0], view[4], view[8]};
  const Vec3 light_up{view[1], view[5], view[9]};
  auto corner = [&](float x, float y) { return Add(light_eye, Add(Scale(light_right, x), Scale(light_up, y))); };
  return {Multiply(projection, view),
          width / static_cast<float>(map_size),
          {corner(left, bottom), corner(right, bottom), corner(right, top), corner(left, top)}};
}

void SceneRenderer::Impl::CreateShadowPass() {
  // A shadow map format the device renders and samples. The shaders gather four comparisons and filter them
  // themselves, so the format needs no linear filtering.
  const std::optional<VkFormat> found_shadow_format = FindDepthFormat(
      physical_device, VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT);
  if (!found_shadow_format) throw RenderError("SceneRenderer: the device has no depth format it can sample");
  shadow.format = *found_shadow_format;

  // Shadow pass: one depth attachment, cleared, left readable by the fragment shaders of the main pass. The
  // dependencies order this frame's shadow writes after the previous frame's reads of the same map, and the
  // main pass's reads after these writes.
  const std::array<VkSubpassDependency, 2> dependencies = ReadBetweenPassesDependencies(
      VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT,
      VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT,
      VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
      VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT, VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT);
  shadow.render_pass = CreateDepthRenderPass(device, shadow.format, VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL,
                                             dependencies, "vkCreateRenderPass (shadow)");

  // Hardware depth comparison, gathered 2x2 at a time. Outside the map (the shader never samples there) the border
  // reads as lit.
  shadow.sampler = CreateDepthCompareSampler(device, "vkCreateSampler");
}

void SceneRenderer::Impl::CreateShadowPipelines() {
  PipelineDesc shadow_mesh{ShaderId::kShadowVert, std::nullopt, MeshBindings(), MeshAttributes()};
  shadow_mesh.depth_bias = true;
  shadow_mesh.has_color = false;
  shadow_mesh.render_pass = shadow.render_pass;
  shadow.mesh_pipeline = CreatePipeline(shadow_mesh);

  // Particles read their data from the storage buffer (binding 2), so their pipelines have no vertex input.
  PipelineDesc shadow_particle{ShaderId::kParticleShadowVert, ShaderId::kParticleShadowFrag, {}, {}};
  shadow_particle.depth_bias = true;
  shadow_particle.has_color = false;
  shadow_particle.render_pass = shadow.render_pass;
  shadow.particle_pipeline = CreatePipeline(shadow_particle);
}

void SceneRenderer::Impl::ResizeShadowMap(Frame& frame, std::uint32_t size) {
  if (frame.shadow_framebuffer != VK_NULL_HANDLE) {
    vkDestroyFramebuffer(device, frame.shadow_framebuffer, nullptr);
    frame.shadow_framebuffer = VK_NULL_HANDLE;
  }
  frame.shadow_map_size = 0;
  frame.shadow_map =
      GpuImage(physical_device, device, {size, size}, shadow.format, VK_SAMPLE_COUNT_1_BIT,
               VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT, VK_IMAGE_ASPECT_DEPTH_BIT);
  const VkImageView view = frame.shadow_map.view();
  frame.shadow_framebuffer =
      CreateFramebuffer(device, shadow.render_pass, {&view, 1}, {size, size}, "vkCreateFramebuffer (shadow)");
  constexpr VkImageLayout kLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL;
  WriteImageDescriptor(device, frame.descriptor_set, 1, shadow.sampler, view, kLayout);
  if (frame.ground_cache_framebuffer == VK_NULL_HANDLE)
    WriteImageDescriptor(device, frame.descriptor_set, 3, shadow.sampler, view, kLayout);
  if (frame.scaled_framebuffer == VK_NULL_HANDLE)
    WriteImageDescriptor(device, frame.descriptor_set, 4, shadow.sampler, view, kLayout);
  frame.shadow_map_size = size;
}

void SceneRenderer::Impl::SizeShadowMap(Frame& frame, VkExtent2D extent) {
  if (cpu_device) {
    const std::uint32_t map_size = CpuShadowMapSize(extent);
    if (map_size != frame.shadow_map_size) ResizeShadowMap(frame, map_size);
  }
}

void SceneRenderer::Impl::RecordShadowPass(VkCommandBuffer command_buffer, const Frame& frame, bool shadows) const {
  // The shadow pass runs even without casters: it clears the map and leaves it in the layout the main pass reads.
  VkClearValue clear{};
  clear.depthStencil = {1.0f, 0};
  const std::uint32_t map_size = frame.shadow_map_size;
  BeginRenderPass(command_buffer, shadow.render_pass, frame.shadow_framebuffer, {map_size, map_size}, {&clear, 1});
  if (shadows) {
    BindFrame(command_buffer, frame, {map_size, map_size});
    if (!frame.mesh_draws.empty() || !frame.arrow_draws.empty()) {
      vkCmdBindPipeline(command_buffer, VK_PIPELINE_BIND_POINT_GRAPHICS, shadow.mesh_pipeline);
      DrawMeshes(command_buffer, frame, frame.mesh_draws);
      DrawMeshes(command_buffer, frame, frame.arrow_draws);
    }
    if (!frame.surface_draws.empty() || !frame.translucent_surface_draws.empty()) {
      vkCmdBindPipeline(command_buffer, VK_PIPELINE_BIND_POINT_GRAPHICS, shadow.surface_pipeline);
      DrawSurfaces(command_buffer, frame, frame.surface_draws);
      DrawSurfaces(command_buffer, frame, frame.translucent_surface_draws);
    }
    if (frame.particle_count > 0) {
      vkCmdBindPipeline(command_buffer, VK_PIPELINE_BIND_POINT_GRAPHICS, shadow.particle_pipeline);
      vkCmdDraw(command_buffer, kParticleVertices * frame.particle_count, 1, 0, 0);
    }
  }
  vkCmdEndRenderPass(command_buffer);
}

}  // namespace ductile::render
