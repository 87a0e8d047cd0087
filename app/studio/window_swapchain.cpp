#include "window_swapchain.h"

#include <QVulkanInstance>
#include <QWindow>
#include <algorithm>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

#include "ductile/render/vulkan_util.h"

namespace ductile::studio {
namespace {

using render::Check;

// A render pass drawing into the swapchain image and a depth attachment, both cleared, the colour presented
// afterwards. The image is written after the acquire semaphore's wait (at the colour output stage) and after the
// previous frame's use of the depth attachment.
VkRenderPass CreatePass(VkDevice device, VkFormat color, VkFormat depth) {
  VkSubpassDependency dependency{};
  dependency.srcSubpass = VK_SUBPASS_EXTERNAL;
  dependency.dstSubpass = 0;
  dependency.srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT;
  dependency.dstStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT;
  dependency.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
  dependency.dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT |
                             VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
  return render::CreateColorDepthRenderPass(device, color, depth, VK_SAMPLE_COUNT_1_BIT,
                                            VK_IMAGE_LAYOUT_PRESENT_SRC_KHR, {&dependency, 1},
                                            "vkCreateRenderPass (viewport)");
}

}  // namespace

WindowSwapchain::WindowSwapchain(QVulkanInstance* instance, QWindow* window, std::span<const VkFormat> formats_wanted)
    : instance_(instance), window_(window) {
  // Whatever was created before a failure is released here: the destructor does not run for a constructor that
  // throws.
  try {
    surface_ = QVulkanInstance::surfaceForWindow(window);
    if (surface_ == VK_NULL_HANDLE) throw std::runtime_error("the window has no Vulkan surface");
    PickDevice();
    vkGetPhysicalDeviceProperties(physical_device_, &properties_);
    const std::array<const char*, 1> extensions{VK_KHR_SWAPCHAIN_EXTENSION_NAME};
    device_ = render::CreateDeviceWithQueue(physical_device_, queue_family_, extensions, queue_);
    ChooseColorFormat(formats_wanted);
    const std::optional<VkFormat> depth =
        render::FindDepthFormat(physical_device_, VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT);
    if (!depth) throw std::runtime_error("no depth attachment format");
    depth_format_ = *depth;
    // Transfer source for grabbing a frame, where offered.
    VkSurfaceCapabilitiesKHR caps{};
    Check(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(physical_device_, surface_, &caps),
          "vkGetPhysicalDeviceSurfaceCapabilitiesKHR");
    image_usage_ = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | (caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_SRC_BIT);
    clear_pass_ = CreatePass(device_, color_format_, depth_format_);
    CreateSlots();
  } catch (...) {
    Release();
    throw;
  }
}

void WindowSwapchain::PickDevice() {
  // The most preferred device (render::DeviceTypeRank, as the offscreen renderer picks) with a queue family that
  // both draws and presents to the window.
  const std::vector<VkPhysicalDevice> devices = render::DevicesByPreference(instance_->vkInstance());
  if (devices.empty()) throw std::runtime_error("no Vulkan physical device");
  for (VkPhysicalDevice device : devices) {
    std::uint32_t families = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(device, &families, nullptr);
    std::vector<VkQueueFamilyProperties> family_properties(families);
    vkGetPhysicalDeviceQueueFamilyProperties(device, &families, family_properties.data());
    for (std::uint32_t i = 0; i < families; ++i) {
      VkBool32 present = VK_FALSE;
      Check(vkGetPhysicalDeviceSurfaceSupportKHR(device, i, surface_, &present),
            "vkGetPhysicalDeviceSurfaceSupportKHR");
      if ((family_properties[i].queueFlags & VK_QUEUE_GRAPHICS_BIT) != 0 && present == VK_TRUE) {
        physical_device_ = device;
        queue_family_ = i;
        return;
      }
    }
  }
  VkPhysicalDeviceProperties first{};
  vkGetPhysicalDeviceProperties(devices.front(), &first);
  throw std::runtime_error("no queue of " + std::string(first.deviceName) + " (nor of the " +
                           std::to_string(devices.size() - 1) +
                           " other devices) both draws and presents to the window");
}

void WindowSwapchain::ChooseColorFormat(std::span<const VkFormat> formats_wanted) {
  std::uint32_t format_count = 0;
  Check(vkGetPhysicalDeviceSurfaceFormatsKHR(physical_device_, surface_, &format_count, nullptr),
        "vkGetPhysicalDeviceSurfaceFormatsKHR");
  std::vector<VkSurfaceFormatKHR> formats(format_count);
  Check(vkGetPhysicalDeviceSurfaceFormatsKHR(physical_device_, surface_, &format_count, formats.data()),
        "vkGetPhysicalDeviceSurfaceFormatsKHR");
  if (formats.empty()) throw std::runtime_error("the window's surface offers no colour format");
  color_format_ = formats.front().format == VK_FORMAT_UNDEFINED ? VK_FORMAT_B8G8R8A8_UNORM : formats.front().format;
  color_space_ = formats.front().colorSpace;
  const auto preferred = std::find_if(formats_wanted.begin(), formats_wanted.end(), [&](VkFormat f) {
    return std::any_of(formats.begin(), formats.end(), [f](const VkSurfaceFormatKHR& s) { return s.format == f; });
  });
  if (preferred == formats_wanted.end()) return;
  for (const VkSurfaceFormatKHR& s : formats) {
    if (s.format == *preferred) {
      color_format_ = s.format;
      color_space_ = s.colorSpace;
      return;
    }
  }
}

void WindowSwapchain::CreateSlots() {
  VkCommandPoolCreateInfo pool_info{};
  pool_info.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  pool_info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pool_info.queueFamilyIndex = queue_family_;
  Check(vkCreateCommandPool(device_, &pool_info, nullptr, &command_pool_), "vkCreateCommandPool");
  for (Slot& slot : slots_) {
    VkCommandBufferAllocateInfo allocate{};
    allocate.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    allocate.commandPool = command_pool_;
    allocate.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    allocate.commandBufferCount = 2;
    std::array<VkCommandBuffer, 2> buffers{};
    Check(vkAllocateCommandBuffers(device_, &allocate, buffers.data()), "vkAllocateCommandBuffers");
    slot.prepare = buffers[0];
    slot.draw = buffers[1];
    VkFenceCreateInfo fence_info{};
    fence_info.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
    fence_info.flags = VK_FENCE_CREATE_SIGNALED_BIT;
    Check(vkCreateFence(device_, &fence_info, nullptr, &slot.done), "vkCreateFence");
    VkSemaphoreCreateInfo semaphore_info{};
    semaphore_info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
    Check(vkCreateSemaphore(device_, &semaphore_info, nullptr, &slot.acquired), "vkCreateSemaphore");
    Check(vkCreateSemaphore(device_, &semaphore_info, nullptr, &slot.rendered), "vkCreateSemaphore");
  }
}

WindowSwapchain::~WindowSwapchain() {
  Release();
}

void WindowSwapchain::Release() {
  if (device_ != VK_NULL_HANDLE) {
    vkDeviceWaitIdle(device_);
    DestroySwapchainResources();
    if (swapchain_ != VK_NULL_HANDLE) vkDestroySwapchainKHR(device_, swapchain_, nullptr);
    swapchain_ = VK_NULL_HANDLE;
    for (Slot& slot : slots_) {
      if (slot.done != VK_NULL_HANDLE) vkDestroyFence(device_, slot.done, nullptr);
      if (slot.acquired != VK_NULL_HANDLE) vkDestroySemaphore(device_, slot.acquired, nullptr);
      if (slot.rendered != VK_NULL_HANDLE) vkDestroySemaphore(device_, slot.rendered, nullptr);
      slot = Slot{};
    }
    if (command_pool_ != VK_NULL_HANDLE) vkDestroyCommandPool(device_, command_pool_, nullptr);
    if (clear_pass_ != VK_NULL_HANDLE) vkDestroyRenderPass(device_, clear_pass_, nullptr);
    command_pool_ = VK_NULL_HANDLE;
    clear_pass_ = VK_NULL_HANDLE;
    vkDestroyDevice(device_, nullptr);
    device_ = VK_NULL_HANDLE;
  }
  // The surface belongs to the window (QVulkanInstance::surfaceForWindow).
}

void WindowSwapchain::DestroySwapchainResources() {
  for (VkFramebuffer framebuffer : framebuffers_) vkDestroyFramebuffer(device_, framebuffer, nullptr);
  for (VkImageView view : views_) vkDestroyImageView(device_, view, nullptr);
  framebuffers_.clear();
  views_.clear();
  images_.clear();
  depth_ = render::GpuImage();
}

void WindowSwapchain::CreateSwapchain(VkExtent2D extent) {
  Check(vkDeviceWaitIdle(device_), "vkDeviceWaitIdle");
  DestroySwapchainResources();
  VkSurfaceCapabilitiesKHR caps{};
  Check(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(physical_device_, surface_, &caps),
        "vkGetPhysicalDeviceSurfaceCapabilitiesKHR");
  if (caps.currentExtent.width != std::numeric_limits<std::uint32_t>::max()) extent = caps.currentExtent;
  const VkSwapchainKHR old = swapchain_;
  swapchain_ = VK_NULL_HANDLE;
  extent_ = {};
  if (extent.width == 0 || extent.height == 0) {
    if (old != VK_NULL_HANDLE) vkDestroySwapchainKHR(device_, old, nullptr);
    return;
  }
  std::uint32_t image_count = std::max(caps.minImageCount, 2u);
  if (caps.maxImageCount != 0) image_count = std::min(image_count, caps.maxImageCount);
  VkSwapchainCreateInfoKHR info{};
  info.sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR;
  info.surface = surface_;
  info.minImageCount = image_count;
  info.imageFormat = color_format_;
  info.imageColorSpace = color_space_;
  info.imageExtent = extent;
  info.imageArrayLayers = 1;
  info.imageUsage = image_usage_;
  info.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE;
  info.preTransform = (caps.supportedTransforms & VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR) != 0
                          ? VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR
                          : caps.currentTransform;
  info.compositeAlpha = (caps.supportedCompositeAlpha & VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR) != 0
                            ? VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR
                            : VK_COMPOSITE_ALPHA_INHERIT_BIT_KHR;
  info.presentMode = VK_PRESENT_MODE_FIFO_KHR;
  info.clipped = VK_TRUE;
  info.oldSwapchain = old;
  const VkResult created = vkCreateSwapchainKHR(device_, &info, nullptr, &swapchain_);
  if (old != VK_NULL_HANDLE) vkDestroySwapchainKHR(device_, old, nullptr);
  Check(created, "vkCreateSwapchainKHR");
  extent_ = extent;

  std::uint32_t count = 0;
  Check(vkGetSwapchainImagesKHR(device_, swapchain_, &count, nullptr), "vkGetSwapchainImagesKHR");
  images_.resize(count);
  Check(vkGetSwapchainImagesKHR(device_, swapchain_, &count, images_.data()), "vkGetSwapchainImagesKHR");

  depth_ = render::GpuImage(physical_device_, device_, extent, depth_format_, VK_SAMPLE_COUNT_1_BIT,
                            VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, VK_IMAGE_ASPECT_DEPTH_BIT);
  VkImageViewCreateInfo view_info{};
  view_info.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO;
  view_info.viewType = VK_IMAGE_VIEW_TYPE_2D;
  for (VkImage image : images_) {
    view_info.image = image;
    view_info.format = color_format_;
    view_info.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    VkImageView view = VK_NULL_HANDLE;
    Check(vkCreateImageView(device_, &view_info, nullptr, &view), "vkCreateImageView (swapchain)");
    views_.push_back(view);
    const std::array<VkImageView, 2> attachments{view, depth_.view()};
    const VkFramebuffer framebuffer =
        render::CreateFramebuffer(device_, clear_pass_, attachments, extent, "vkCreateFramebuffer (viewport)");
    framebuffers_.push_back(framebuffer);
  }
}

void WindowSwapchain::BeginPass(const Frame& frame) const {
  std::array<VkClearValue, 2> clear{};
  clear[0].color = {{0.16f, 0.17f, 0.19f, 1.0f}};
  clear[1].depthStencil = {1.0f, 0};
  VkRenderPassBeginInfo begin{};
  begin.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO;
  begin.renderPass = clear_pass_;
  begin.framebuffer = frame.framebuffer;
  begin.renderArea.extent = frame.extent;
  begin.clearValueCount = static_cast<std::uint32_t>(clear.size());
  begin.pClearValues = clear.data();
  vkCmdBeginRenderPass(frame.draw, &begin, VK_SUBPASS_CONTENTS_INLINE);
}

void WindowSwapchain::EndPass(const Frame& frame) const {
  vkCmdEndRenderPass(frame.draw);
}

bool WindowSwapchain::BeginFrame(Frame& frame) {
  const QSize size = window_->size() * window_->devicePixelRatio();
  const VkExtent2D wanted{static_cast<std::uint32_t>(std::max(0, size.width())),
                          static_cast<std::uint32_t>(std::max(0, size.height()))};
  if (swapchain_ == VK_NULL_HANDLE || out_of_date_ || wanted.width != extent_.width ||
      wanted.height != extent_.height) {
    out_of_date_ = false;
    CreateSwapchain(wanted);
  }
  if (swapchain_ == VK_NULL_HANDLE) return false;
  Slot& slot = slots_[next_slot_];
  Check(vkWaitForFences(device_, 1, &slot.done, VK_TRUE, std::numeric_limits<std::uint64_t>::max()), "vkWaitForFences");
  std::uint32_t index = 0;
  const VkResult acquired = vkAcquireNextImageKHR(device_, swapchain_, std::numeric_limits<std::uint64_t>::max(),
                                                  slot.acquired, VK_NULL_HANDLE, &index);
  if (acquired == VK_ERROR_OUT_OF_DATE_KHR) {
    out_of_date_ = true;
    return false;
  }
  if (acquired != VK_SUBOPTIMAL_KHR) Check(acquired, "vkAcquireNextImageKHR");
  Check(vkResetFences(device_, 1, &slot.done), "vkResetFences");
  frame = Frame{};
  frame.slot = next_slot_;
  frame.image_index = index;
  frame.image = images_[index];
  frame.framebuffer = framebuffers_[index];
  frame.extent = extent_;
  frame.prepare = slot.prepare;
  frame.draw = slot.draw;
  VkCommandBufferBeginInfo begin{};
  begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  for (VkCommandBuffer cb : {slot.prepare, slot.draw}) {
    Check(vkResetCommandBuffer(cb, 0), "vkResetCommandBuffer");
    Check(vkBeginCommandBuffer(cb, &begin), "vkBeginCommandBuffer");
  }
  next_slot_ = (next_slot_ + 1) % kFramesInFlight;
  return true;
}

void WindowSwapchain::EndFrame(Frame& frame, QImage* grab) {
  Slot& slot = slots_[frame.slot];
  // Grabbing: the presented image copied to a host buffer after the pass.
  const bool grabbing = grab != nullptr && (image_usage_ & VK_IMAGE_USAGE_TRANSFER_SRC_BIT) != 0;
  const VkDeviceSize grab_bytes = 4 * static_cast<VkDeviceSize>(frame.extent.width) * frame.extent.height;
  render::HostBuffer grab_buffer;
  if (grabbing) {
    grab_buffer = render::HostBuffer(physical_device_, device_, grab_bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
    VkImageMemoryBarrier barrier{};
    barrier.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER;
    barrier.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    barrier.oldLayout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR;
    barrier.newLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    barrier.srcQueueFamilyIndex = barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    barrier.image = frame.image;
    barrier.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    vkCmdPipelineBarrier(frame.draw, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
                         0, nullptr, 0, nullptr, 1, &barrier);
    VkBufferImageCopy region{};
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {frame.extent.width, frame.extent.height, 1};
    vkCmdCopyImageToBuffer(frame.draw, frame.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, grab_buffer.buffer(), 1,
                           &region);
    barrier.srcAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    barrier.dstAccessMask = 0;
    barrier.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    barrier.newLayout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR;
    vkCmdPipelineBarrier(frame.draw, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0, 0,
                         nullptr, 0, nullptr, 1, &barrier);
    render::RecordHostReadBarrier(frame.draw, grab_buffer.buffer());
  }
  const std::array<VkCommandBuffer, 2> buffers{frame.prepare, frame.draw};
  for (VkCommandBuffer buffer : buffers) Check(vkEndCommandBuffer(buffer), "vkEndCommandBuffer");
  // The image is written from the colour output stage on (the pass).
  const VkPipelineStageFlags wait_stage = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
  VkSubmitInfo submit{};
  submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.waitSemaphoreCount = 1;
  submit.pWaitSemaphores = &slot.acquired;
  submit.pWaitDstStageMask = &wait_stage;
  submit.commandBufferCount = static_cast<std::uint32_t>(buffers.size());
  submit.pCommandBuffers = buffers.data();
  submit.signalSemaphoreCount = 1;
  submit.pSignalSemaphores = &slot.rendered;
  Check(vkQueueSubmit(queue_, 1, &submit, slot.done), "vkQueueSubmit");
  VkPresentInfoKHR present{};
  present.sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR;
  present.waitSemaphoreCount = 1;
  present.pWaitSemaphores = &slot.rendered;
  present.swapchainCount = 1;
  present.pSwapchains = &swapchain_;
  present.pImageIndices = &frame.image_index;
  const VkResult presented = vkQueuePresentKHR(queue_, &present);
  if (presented == VK_ERROR_OUT_OF_DATE_KHR || presented == VK_SUBOPTIMAL_KHR) {
    out_of_date_ = true;
  } else {
    Check(presented, "vkQueuePresentKHR");
  }
  instance_->presentQueued(window_);
  if (grabbing) {
    Check(vkWaitForFences(device_, 1, &slot.done, VK_TRUE, std::numeric_limits<std::uint64_t>::max()),
          "vkWaitForFences");
    const bool bgra = color_format_ == VK_FORMAT_B8G8R8A8_UNORM || color_format_ == VK_FORMAT_B8G8R8A8_SRGB;
    // B, G, R, A bytes read as 0xAARRGGBB words on a little-endian machine: QImage's RGB32 (alpha ignored).
    const QImage view(reinterpret_cast<const uchar*>(grab_buffer.data()), static_cast<int>(frame.extent.width),
                      static_cast<int>(frame.extent.height), 4 * static_cast<qsizetype>(frame.extent.width),
                      bgra ? QImage::Format_RGB32 : QImage::Format_RGBX8888);
    *grab = view.copy();
  } else if (grab != nullptr) {
    *grab = QImage();
  }
}

void WindowSwapchain::WaitIdle() {
  if (device_ != VK_NULL_HANDLE) vkDeviceWaitIdle(device_);
}

}  // namespace ductile::studio
