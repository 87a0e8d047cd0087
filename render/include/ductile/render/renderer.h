// The Vulkan renderer of a RenderScene (docs/architecture.md, "Snapshot and rendering"). SceneRenderer records the
// draws of one frame into a command buffer for a render pass it is given, so the same code draws into a Qt window (the
// studio viewport's swapchain pass on a GPU), into OffscreenRenderer's image for screenshots, videos and tests, and
// into frames composed on the host (the viewport on a CPU device; SceneRendererTarget::host_upscale).
//
// Passes of one frame, in order: shadow map (depth only, from the key light, fitted to the meshes, particles and
// arrows; 2048 texels on a side on a GPU; on a CPU device 0.8 times the scene image's longer side, at most 1024), the
// ground cache when the camera or the ground changed (the background gradient and the unshadowed ground, kept per frame
// slot; SceneRendererTarget::ground_cache), lit opaque meshes with the selection tint and the continua's opaque
// surfaces (RenderScene::surfaces), particles as sphere impostors
// drawn front to back (on a GPU with their exact depth; on a CPU device such as lavapipe at the depth of the plane
// touching each sphere, so that hidden ones are rejected before shading), the ground grid (mixed with the background
// where it fades, hiding what lies below it; receives shadows; copied from the cache and darkened where the shadow map
// says), the background (from the cache, where nothing else was drawn), arrows (lit), the translucent surfaces (water,
// blended over all of that), lines (unlit) and last the HUD
// (RenderScene::hud: text on a translucent panel in the top-left corner, drawn with Dear ImGui; one ImGui context per
// SceneRenderer, created by the first frame that shows the HUD).
//
// Render scale: below 1, everything but the HUD is drawn into an image of the frame slot with that fraction of the
// target's width and height, in a render pass of the renderer's own that is compatible with the target's, and
// scaled up to the target with a bilinear filter before the HUD (upscale.frag); on a CPU device the shadow map
// shrinks with it. At 0.5 a frame shades a quarter of the pixels: on lavapipe a 1280x720 frame of the slab below
// took 31 to 40 ms instead of 51 to 61 ms (ductile_render_bench, bench/results/*-render.md). A frame composed on the
// host (SceneRendererTarget::host_upscale) is scaled up and gets its HUD on the CPU instead (UpscaleOnHost).
//
// Cost: on lavapipe with one rasteriser thread, a 1280x720 frame of 5,400 particles (of which BuildRenderScene draws
// the 2,264 not hidden inside the slab), two meshes, shadows and the grid takes about 45 to 70 ms at 1 sample per
// pixel with the ground cache, depending on the VM's speed at the time, and about three times as long at 4
// (bench/render_bench.cpp, bench/results/*-render.md); a viewport on a CPU device should use 1 sample.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>

#include "ductile/render/image.h"
#include "ductile/render/render_scene.h"

