// HudOverlay: the RenderScene's Hud (a few text lines on a translucent dark panel in the top-left corner) drawn with
// Dear ImGui's Vulkan backend into SceneRenderer's target render pass, as the frame's last draws, or (for a frame
// composed on the host) into the small images SceneRenderer composites on the host, once over black and once over
// white.
//
// Each HudOverlay owns one ImGui context, so several renderers in one process (tests, a viewport beside an offscreen
// renderer) keep their own fonts and windows. ImGui's current context is a process-wide variable, so every use of a
// context holds a process-wide lock and restores the previous current context afterwards. The HUD is display-only:
// ImGui is given no input and writes no imgui.ini.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <optional>

#include "ductile/render/render_scene.h"
#include "ductile/render/renderer.h"

struct ImGuiContext;

namespace ductile::render {

/// The HUD of one SceneRenderer. Not thread-safe (one thread records, like SceneRenderer); different objects may be
/// used from different threads.
class HudOverlay {
 public:
  /// Creates the ImGui context and the backend's pipeline for `target` (its render pass, samples and colour
  /// encoding; frames_in_flight). `draws_per_frame`: how many times Record is called per frame (each call takes
  /// the backend's next vertex buffer, which must not be one a frame still in flight uses). `physical_device` and
  /// `device` must outlive this object. Throws RenderError.
  HudOverlay(VkPhysicalDevice physical_device, VkDevice device, const SceneRendererTarget& target,
             std::uint32_t draws_per_frame = 1);
  /// The device must be idle (no submitted frame still using the font image or the vertex buffers).
  ~HudOverlay();
  HudOverlay(const HudOverlay&) = delete;
  HudOverlay& operator=(const HudOverlay&) = delete;

  /// Lays out `hud` for frame slot `frame` of a target of `extent` pixels; outside any render pass. The first call
  /// records the font atlas upload into `command_buffer`. Draws nothing for an invisible Hud or one without lines.
  /// The caller must know that slot's previous submission has finished (as for SceneRenderer::PrepareFrame).
  /// Throws RenderError.
  void Prepare(VkCommandBuffer command_buffer, std::uint32_t frame, const Hud& hud, VkExtent2D extent);

  /// The rectangle from the target's top-left corner to the far corner of the panel laid out by the last Prepare for
  /// `frame` [pixels] (the margin included, at most the extent it was laid out for); {0, 0} when nothing was.
  VkExtent2D PanelExtent(std::uint32_t frame) const;

  /// Records the panel laid out by the last Prepare, when that was for `frame`, into the render pass
  /// `command_buffer` is inside; leaves the viewport and scissor covering `extent`. Throws RenderError.
  void Record(VkCommandBuffer command_buffer, std::uint32_t frame, VkExtent2D extent);

 private:
  VkDevice device_;
  VkDescriptorPool descriptor_pool_ = VK_NULL_HANDLE;
  ImGuiContext* context_ = nullptr;
  bool font_uploaded_ = false;
  std::optional<std::uint32_t> font_upload_frame_;  // Slot whose submission holds the font's staging buffer.
  std::optional<std::uint32_t> laid_out_frame_;     // Slot whose panel the context's draw data holds.
  VkExtent2D panel_extent_{};                       // PanelExtent of laid_out_frame_.
};

}  // namespace ductile::render
