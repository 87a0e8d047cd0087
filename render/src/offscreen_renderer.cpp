// OffscreenRenderer: its own Vulkan instance and device, a render pass into an (MSAA) colour image resolved to a
// single-sample image, and a readback buffer. One frame at a time: Render waits for the device before returning.
#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ductile/render/renderer.h"
#include "ductile/render/vulkan_util.h"

namespace ductile::render {
namespace {

constexpr int kMaxSize = 16384;  // [pixels]; the smallest maxImageDimension2D any Vulkan device reports is 4096,
                                 // the check against the device comes later.

// Preference among physical devices: a GPU first, the CPU implementation (lavapipe) last but still accepted.
int DeviceTypeRank(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return 3;
    default:
      return 4;
  }
}

}  // namespace

struct OffscreenRenderer::Impl {
  Impl() = default;
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  ~Impl() {
    if (device != VK_NULL_HANDLE) {
      // Nothing useful can be done about a failure while tearing down; the objects go either way.
      static_cast<void>(vkDeviceWaitIdle(device));
      scene_renderer.reset();
      readback = HostBuffer();
      color = GpuImage();
      depth = GpuImage();
      resolve = GpuImage();
      if (framebuffer != VK_NULL_HANDLE) vkDestroyFramebuffer(device, framebuffer, nullptr);
      if (render_pass != VK_NULL_HANDLE) vkDestroyRenderPass(device, render_pass, nullptr);
      if (load_pass != VK_NULL_HANDLE) vkDestroyRenderPass(device, load_pass, nullptr);
      if (fence != VK_NULL_HANDLE) vkDestroyFence(device, fence, nullptr);
      if (command_pool != VK_NULL_HANDLE) vkDestroyCommandPool(device, command_pool, nullptr);
      vkDestroyDevice(device, nullptr);
    }
    if (instance != VK_NULL_HANDLE) vkDestroyInstance(instance, nullptr);
  }

  void CreateDevice();
  void CreateTarget(int requested_samples, bool ground_cache, bool cpu_viewport);
  // Submits the command buffer (ended) and waits until it has run.
  void Submit();

  int width = 0;
  int height = 0;
  VkSampleCountFlagBits samples = VK_SAMPLE_COUNT_1_BIT;
  std::string device_name;
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical_device = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  std::uint32_t queue_family = 0;
  VkQueue queue = VK_NULL_HANDLE;
  VkCommandPool command_pool = VK_NULL_HANDLE;
  VkCommandBuffer command_buffer = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  VkFormat color_format = VK_FORMAT_R8G8B8A8_SRGB;
  VkRenderPass render_pass = VK_NULL_HANDLE;
  VkRenderPass load_pass = VK_NULL_HANDLE;  // render_pass loading the colour, for frames scaled up on the host.
  VkFramebuffer framebuffer = VK_NULL_HANDLE;
  GpuImage color;  // Multisampled when samples > 1, else the image that is read back.
  GpuImage depth;
  GpuImage resolve;  // Only when samples > 1.
  HostBuffer readback;
  std::unique_ptr<SceneRenderer> scene_renderer;
};