namespace ductile::render {

/// Any failure of the Vulkan implementation (a call that returned an error names the call and the result), and
/// the absence of a usable Vulkan device.
class RenderError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The RenderError for a machine with no Vulkan implementation (ICD) or no device with a graphics queue: callers
/// that can do without pictures (tests, headless runs) tell it apart from a failure of a device that exists.
class NoVulkanDeviceError : public RenderError {
 public:
  using RenderError::RenderError;
};

/// The render pass SceneRenderer draws into and how its colour attachment stores colours.
struct SceneRendererTarget {
  /// Render pass whose subpass 0 has one colour attachment and one depth attachment; owned by the caller and must
  /// outlive the SceneRenderer (pipelines are built against it).
  VkRenderPass render_pass = VK_NULL_HANDLE;
  /// Samples of the colour and depth attachments of subpass 0. On a CPU device (lavapipe) 4 samples cost about three
  /// times as much as 1; an interactive viewport there should use 1 (particles then have aliased edges).
  VkSampleCountFlagBits samples = VK_SAMPLE_COUNT_1_BIT;
  /// True when the colour attachment has an _SRGB format, so the hardware encodes the shaders' linear output; false
  /// for a UNORM target, where the shaders encode sRGB themselves.
  bool srgb_target = true;
  /// Frames the caller records while earlier ones may still execute (the viewport: WindowSwapchain::kFramesInFlight);
  /// each has its own buffers and shadow map. At least 1.
  std::uint32_t frames_in_flight = 1;
  /// Formats of the target's colour and depth attachments. Needed for a render scale below 1 (PrepareFrame), which
  /// draws into images of these formats; VK_FORMAT_UNDEFINED (either) keeps every frame at scale 1.
  VkFormat color_format = VK_FORMAT_UNDEFINED;
  VkFormat depth_format = VK_FORMAT_UNDEFINED;
  /// Keep the unshadowed ground in an image per frame slot, drawn again only when the camera, the ground, the lights
  /// or the extent change, and copy it each frame: on a CPU device drawing the ground costs more than anything else
  /// in a frame of a few thousand particles. False draws it every frame (same picture; the renderer also does so where
  /// the device cannot render into and sample an R8G8B8A8_SRGB image).
  bool ground_cache = true;
  /// Compose frames on the host (one sample per pixel, a 4-byte UNORM or _SRGB colour format): the scene is drawn
  /// at the render scale (1 included) into an image of the renderer's, copied to host memory and scaled up there
  /// (ScaleBilinear), and the HUD is drawn into two images of the panel's size, over black and over white, whose
  /// difference gives its coverage, and blended over the scaled scene on the host (UpscaleOnHost). On a CPU device
  /// (lavapipe) a 1280x720 pass of the simplest shader costs about as much as drawing the whole scene at half size,
  /// and presenting a Vulkan image costs a copy of it through the window system, while the CPU filter takes about a
  /// millisecond and the frame can go to the window as it is (the studio's viewport paints it into its backing store).
  bool host_upscale = false;
  /// Draw particles at their spheres' exact depth on a CPU device too (as on a GPU), where by default they take the
  /// depth of the plane touching each sphere's nearest point, wrong by up to the radius at a sphere's rim but cheaper
  /// (hidden impostors are rejected before shading). For depth images read back (OffscreenRenderer's depth mode).
  bool exact_particle_depth = false;
};

/// Owns the pipelines, the shadow maps and the per-frame buffers (host-visible, reused, grown when a scene needs
/// more) for one VkDevice and one target render pass, and records a RenderScene's draws. Meshes are uploaded again
/// only when a scene's meshes differ (by content) from the previous frame's in the same slot, so a caller may rebuild
/// its RenderScene every frame without re-uploading unchanged geometry.
///
/// Per frame: PrepareFrame (outside any render pass: uploads the scene, records the shadow pass), then the caller
/// begins its render pass (clearing colour and depth to 1.0) and calls RecordDraws, then ends the pass. A frame
/// slot's buffers are rewritten by PrepareFrame, so the caller must know that slot's previous submission has
/// finished (it waited on that frame's fence). Not thread-safe: one thread records.
class SceneRenderer {
 public:
  /// Creates the pipelines. `physical_device` and `device` must outlive this object; the device must have the
  /// graphics queue the command buffers are submitted to. Throws RenderError.
  SceneRenderer(VkPhysicalDevice physical_device, VkDevice device, const SceneRendererTarget& target);
  ~SceneRenderer();
  SceneRenderer(const SceneRenderer&) = delete;
  SceneRenderer& operator=(const SceneRenderer&) = delete;

  /// Uploads `scene` into the buffers of frame slot `frame` (< frames_in_flight) and records the shadow pass into
  /// `command_buffer`, which must be recording and outside any render pass. `extent` is the size of the target
  /// [pixels]. `render_scale` in (0, 1]: below 1 (and where the target names its formats) the scene is drawn here
  /// into an image of round(scale · extent) pixels (at least 1) and RecordDraws scales it up; see the file comment.
  /// Throws std::invalid_argument for a render scale outside (0, 1] or an inconsistent scene (an instance naming a
  /// missing mesh, normals or colours whose count differs from the positions', an index past the vertices) and
  /// RenderError.
  void PrepareFrame(VkCommandBuffer command_buffer, std::uint32_t frame, const RenderScene& scene, VkExtent2D extent,
                    float render_scale = 1.0f);
  /// The size the scene of `frame` was drawn at by the last PrepareFrame [pixels]: its extent times the render scale
  /// in effect, or the extent itself.
  VkExtent2D SceneExtent(std::uint32_t frame) const;

  /// Records the draws of the scene last prepared for `frame` into the render pass that `command_buffer` is inside
  /// (subpass 0 of the target's render pass); sets the viewport and scissor to the whole extent. A frame composed on
  /// the host (UpscalesOnHost) has nothing to draw here.
  void RecordDraws(VkCommandBuffer command_buffer, std::uint32_t frame) const;

