// Composition: the background gradient, drawn last at the far plane so that only pixels nothing covers shade it;
// the scene image of a render scale below 1 (an image of the frame slot that fraction of the target's size, drawn in
// a render pass of the renderer's own compatible with the target's) and its bilinear upscale to the target
// (upscale.vert, upscale.frag); and for a frame composed on the host, the copy of the scene image out to host memory
// and its upscale there (ScaleBilinear).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <span>

#include "ductile/render/image.h"
#include "scene_renderer_impl.h"

namespace ductile::render {

void SceneRenderer::Impl::CreateBackgroundPipeline() {
  // The background comes after everything opaque and fills what is left at the far plane, so that only pixels
  // nothing covers shade it.
  PipelineDesc background = TargetPipeline(ShaderId::kBackgroundVert, ShaderId::kBackgroundFrag);
  background.depth_test = true;
  background.depth_write = false;
  background_pipeline = CreatePipeline(background);
}

void SceneRenderer::Impl::CreateScaledPass() {
  // The render scale's pass: colour and depth as the target's (cleared; the colour, or its resolve, left for the
  // upscale to sample), where the colour format can be drawn into, sampled and filtered.
  const VkFormatFeatureFlags scaled_features = VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT |
                                               VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT |
                                               VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT;
  if (target.color_format == VK_FORMAT_UNDEFINED || target.depth_format == VK_FORMAT_UNDEFINED ||
      !SupportsOptimal(physical_device, target.color_format, scaled_features)) {
    return;
  }
  // Writes after the previous frame's upscale read the same image; this frame's upscale after the writes.
  const std::array<VkSubpassDependency, 2> scaled_dependencies = ReadBetweenPassesDependencies(
      VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT,
      VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT,
      VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
      VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT);
  scaled.render_pass = CreateColorDepthRenderPass(device, target.color_format, target.depth_format, target.samples,
                                                  VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, scaled_dependencies,
                                                  "vkCreateRenderPass (scaled)");
  scaled.sampler = CreateClampToEdgeSampler(device, VK_FILTER_LINEAR, "vkCreateSampler (scaled)");

  PipelineDesc upscale = TargetPipeline(ShaderId::kUpscaleVert, ShaderId::kUpscaleFrag);
  upscale.depth_test = false;
  upscale.depth_write = false;
  upscale.encode_srgb = false;
  scaled.upscale_pipeline = CreatePipeline(upscale);
}

void SceneRenderer::Impl::ResizeSceneImage(Frame& frame, VkExtent2D extent) {
  if (frame.scaled_framebuffer != VK_NULL_HANDLE) {
    vkDestroyFramebuffer(device, frame.scaled_framebuffer, nullptr);
    frame.scaled_framebuffer = VK_NULL_HANDLE;
  }
  frame.scaled_extent = {};
  const bool multisampled = target.samples != VK_SAMPLE_COUNT_1_BIT;
  frame.scaled_color = GpuImage(physical_device, device, extent, target.color_format, target.samples,
                                VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
                                    (multisampled ? VK_IMAGE_USAGE_TRANSIENT_ATTACHMENT_BIT
                                                  : VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT),
                                VK_IMAGE_ASPECT_COLOR_BIT);
  frame.scaled_depth = GpuImage(physical_device, device, extent, target.depth_format, target.samples,
                                VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSIENT_ATTACHMENT_BIT,
                                VK_IMAGE_ASPECT_DEPTH_BIT);
  if (multisampled) {
    frame.scaled_resolve =
        GpuImage(physical_device, device, extent, target.color_format, VK_SAMPLE_COUNT_1_BIT,
                 VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT, VK_IMAGE_ASPECT_COLOR_BIT);
  } else {
    frame.scaled_resolve = GpuImage();
  }
  const std::array<VkImageView, 3> views{frame.scaled_color.view(), frame.scaled_depth.view(),
                                         multisampled ? frame.scaled_resolve.view() : VK_NULL_HANDLE};
  frame.scaled_framebuffer = CreateFramebuffer(device, scaled.render_pass, std::span(views).first(multisampled ? 3 : 2),
                                               extent, "vkCreateFramebuffer (scaled)");
  WriteImageDescriptor(device, frame.descriptor_set, 4, scaled.sampler, multisampled ? views[2] : views[0],
                       VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
  frame.scaled_extent = extent;
}

VkExtent2D SceneRenderer::Impl::SizeSceneImage(Frame& frame, VkExtent2D target_extent, float render_scale) {
  const auto scale = [render_scale](std::uint32_t pixels) {
    return std::max<std::uint32_t>(1,
                                   static_cast<std::uint32_t>(std::lround(render_scale * static_cast<float>(pixels))));
  };
  const VkExtent2D extent{scale(target_extent.width), scale(target_extent.height)};
  if (frame.scaled_extent.width != extent.width || frame.scaled_extent.height != extent.height) {
    ResizeSceneImage(frame, extent);
  }
  return extent;
}

void SceneRenderer::Impl::RecordBackground(VkCommandBuffer command_buffer) const {
  vkCmdBindPipeline(command_buffer, VK_PIPELINE_BIND_POINT_GRAPHICS, background_pipeline);
  vkCmdDraw(command_buffer, 3, 1, 0, 0);
}

void SceneRenderer::Impl::RecordScaledScene(VkCommandBuffer command_buffer, const Frame& frame,
                                            const Rgba& background) const {
  std::array<VkClearValue, 2> clears{};
  clears[0].color = {{background[0], background[1], background[2], 1.0f}};
  clears[1].depthStencil = {1.0f, 0};
  BeginRenderPass(command_buffer, scaled.render_pass, frame.scaled_framebuffer, frame.extent, clears);
  RecordScene(command_buffer, frame);
  vkCmdEndRenderPass(command_buffer);
}

void SceneRenderer::Impl::RecordUpscale(VkCommandBuffer command_buffer, const Frame& frame) const {
  BindFrame(command_buffer, frame, frame.target_extent);
  vkCmdBindPipeline(command_buffer, VK_PIPELINE_BIND_POINT_GRAPHICS, scaled.upscale_pipeline);
  vkCmdDraw(command_buffer, 6, 1, 0, 0);  // upscale.vert's rectangle
}

void SceneRenderer::Impl::RecordSceneReadback(VkCommandBuffer command_buffer, Frame& frame) {
  const VkDeviceSize bytes = 4 * static_cast<VkDeviceSize>(frame.extent.width) * frame.extent.height;
  if (frame.scene_readback.size() < bytes) {
    frame.scene_readback = HostBuffer(physical_device, device, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
  }
  // The scaled pass left the image for fragment shaders to read (its dependency to the fragment shader stage makes
  // the writes and the layout change available there); the copy reads it after them.
  VkImageMemoryBarrier to_source{};
  to_source.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER;
  to_source.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
  to_source.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
  to_source.oldLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
  to_source.newLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
  to_source.srcQueueFamilyIndex = to_source.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  to_source.image = frame.scaled_color.image();
  to_source.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  vkCmdPipelineBarrier(command_buffer,
                       VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
                       VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0, nullptr, 1, &to_source);
  VkBufferImageCopy region{};
  region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
  region.imageExtent = {frame.extent.width, frame.extent.height, 1};
  vkCmdCopyImageToBuffer(command_buffer, frame.scaled_color.image(), VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                         frame.scene_readback.buffer(), 1, &region);
  RecordHostReadBarrier(command_buffer, frame.scene_readback.buffer());
}

void SceneRenderer::Impl::RecordHostReadback(VkCommandBuffer command_buffer, Frame& frame, std::uint32_t frame_index,
                                             const Hud& scene_hud, bool hud_kept) {
  RecordSceneReadback(command_buffer, frame);
  if (hud_kept) return;
  RecordHudReadback(command_buffer, frame, frame_index);
  frame.hud_drawn = scene_hud;
  frame.hud_target_extent = frame.target_extent;
}

void SceneRenderer::Impl::ScaleSceneOnHost(const Frame& frame, std::span<std::uint8_t> destination) const {
  const VkExtent2D from = frame.extent, to = frame.target_extent;
  const std::size_t from_bytes = 4 * static_cast<std::size_t>(from.width) * from.height;
  const std::span<const std::uint8_t> scene(reinterpret_cast<const std::uint8_t*>(frame.scene_readback.data()),
                                            from_bytes);
  if (from.width == to.width && from.height == to.height) {
    std::copy(scene.begin(), scene.end(), destination.begin());
  } else {
    ScaleBilinear(scene, static_cast<int>(from.width), static_cast<int>(from.height), destination,
                  static_cast<int>(to.width), static_cast<int>(to.height));
  }
}

}  // namespace ductile::render