void OffscreenRenderer::Impl::CreateDevice() {
  VkApplicationInfo application{};
  application.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  application.pApplicationName = "ductile";
  application.pEngineName = "ductile_render";
  application.apiVersion = VK_API_VERSION_1_0;
  VkInstanceCreateInfo instance_info{};
  instance_info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  instance_info.pApplicationInfo = &application;
  const VkResult created = vkCreateInstance(&instance_info, nullptr, &instance);
  if (created == VK_ERROR_INCOMPATIBLE_DRIVER || created == VK_ERROR_INITIALIZATION_FAILED) {
    throw NoVulkanDeviceError(std::string("no Vulkan implementation found (vkCreateInstance: ") + ResultName(created) +
                              "); install a GPU driver, or mesa-vulkan-drivers for the CPU device lavapipe");
  }
  Check(created, "vkCreateInstance");

  std::uint32_t count = 0;
  Check(vkEnumeratePhysicalDevices(instance, &count, nullptr), "vkEnumeratePhysicalDevices");
  std::vector<VkPhysicalDevice> devices(count);
  if (count > 0) Check(vkEnumeratePhysicalDevices(instance, &count, devices.data()), "vkEnumeratePhysicalDevices");
  int best_rank = 1 << 30;
  for (VkPhysicalDevice candidate : devices) {
    std::uint32_t family_count = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(candidate, &family_count, nullptr);
    std::vector<VkQueueFamilyProperties> families(family_count);
    vkGetPhysicalDeviceQueueFamilyProperties(candidate, &family_count, families.data());
    for (std::uint32_t f = 0; f < family_count; ++f) {
      if ((families[f].queueFlags & VK_QUEUE_GRAPHICS_BIT) == 0) continue;
      VkPhysicalDeviceProperties properties{};
      vkGetPhysicalDeviceProperties(candidate, &properties);
      const int rank = DeviceTypeRank(properties.deviceType);
      if (rank < best_rank) {
        best_rank = rank;
        physical_device = candidate;
        queue_family = f;
        device_name = properties.deviceName;
      }
      break;
    }
  }
  if (physical_device == VK_NULL_HANDLE) {
    throw NoVulkanDeviceError("no Vulkan device with a graphics queue (" + std::to_string(count) +
                              " devices); install a GPU driver, or mesa-vulkan-drivers for the CPU device lavapipe");
  }

  device = CreateDeviceWithQueue(physical_device, queue_family, {}, queue);

  VkCommandPoolCreateInfo pool_info{};

  pool_info.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  pool_info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pool_info.queueFamilyIndex = queue_family;
  Check(vkCreateCommandPool(device, &pool_info, nullptr, &command_pool), "vkCreateCommandPool");
  VkCommandBufferAllocateInfo allocate{};
  allocate.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  allocate.commandPool = command_pool;
  allocate.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocate.commandBufferCount = 1;
  Check(vkAllocateCommandBuffers(device, &allocate, &command_buffer), "vkAllocateCommandBuffers");
  VkFenceCreateInfo fence_info{};
  fence_info.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
  Check(vkCreateFence(device, &fence_info, nullptr, &fence), "vkCreateFence");
}

