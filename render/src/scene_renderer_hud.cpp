// The HUD: RenderScene::hud's text lines on a translucent panel in the top-left corner, drawn by HudOverlay (Dear
// ImGui) over the frame at the target's full size. For a frame composed on the host the panel is drawn twice into
// small images of its own pass, over black and over white, copied out, and blended over the scaled-up scene on the
// CPU (CompositeHud); a slot keeps what it read back while the HUD's text and the target's size stay the same.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "scene_renderer_impl.h"

namespace ductile::render {

void SceneRenderer::Impl::CreateHudPass() {
  // The HUD's pass for frames composed on the host: the panel is drawn twice (over black and over white) into
  // small images that are copied out after it.
  if (!host_upscale()) return;
  // Written after the previous frame's copy out of the same image; the copy after the writes.
  hud_pass = CreateColorRenderPass(device, target.color_format, VK_ATTACHMENT_LOAD_OP_CLEAR,
                                   VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_TRANSFER_BIT,
                                   VK_ACCESS_TRANSFER_READ_BIT, "vkCreateRenderPass (HUD)");
}

bool SceneRenderer::Impl::PrepareHud(VkCommandBuffer command_buffer, Frame& frame, std::uint32_t frame_index,
                                     const Hud& scene_hud, VkExtent2D target_extent, bool host_composed) {
  // The HUD is laid out after everything that can reject the scene, as its first frame records the font upload.
  if (scene_hud.visible && !hud) {
    if (host_composed) {
      // Into the HUD's own pass, twice a frame (over black and over white).
      SceneRendererTarget hud_target = target;
      hud_target.render_pass = hud_pass;
      hud = std::make_unique<HudOverlay>(physical_device, device, hud_target, 2);
    } else {
      hud = std::make_unique<HudOverlay>(physical_device, device, target);
    }
  }
  // A frame composed on the host keeps the HUD its slot read back last while the HUD's text and the target's size
  // stay the same: drawing the panel twice costs lavapipe about 2 ms a frame.
  const bool hud_kept = host_composed && frame.hud_drawn && frame.hud_drawn->visible == scene_hud.visible &&
                        frame.hud_drawn->lines == scene_hud.lines &&
                        frame.hud_target_extent.width == target_extent.width &&
                        frame.hud_target_extent.height == target_extent.height;
  if (!hud_kept) {
    // Forgotten before anything that may throw, so that a failed frame is never taken for a kept HUD later.
    frame.hud_drawn.reset();
    if (hud) hud->Prepare(command_buffer, frame_index, scene_hud, target_extent);
  }
  return hud_kept;
}

void SceneRenderer::Impl::ResizeHudImages(Frame& frame, VkExtent2D extent) {
  for (VkFramebuffer* hud_framebuffer : {&frame.hud_black_framebuffer, &frame.hud_white_framebuffer}) {
    if (*hud_framebuffer != VK_NULL_HANDLE) vkDestroyFramebuffer(device, *hud_framebuffer, nullptr);
    *hud_framebuffer = VK_NULL_HANDLE;
  }
  frame.hud_capacity = {};
  constexpr VkImageUsageFlags kUsage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
  frame.hud_black = GpuImage(physical_device, device, extent, target.color_format, VK_SAMPLE_COUNT_1_BIT, kUsage,
                             VK_IMAGE_ASPECT_COLOR_BIT);
  frame.hud_white = GpuImage(physical_device, device, extent, target.color_format, VK_SAMPLE_COUNT_1_BIT, kUsage,
                             VK_IMAGE_ASPECT_COLOR_BIT);
  const VkImageView black = frame.hud_black.view(), white = frame.hud_white.view();
  frame.hud_black_framebuffer = CreateFramebuffer(device, hud_pass, {&black, 1}, extent, "vkCreateFramebuffer (HUD)");
  frame.hud_white_framebuffer = CreateFramebuffer(device, hud_pass, {&white, 1}, extent, "vkCreateFramebuffer (HUD)");
  frame.hud_readback =
      HostBuffer(physical_device, device, static_cast<VkDeviceSize>(extent.width) * extent.height * 2 * 4,
                 VK_BUFFER_USAGE_TRANSFER_DST_BIT);
  frame.hud_capacity = extent;
}

void SceneRenderer::Impl::RecordHudReadback(VkCommandBuffer command_buffer, Frame& frame, std::uint32_t frame_index) {
  const VkExtent2D extent = hud ? hud->PanelExtent(frame_index) : VkExtent2D{};
  frame.hud_extent = {};  // set once the images hold it, so that a failed resize leaves no extent beyond them
  if (extent.width == 0 || extent.height == 0) return;
  if (extent.width > frame.hud_capacity.width || extent.height > frame.hud_capacity.height) {
    // Grown with room, as the panel follows its text from frame to frame.
    ResizeHudImages(frame, {std::max(extent.width + extent.width / 4, frame.hud_capacity.width),
                            std::max(extent.height + extent.height / 4, frame.hud_capacity.height)});
  }
  frame.hud_extent = extent;
  const VkDeviceSize bytes = 4 * static_cast<VkDeviceSize>(extent.width) * extent.height;
  for (int white = 0; white < 2; ++white) {
    VkClearValue clear{};
    const float level = white != 0 ? 1.0f : 0.0f;
    clear.color = {{level, level, level, 1.0f}};
    BeginRenderPass(command_buffer, hud_pass, white != 0 ? frame.hud_white_framebuffer : frame.hud_black_framebuffer,
                    extent, {&clear, 1});
    hud->Record(command_buffer, frame_index, extent);
    vkCmdEndRenderPass(command_buffer);
    VkBufferImageCopy region{};
    region.bufferOffset = white != 0 ? bytes : 0;
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {extent.width, extent.height, 1};
    vkCmdCopyImageToBuffer(command_buffer, white != 0 ? frame.hud_white.image() : frame.hud_black.image(),
                           VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, frame.hud_readback.buffer(), 1, &region);
  }
  RecordHostReadBarrier(command_buffer, frame.hud_readback.buffer());
}

// The HUD's blend, done on the host. ImGui blends each of its draws over what is there, c' = s·a + c·(1 − a), in the
// target's stored (encoded) values, so the panel as a whole maps a pixel c to P + Q·c with P, Q per pixel and channel.
// Drawn over black (c = 0) it gives B = P, over white (c = 1) W = P + Q: the panel over the scene's pixel c is
// B + (W − B)·c, which is what drawing it over the scene would store, up to the rounding of B and W to 8 bits
// (within a level).
void SceneRenderer::Impl::CompositeHud(const Frame& frame, std::span<std::uint8_t> destination) const {
  const VkExtent2D extent = frame.hud_extent;
  if (extent.width == 0 || extent.height == 0) return;
  const auto* black = reinterpret_cast<const std::uint8_t*>(frame.hud_readback.data());
  const std::uint8_t* white = black + 4 * static_cast<std::size_t>(extent.width) * extent.height;
  const std::size_t row_bytes = 4 * static_cast<std::size_t>(frame.target_extent.width);
  for (std::uint32_t y = 0; y < extent.height; ++y) {
    std::uint8_t* out = destination.data() + y * row_bytes;
    const std::size_t row = 4 * static_cast<std::size_t>(y) * extent.width;
    for (std::size_t i = 0; i < 4 * static_cast<std::size_t>(extent.width); ++i) {
      if (i % 4 == 3) continue;  // alpha stays opaque
      const int b = black[row + i], w = white[row + i];
      // b + (w − b)·c / 255, rounded; w ≥ b up to rounding, so a negative difference is clamped.
      out[i] = static_cast<std::uint8_t>(b + (std::max(w - b, 0) * out[i] + 127) / 255);
    }
  }
}

}  // namespace ductile::render
