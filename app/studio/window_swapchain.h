// The viewport's Vulkan device, swapchain and frame pacing for a QWindow with a Vulkan surface (on a GPU: on a CPU
// Vulkan device the viewport composes its frames on the host instead, viewport.h): what QVulkanWindow did for it,
// kept by the studio so that the viewport owns its device and frames in flight.
#pragma once

#include <vulkan/vulkan.h>

#include <QImage>
#include <QSize>
#include <array>
#include <span>
#include <vector>

#include "ductile/render/vulkan_util.h"

class QVulkanInstance;
class QWindow;

namespace ductile::studio {

class WindowSwapchain {
 public:
  static constexpr std::uint32_t kFramesInFlight = 2;

  /// Creates the device on the most preferred physical device (render::DevicesByPreference) that has a queue that
  /// draws and presents to `window`'s surface; the swapchain follows on the first BeginFrame. Colour formats in order
  /// of preference: `formats_wanted`, else the surface's first. `window` must have its platform surface and outlive
  /// this object. Throws std::runtime_error naming the failed step.
  WindowSwapchain(QVulkanInstance* instance, QWindow* window, std::span<const VkFormat> formats_wanted);
  ~WindowSwapchain();
  WindowSwapchain(const WindowSwapchain&) = delete;
  WindowSwapchain& operator=(const WindowSwapchain&) = delete;

  VkPhysicalDevice physical_device() const { return physical_device_; }
  VkDevice device() const { return device_; }
  const VkPhysicalDeviceProperties& properties() const { return properties_; }
  bool cpu_device() const { return properties_.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU; }
  VkFormat color_format() const { return color_format_; }
  VkFormat depth_format() const { return depth_format_; }
  /// Colour and depth cleared, the colour presented afterwards: the pass the scene's pipelines are built against.
  VkRenderPass clear_pass() const { return clear_pass_; }
  /// The swapchain's size [pixels]; empty before the first frame or while the window has no area.
  QSize image_size() const { return {static_cast<int>(extent_.width), static_cast<int>(extent_.height)}; }

  /// A frame being recorded: its slot (< kFramesInFlight), the swapchain image and its framebuffer (for both
  /// passes), and two command buffers, both begun: `prepare` (submitted first) and `draw`.
  struct Frame {
    std::uint32_t slot = 0;
    std::uint32_t image_index = 0;
    VkImage image = VK_NULL_HANDLE;
    VkFramebuffer framebuffer = VK_NULL_HANDLE;
    VkExtent2D extent{};
    VkCommandBuffer prepare = VK_NULL_HANDLE;
    VkCommandBuffer draw = VK_NULL_HANDLE;
  };
  /// Waits until the next slot's last frame is done, (re)creates the swapchain when the window's size changed or
  /// the last present found it out of date, and acquires an image. False when there is nothing to draw into now (no
  /// area, or the swapchain was just found out of date: ask for another frame). Throws std::runtime_error.
  bool BeginFrame(Frame& frame);
  /// Begins clear_pass on the frame's image in `frame.draw`; EndPass ends it.
  void BeginPass(const Frame& frame) const;
  void EndPass(const Frame& frame) const;
  /// Ends and submits what is left of the frame and presents its image. With `grab` non-null it also copies the
  /// image to host memory, waits, and stores it there (opaque RGB). Throws std::runtime_error.
  void EndFrame(Frame& frame, QImage* grab = nullptr);
  /// Waits until the device is idle (before destroying resources a frame in flight may use).
  void WaitIdle();

 private:
  // The constructor's steps. PickDevice: the physical device and queue family that draw and present to the surface.
  void PickDevice();
  // The surface's colour format and space: the first of `formats_wanted` it offers, else its first.
  void ChooseColorFormat(std::span<const VkFormat> formats_wanted);
  // The command pool, and each frame slot's command buffers, fence and semaphores.
  void CreateSlots();
  void CreateSwapchain(VkExtent2D extent);
  void DestroySwapchainResources();
  void Release();  // Everything, in reverse order of creation (the destructor; a failed constructor).

  QVulkanInstance* instance_ = nullptr;
  QWindow* window_ = nullptr;
  VkSurfaceKHR surface_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_device_ = VK_NULL_HANDLE;
  VkPhysicalDeviceProperties properties_{};
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  std::uint32_t queue_family_ = 0;
  VkFormat color_format_ = VK_FORMAT_UNDEFINED;
  VkColorSpaceKHR color_space_ = VK_COLOR_SPACE_SRGB_NONLINEAR_KHR;
  VkFormat depth_format_ = VK_FORMAT_UNDEFINED;
  VkRenderPass clear_pass_ = VK_NULL_HANDLE;
  VkCommandPool command_pool_ = VK_NULL_HANDLE;

  struct Slot {
    VkCommandBuffer prepare = VK_NULL_HANDLE, draw = VK_NULL_HANDLE;
    VkFence done = VK_NULL_HANDLE;  // Signalled when the frame's last submission has run.
    VkSemaphore acquired = VK_NULL_HANDLE, rendered = VK_NULL_HANDLE;
  };
  std::array<Slot, kFramesInFlight> slots_{};
  std::uint32_t next_slot_ = 0;

  VkSwapchainKHR swapchain_ = VK_NULL_HANDLE;
  VkExtent2D extent_{};
  bool out_of_date_ = false;
  VkImageUsageFlags image_usage_ = 0;
  std::vector<VkImage> images_;
  std::vector<VkImageView> views_;
  std::vector<VkFramebuffer> framebuffers_;
  render::GpuImage depth_;
};

}  // namespace ductile::studio