void OffscreenRenderer::Impl::CreateTarget(int requested_samples, bool ground_cache, bool cpu_viewport) {
  VkPhysicalDeviceProperties properties{};
  vkGetPhysicalDeviceProperties(physical_device, &properties);
  if (static_cast<std::uint32_t>(width) > properties.limits.maxFramebufferWidth ||
      static_cast<std::uint32_t>(height) > properties.limits.maxFramebufferHeight) {
    throw RenderError("OffscreenRenderer: " + std::to_string(width) + "x" + std::to_string(height) +
                      " exceeds the device's framebuffer limit of " +
                      std::to_string(properties.limits.maxFramebufferWidth) + "x" +
                      std::to_string(properties.limits.maxFramebufferHeight));
  }
  // The most samples not above the request that colour and depth attachments both support.
  const VkSampleCountFlags supported =
      properties.limits.framebufferColorSampleCounts & properties.limits.framebufferDepthSampleCounts;
  samples = VK_SAMPLE_COUNT_1_BIT;
  for (int s = requested_samples; s > 1; s /= 2) {
    if ((supported & static_cast<VkSampleCountFlags>(s)) != 0) {
      samples = static_cast<VkSampleCountFlagBits>(s);
      break;
    }
  }

  // An sRGB target lets the hardware encode and blend in linear space; a UNORM one makes the shaders encode.
  const VkFormatFeatureFlags color_features =
      VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT | VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BLEND_BIT;
  color_format = !cpu_viewport && SupportsOptimal(physical_device, VK_FORMAT_R8G8B8A8_SRGB, color_features)
                     ? VK_FORMAT_R8G8B8A8_SRGB
                     : VK_FORMAT_R8G8B8A8_UNORM;
  const std::optional<VkFormat> found_depth =
      FindDepthFormat(physical_device, VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT);
  if (!found_depth) throw RenderError("OffscreenRenderer: the device has no depth attachment format");
  const VkFormat depth_format = *found_depth;
  const VkExtent2D extent{static_cast<std::uint32_t>(width), static_cast<std::uint32_t>(height)};
  const bool multisampled = samples != VK_SAMPLE_COUNT_1_BIT;

  color = GpuImage(physical_device, device, extent, color_format, samples,
                   VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
                       (multisampled ? VK_IMAGE_USAGE_TRANSIENT_ATTACHMENT_BIT
                                     : VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT),
                   VK_IMAGE_ASPECT_COLOR_BIT);
  depth = GpuImage(physical_device, device, extent, depth_format, samples,
                   VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSIENT_ATTACHMENT_BIT,
                   VK_IMAGE_ASPECT_DEPTH_BIT);
  if (multisampled) {
    resolve =
        GpuImage(physical_device, device, extent, color_format, VK_SAMPLE_COUNT_1_BIT,
                 VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT, VK_IMAGE_ASPECT_COLOR_BIT);
  }
  readback = HostBuffer(physical_device, device, 4 * static_cast<VkDeviceSize>(width) * height,
                        VK_BUFFER_USAGE_TRANSFER_DST_BIT);

  // Colour, depth and (with MSAA) the resolve target; the image read back ends in TRANSFER_SRC. The copy to the
  // readback buffer waits for the colour writes (and the resolve) of the pass.
  VkSubpassDependency to_transfer{};
  to_transfer.srcSubpass = 0;
  to_transfer.dstSubpass = VK_SUBPASS_EXTERNAL;
  to_transfer.srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
  to_transfer.dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT;
  to_transfer.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
  to_transfer.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
  render_pass =
      CreateColorDepthRenderPass(device, color_format, depth_format, samples, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                                 {&to_transfer, 1}, "vkCreateRenderPass");
  if (cpu_viewport && !multisampled) {
    load_pass =
        CreateColorDepthRenderPass(device, color_format, depth_format, samples, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                                   {&to_transfer, 1}, "vkCreateRenderPass (load)", true);
  }
  std::vector<VkImageView> views = {color.view(), depth.view()};
  if (multisampled) views.push_back(resolve.view());
  framebuffer = CreateFramebuffer(device, render_pass, views, extent, "vkCreateFramebuffer");

  SceneRendererTarget target;
  target.render_pass = render_pass;
  target.samples = samples;
  target.srgb_target = color_format == VK_FORMAT_R8G8B8A8_SRGB;
  target.frames_in_flight = 1;
  target.ground_cache = ground_cache;
  target.color_format = color_format;
  target.depth_format = depth_format;
  target.host_upscale = load_pass != VK_NULL_HANDLE;
  scene_renderer = std::make_unique<SceneRenderer>(physical_device, device, target);
}