  /// Whether frames are composed on the host (SceneRendererTarget::host_upscale asked for it and the target allows
  /// it: one sample, a 4-byte colour format the device can draw into and filter).
  bool ComposesOnHost() const;
  /// Whether the last PrepareFrame of `frame` composes it on the host (SceneRendererTarget::host_upscale). Then the
  /// caller submits the command buffer that PrepareFrame recorded into, waits for it, and calls UpscaleOnHost.
  bool UpscalesOnHost(std::uint32_t frame) const;
  /// Composes the frame `frame`, which the device has finished drawing, into `destination` on the calling thread:
  /// the scene image scaled up to the target's extent (ScaleBilinear), then the HUD blended over it. `destination`:
  /// 4 · width · height bytes of the target's extent, rows top to bottom without padding, in the colour format's
  /// byte order (B, G, R, A for a B8G8R8A8 format; alpha 255). Throws std::invalid_argument when the frame is not
  /// UpscalesOnHost or `destination` has the wrong size.
  void UpscaleOnHost(std::uint32_t frame, std::span<std::uint8_t> destination);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Renders RenderScenes into an image in memory, with its own Vulkan instance and device: a discrete or integrated
/// GPU when there is one, else any device, Mesa's CPU device lavapipe included. Not thread-safe; one object per
/// thread.
class OffscreenRenderer {
 public:
  /// A renderer of `width` x `height` pixels (each 1 to 16384) with `samples` samples per pixel for anti-aliasing
  /// (1, 2, 4, 8, 16, 32 or 64; lowered to the most the device supports; 4, the default, suits screenshots, and 1
  /// frames drawn repeatedly on a CPU device, where 4 costs about three times as much). Throws std::invalid_argument
  /// for a bad size or sample count, NoVulkanDeviceError when there is no Vulkan implementation or device, RenderError
  /// when device setup fails.
  /// `ground_cache`: SceneRendererTarget::ground_cache. `cpu_viewport`: draw as the studio's viewport does on a CPU
  /// device, into UNORM images whose sRGB encoding the shaders do (B8G8R8A8 where the device can draw into and filter
  /// it, else R8G8B8A8: bgra()), with one sample per pixel frames composed on the host (SceneRendererTarget::
  /// host_upscale).
  /// `depth_readback`: also keep each frame's depth for RenderWithDepth; needs one sample per pixel (a multisampled
  /// depth image cannot be copied out) and not `cpu_viewport` (std::invalid_argument otherwise), and draws particles
  /// at their exact depth on a CPU device too (SceneRendererTarget::exact_particle_depth).
  static std::unique_ptr<OffscreenRenderer> Create(int width, int height, int samples = 4, bool ground_cache = true,
                                                   bool cpu_viewport = false, bool depth_readback = false);
  ~OffscreenRenderer();
  OffscreenRenderer(const OffscreenRenderer&) = delete;
  OffscreenRenderer& operator=(const OffscreenRenderer&) = delete;

  /// Draws `scene` and returns the frame (sRGB), the scene drawn at `render_scale` (SceneRenderer::PrepareFrame)
  /// and the HUD at full size. Blocks until the device has finished. Throws what SceneRenderer::PrepareFrame throws.
  Image Render(const RenderScene& scene, float render_scale = 1.0f);
  /// Draws `scene` as Render does into `pixels`: 4 · width · height bytes, rows top to bottom without padding, in the
  /// order B, G, R, A when bgra(), else R, G, B, A. Throws std::invalid_argument for a buffer of the wrong size and
  /// what Render throws.
  void RenderInto(const RenderScene& scene, float render_scale, std::span<std::uint8_t> pixels);
  /// Draws `scene` at render scale 1 as RenderInto does, and its depth into `depth`: width · height floats, rows top
  /// to bottom as the pixels, each the distance [m] along the camera's viewing axis (view-space z, not the range
  /// along the pixel's ray) to the nearest opaque thing drawn there: meshes, particles (their exact spheres), the
  /// continua's opaque surfaces and the ground grid's square; +infinity where there is none (the background; a
  /// translucent surface such as water writes no depth). Needs a renderer created with `depth_readback`. Throws
  /// std::invalid_argument for buffers of the wrong size or a renderer without depth, and what Render throws.
  void RenderWithDepth(const RenderScene& scene, std::span<std::uint8_t> pixels, std::span<float> depth);
  /// Makes later frames `width` x `height` pixels (each 1 to 16384), keeping the device and the pipelines (a window
  /// that is resized). Throws std::invalid_argument for a bad size, RenderError for one beyond the device's limit or
  /// a failed allocation; after either the renderer keeps its last size and still draws.
  void Resize(int width, int height);

  /// The Vulkan device's name, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)".
  std::string DeviceName() const;
  int width() const;    ///< [pixels].
  int height() const;   ///< [pixels].
  int samples() const;  ///< Samples per pixel in use, after lowering to what the device supports.
  /// Whether RenderInto's pixels are B, G, R, A (the CPU viewport's mode where the device allows it).
  bool bgra() const;
  /// Whether the device is a CPU implementation such as lavapipe.
  bool cpu_device() const;
  /// Whether it was created with `depth_readback`.
  bool reads_depth() const;

 private:
  struct Impl;
  explicit OffscreenRenderer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ductile::render