void OffscreenRenderer::Impl::Submit() {
  VkSubmitInfo submit{};
  submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &command_buffer;
  Check(vkQueueSubmit(queue, 1, &submit, fence), "vkQueueSubmit");
  Check(vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");
  Check(vkResetFences(device, 1, &fence), "vkResetFences");
}

std::unique_ptr<OffscreenRenderer> OffscreenRenderer::Create(int width, int height, int samples, bool ground_cache,
                                                             bool cpu_viewport) {
  if (width < 1 || height < 1 || width > kMaxSize || height > kMaxSize) {
    throw std::invalid_argument("OffscreenRenderer::Create: size " + std::to_string(width) + "x" +
                                std::to_string(height) + " is outside 1 to " + std::to_string(kMaxSize));
  }
  if (samples < 1 || samples > 64 || (samples & (samples - 1)) != 0) {
    throw std::invalid_argument("OffscreenRenderer::Create: samples " + std::to_string(samples) +
                                " is not a power of two from 1 to 64");
  }
  auto impl = std::make_unique<Impl>();
  impl->width = width;
  impl->height = height;
  impl->CreateDevice();
  impl->CreateTarget(samples, ground_cache, cpu_viewport);
  return std::unique_ptr<OffscreenRenderer>(new OffscreenRenderer(std::move(impl)));
}

OffscreenRenderer::OffscreenRenderer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

OffscreenRenderer::~OffscreenRenderer() = default;

std::string OffscreenRenderer::DeviceName() const {
  return impl_->device_name;
}
int OffscreenRenderer::width() const {
  return impl_->width;
}
int OffscreenRenderer::height() const {
  return impl_->height;
}
int OffscreenRenderer::samples() const {
  return static_cast<int>(impl_->samples);
}

Image OffscreenRenderer::Render(const RenderScene& scene, float render_scale) {
  Impl& r = *impl_;
  const VkExtent2D extent{static_cast<std::uint32_t>(r.width), static_cast<std::uint32_t>(r.height)};
  VkCommandBufferBeginInfo begin_info{};
  begin_info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin_info.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  Check(vkBeginCommandBuffer(r.command_buffer, &begin_info), "vkBeginCommandBuffer");
  try {
    r.scene_renderer->PrepareFrame(r.command_buffer, 0, scene, extent, render_scale);
  } catch (...) {
    // Leave the command buffer ready for the next frame rather than stuck in the recording state.
    static_cast<void>(vkResetCommandBuffer(r.command_buffer, 0));
    throw;
  }

  const bool host_upscale = r.scene_renderer->UpscalesOnHost(0);
  if (host_upscale) {
    // The scene image is copied out by the commands so far: run them, scale it up here, copy it into the colour.
    Check(vkEndCommandBuffer(r.command_buffer), "vkEndCommandBuffer");
    r.Submit();
    r.scene_renderer->UpscaleOnHost(0);
    Check(vkBeginCommandBuffer(r.command_buffer, &begin_info), "vkBeginCommandBuffer");
    r.scene_renderer->RecordUpload(r.command_buffer, 0, r.color.image());
  }

  std::array<VkClearValue, 2> clears{};
  clears[0].color = {{scene.background[0], scene.background[1], scene.background[2], 1.0f}};
  clears[1].depthStencil = {1.0f, 0};
  VkRenderPassBeginInfo pass_begin{};
  pass_begin.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO;
  pass_begin.renderPass = host_upscale ? r.load_pass : r.render_pass;
  pass_begin.framebuffer = r.framebuffer;
  pass_begin.renderArea = {{0, 0}, extent};
  pass_begin.clearValueCount = static_cast<std::uint32_t>(clears.size());
  pass_begin.pClearValues = clears.data();
  vkCmdBeginRenderPass(r.command_buffer, &pass_begin, VK_SUBPASS_CONTENTS_INLINE);
  r.scene_renderer->RecordDraws(r.command_buffer, 0);
  vkCmdEndRenderPass(r.command_buffer);

  VkBufferImageCopy copy{};
  copy.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
  copy.imageExtent = {extent.width, extent.height, 1};
  const VkImage source = r.samples != VK_SAMPLE_COUNT_1_BIT ? r.resolve.image() : r.color.image();
  vkCmdCopyImageToBuffer(r.command_buffer, source, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, r.readback.buffer(), 1, &copy);
  VkBufferMemoryBarrier to_host{};
  to_host.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER;
  to_host.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  to_host.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  to_host.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  to_host.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  to_host.buffer = r.readback.buffer();
  to_host.size = VK_WHOLE_SIZE;
  vkCmdPipelineBarrier(r.command_buffer, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0, nullptr, 1,
                       &to_host, 0, nullptr);
  Check(vkEndCommandBuffer(r.command_buffer), "vkEndCommandBuffer");

  r.Submit();

  Image image;
  image.width = r.width;
  image.height = r.height;
  // One pass over the pixels: assign copies without first filling the vector with zeros.
  const auto* pixels = reinterpret_cast<const std::uint8_t*>(r.readback.data());
  image.rgba.assign(pixels, pixels + 4 * static_cast<std::size_t>(r.width) * static_cast<std::size_t>(r.height));
  return image;
}

}  // namespace ductile::render
