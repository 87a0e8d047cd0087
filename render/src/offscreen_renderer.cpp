// OffscreenRenderer: its own Vulkan instance and device, a render pass into an (MSAA) colour image resolved to a
// single-sample image, and a readback buffer; or, in the CPU viewport's mode, frames composed on the host by the
// SceneRenderer (SceneRendererTarget::host_upscale), which need neither. With depth readback the depth attachment
// is stored too and copied into a second buffer, whose window-space depth d is turned into the distance along the
// viewing axis by inverting the perspective projection (ViewDepth, render_math.h). One frame at a
// time: Render waits for the device before returning.
#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "ductile/render/renderer.h"
#include "ductile/render/vulkan_util.h"
#include "render_math.h"

namespace ductile::render {
namespace {

constexpr int kMaxSize = 16384;  // [pixels]; the smallest maxImageDimension2D any Vulkan device reports is 4096,
                                 // the check against the device comes later.

// Throws std::invalid_argument for a frame size outside 1 to kMaxSize.
void CheckSize(int width, int height) {
  if (width < 1 || height < 1 || width > kMaxSize || height > kMaxSize) {
    throw std::invalid_argument("OffscreenRenderer: size " + std::to_string(width) + "x" + std::to_string(height) +
                                " is outside 1 to " + std::to_string(kMaxSize));
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
      depth_readback_buffer = HostBuffer();
      color = GpuImage();
      depth = GpuImage();
      resolve = GpuImage();
      if (framebuffer != VK_NULL_HANDLE) vkDestroyFramebuffer(device, framebuffer, nullptr);
      if (render_pass != VK_NULL_HANDLE) vkDestroyRenderPass(device, render_pass, nullptr);
      if (fence != VK_NULL_HANDLE) vkDestroyFence(device, fence, nullptr);
      if (command_pool != VK_NULL_HANDLE) vkDestroyCommandPool(device, command_pool, nullptr);
      vkDestroyDevice(device, nullptr);
    }
    if (instance != VK_NULL_HANDLE) vkDestroyInstance(instance, nullptr);
  }

  void CreateDevice();
  void CreateTarget(int requested_samples, bool ground_cache, bool cpu_viewport, bool with_depth);
  // The colour, depth and resolve images of new_width x new_height, their framebuffer and the readback buffer (none
  // for frames composed on the host), and the new size. Throws RenderError with everything as it was: a size beyond
  // the device's limit or an allocation that fails leaves the last size's images in place.
  void CreateImages(int new_width, int new_height);
  // Records, submits and waits for a frame of `scene`, and leaves it in `pixels` (4 · width · height bytes in the
  // colour format's byte order), and with `depth` (width · height floats, only with depth readback) its depth along
  // the viewing axis [m].
  void Draw(const RenderScene& scene, float render_scale, std::span<std::uint8_t> pixels,
            std::span<float> distances = {});
  // The depth buffer's window-space depths as distances along the viewing axis of `camera` into `distances`.
  void LinearDepth(const Camera& camera, std::span<float> distances) const;
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
  bool cpu_device = false;
  VkFormat color_format = VK_FORMAT_R8G8B8A8_SRGB;
  VkFormat depth_format = VK_FORMAT_UNDEFINED;
  bool host_composed = false;   // The CPU viewport's mode: frames composed on the host.
  bool depth_readback = false;  // The depth is stored and read back (RenderWithDepth).
  VkRenderPass render_pass = VK_NULL_HANDLE;
  VkFramebuffer framebuffer = VK_NULL_HANDLE;
  GpuImage color;  // Multisampled when samples > 1, else the image that is read back.
  GpuImage depth;
  GpuImage resolve;  // Only when samples > 1.
  HostBuffer readback;
  HostBuffer depth_readback_buffer;  // Only with depth readback.
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

  const std::vector<VkPhysicalDevice> devices = DevicesByPreference(instance);
  const std::size_t count = devices.size();
  for (VkPhysicalDevice candidate : devices) {
    const std::optional<std::uint32_t> family = GraphicsQueueFamily(candidate);
    if (!family) continue;
    VkPhysicalDeviceProperties properties{};
    vkGetPhysicalDeviceProperties(candidate, &properties);
    physical_device = candidate;
    queue_family = *family;
    device_name = properties.deviceName;
    cpu_device = properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
    break;
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

void OffscreenRenderer::Impl::CreateTarget(int requested_samples, bool ground_cache, bool cpu_viewport,
                                           bool with_depth) {
  depth_readback = with_depth;
  VkPhysicalDeviceProperties properties{};
  vkGetPhysicalDeviceProperties(physical_device, &properties);
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

  // An sRGB target lets the hardware encode and blend in linear space; a UNORM one makes the shaders encode. The CPU
  // viewport's frames are B, G, R, A in memory where the device can (what a window system's 32-bit images hold on a
  // little-endian machine, so the viewport paints them without converting), else R, G, B, A.
  const VkFormatFeatureFlags color_features =
      VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT | VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BLEND_BIT;
  const VkFormatFeatureFlags host_features = color_features | VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT |
                                             VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT |
                                             VK_FORMAT_FEATURE_TRANSFER_SRC_BIT;
  if (!cpu_viewport) {
    color_format = SupportsOptimal(physical_device, VK_FORMAT_R8G8B8A8_SRGB, color_features) ? VK_FORMAT_R8G8B8A8_SRGB
                                                                                             : VK_FORMAT_R8G8B8A8_UNORM;
  } else {
    color_format = SupportsOptimal(physical_device, VK_FORMAT_B8G8R8A8_UNORM, host_features) ? VK_FORMAT_B8G8R8A8_UNORM
                                                                                             : VK_FORMAT_R8G8B8A8_UNORM;
  }
  const std::optional<VkFormat> found_depth = FindDepthFormat(
      physical_device,
      VkFormatFeatureFlags{VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT} |
          (depth_readback ? VkFormatFeatureFlags{VK_FORMAT_FEATURE_TRANSFER_SRC_BIT} : VkFormatFeatureFlags{0}));
  if (!found_depth) throw RenderError("OffscreenRenderer: the device has no depth attachment format");
  depth_format = *found_depth;

  // Colour, depth and (with MSAA) the resolve target; the image read back ends in TRANSFER_SRC. The copy to the
  // readback buffer waits for the colour writes (and the resolve) of the pass, and with depth readback the depth's
  // copy for the depth writes.
  VkSubpassDependency to_transfer{};
  to_transfer.srcSubpass = 0;
  to_transfer.dstSubpass = VK_SUBPASS_EXTERNAL;
  to_transfer.srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
  to_transfer.dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT;
  to_transfer.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
  to_transfer.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
  if (depth_readback) {
    to_transfer.srcStageMask |= VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT;
    to_transfer.srcAccessMask |= VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
  }
  render_pass = CreateColorDepthRenderPass(
      device, color_format, depth_format, samples, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, {&to_transfer, 1},
      "vkCreateRenderPass", depth_readback ? VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL : VK_IMAGE_LAYOUT_UNDEFINED);

  SceneRendererTarget target;
  target.render_pass = render_pass;
  target.samples = samples;
  target.srgb_target = color_format == VK_FORMAT_R8G8B8A8_SRGB;
  target.frames_in_flight = 1;
  target.ground_cache = ground_cache;
  target.color_format = color_format;
  target.depth_format = depth_format;
  target.host_upscale = cpu_viewport && samples == VK_SAMPLE_COUNT_1_BIT;
  target.exact_particle_depth = depth_readback;
  scene_renderer = std::make_unique<SceneRenderer>(physical_device, device, target);
  // The renderer composes on the host where the device can draw into and filter the colour format.
  host_composed = target.host_upscale && scene_renderer->ComposesOnHost();
  CreateImages(width, height);
}

void OffscreenRenderer::Impl::CreateImages(int new_width, int new_height) {
  VkPhysicalDeviceProperties properties{};
  vkGetPhysicalDeviceProperties(physical_device, &properties);
  if (static_cast<std::uint32_t>(new_width) > properties.limits.maxFramebufferWidth ||
      static_cast<std::uint32_t>(new_height) > properties.limits.maxFramebufferHeight) {
    throw RenderError("OffscreenRenderer: " + std::to_string(new_width) + "x" + std::to_string(new_height) +
                      " exceeds the device's framebuffer limit of " +
                      std::to_string(properties.limits.maxFramebufferWidth) + "x" +
                      std::to_string(properties.limits.maxFramebufferHeight));
  }
  // Built aside and swapped in once all exist (GpuImage and HostBuffer release themselves if a later one throws).
  GpuImage new_color, new_depth, new_resolve;
  HostBuffer new_readback, new_depth_readback;
  VkFramebuffer new_framebuffer = VK_NULL_HANDLE;
  if (!host_composed) {
    const VkExtent2D extent{static_cast<std::uint32_t>(new_width), static_cast<std::uint32_t>(new_height)};
    const bool multisampled = samples != VK_SAMPLE_COUNT_1_BIT;
    new_color = GpuImage(physical_device, device, extent, color_format, samples,
                         VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
                             (multisampled ? VK_IMAGE_USAGE_TRANSIENT_ATTACHMENT_BIT : VK_IMAGE_USAGE_TRANSFER_SRC_BIT),
                         VK_IMAGE_ASPECT_COLOR_BIT);
    new_depth =
        GpuImage(physical_device, device, extent, depth_format, samples,
                 VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT |
                     (depth_readback ? VK_IMAGE_USAGE_TRANSFER_SRC_BIT : VK_IMAGE_USAGE_TRANSIENT_ATTACHMENT_BIT),
                 VK_IMAGE_ASPECT_DEPTH_BIT);
    if (multisampled) {
      new_resolve =
          GpuImage(physical_device, device, extent, color_format, VK_SAMPLE_COUNT_1_BIT,
                   VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT, VK_IMAGE_ASPECT_COLOR_BIT);
    }
    new_readback = HostBuffer(physical_device, device, 4 * static_cast<VkDeviceSize>(new_width) * new_height,
                              VK_BUFFER_USAGE_TRANSFER_DST_BIT);
    if (depth_readback) {
      // Every depth format FindDepthFormat offers copies its depth aspect out as 4 bytes a texel.
      new_depth_readback = HostBuffer(physical_device, device, 4 * static_cast<VkDeviceSize>(new_width) * new_height,
                                      VK_BUFFER_USAGE_TRANSFER_DST_BIT);
    }
    std::vector<VkImageView> views = {new_color.view(), new_depth.view()};
    if (multisampled) views.push_back(new_resolve.view());
    new_framebuffer = CreateFramebuffer(device, render_pass, views, extent, "vkCreateFramebuffer");
  }
  if (framebuffer != VK_NULL_HANDLE) vkDestroyFramebuffer(device, framebuffer, nullptr);
  framebuffer = new_framebuffer;
  color = std::move(new_color);
  depth = std::move(new_depth);
  resolve = std::move(new_resolve);
  readback = std::move(new_readback);
  depth_readback_buffer = std::move(new_depth_readback);
  width = new_width;
  height = new_height;
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
                                                             bool cpu_viewport, bool depth_readback) {
  CheckSize(width, height);
  if (samples < 1 || samples > 64 || (samples & (samples - 1)) != 0) {
    throw std::invalid_argument("OffscreenRenderer::Create: samples " + std::to_string(samples) +
                                " is not a power of two from 1 to 64");
  }
  if (depth_readback && (samples != 1 || cpu_viewport)) {
    throw std::invalid_argument("OffscreenRenderer::Create: depth readback needs 1 sample per pixel (asked for " +
                                std::to_string(samples) + ") and no CPU viewport mode");
  }
  auto impl = std::make_unique<Impl>();
  impl->width = width;
  impl->height = height;
  impl->CreateDevice();
  impl->CreateTarget(samples, ground_cache, cpu_viewport, depth_readback);
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

void OffscreenRenderer::Impl::Draw(const RenderScene& scene, float render_scale, std::span<std::uint8_t> pixels,
                                   std::span<float> distances) {
  const VkExtent2D extent{static_cast<std::uint32_t>(width), static_cast<std::uint32_t>(height)};
  VkCommandBufferBeginInfo begin_info{};
  begin_info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin_info.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  Check(vkBeginCommandBuffer(command_buffer, &begin_info), "vkBeginCommandBuffer");
  try {
    scene_renderer->PrepareFrame(command_buffer, 0, scene, extent, render_scale);
  } catch (...) {
    // Leave the command buffer ready for the next frame rather than stuck in the recording state.
    static_cast<void>(vkResetCommandBuffer(command_buffer, 0));
    throw;
  }
  if (scene_renderer->UpscalesOnHost(0)) {
    // The commands so far draw the scene and the HUD and copy them out; the frame is composed here.
    Check(vkEndCommandBuffer(command_buffer), "vkEndCommandBuffer");
    Submit();
    scene_renderer->UpscaleOnHost(0, pixels);
    return;
  }
  std::array<VkClearValue, 2> clears{};
  clears[0].color = {{scene.background[0], scene.background[1], scene.background[2], 1.0f}};
  clears[1].depthStencil = {1.0f, 0};
  BeginRenderPass(command_buffer, render_pass, framebuffer, extent, clears);
  scene_renderer->RecordDraws(command_buffer, 0);
  vkCmdEndRenderPass(command_buffer);

  VkBufferImageCopy copy{};
  copy.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
  copy.imageExtent = {extent.width, extent.height, 1};
  const VkImage source = samples != VK_SAMPLE_COUNT_1_BIT ? resolve.image() : color.image();
  vkCmdCopyImageToBuffer(command_buffer, source, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback.buffer(), 1, &copy);
  RecordHostReadBarrier(command_buffer, readback.buffer());
  if (!distances.empty()) {
    copy.imageSubresource.aspectMask = VK_IMAGE_ASPECT_DEPTH_BIT;
    vkCmdCopyImageToBuffer(command_buffer, depth.image(), VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                           depth_readback_buffer.buffer(), 1, &copy);
    RecordHostReadBarrier(command_buffer, depth_readback_buffer.buffer());
  }
  Check(vkEndCommandBuffer(command_buffer), "vkEndCommandBuffer");
  Submit();
  const auto* data = reinterpret_cast<const std::uint8_t*>(readback.data());
  std::copy(data, data + pixels.size(), pixels.begin());
  if (!distances.empty()) LinearDepth(scene.camera, distances);
}

void OffscreenRenderer::Impl::LinearDepth(const Camera& camera, std::span<float> distances) const {
  const double n = camera.near_plane, f = camera.far_plane;
  const auto* texels = reinterpret_cast<const std::uint8_t*>(depth_readback_buffer.data());
  const bool unorm24 = depth_format == VK_FORMAT_D24_UNORM_S8_UINT;
  for (std::size_t i = 0; i < distances.size(); ++i) {
    double d = 0;
    if (unorm24) {
      std::uint32_t bits = 0;
      std::memcpy(&bits, texels + 4 * i, 4);
      d = static_cast<double>(bits & 0xFFFFFFu) / 16777215.0;  // the depth in the low 24 bits
    } else {
      float value = 0;
      std::memcpy(&value, texels + 4 * i, 4);
      d = value;
    }
    distances[i] = static_cast<float>(ViewDepth(d, n, f));
  }
}

Image OffscreenRenderer::Render(const RenderScene& scene, float render_scale) {
  Image image;
  image.width = impl_->width;
  image.height = impl_->height;
  image.rgba.resize(4 * static_cast<std::size_t>(image.width) * static_cast<std::size_t>(image.height));
  impl_->Draw(scene, render_scale, image.rgba);
  if (bgra()) {
    for (std::size_t i = 0; i < image.rgba.size(); i += 4) std::swap(image.rgba[i], image.rgba[i + 2]);
  }
  return image;
}

void OffscreenRenderer::RenderInto(const RenderScene& scene, float render_scale, std::span<std::uint8_t> pixels) {
  const std::size_t bytes = 4 * static_cast<std::size_t>(impl_->width) * static_cast<std::size_t>(impl_->height);
  if (pixels.size() != bytes) {
    throw std::invalid_argument("OffscreenRenderer::RenderInto: " + std::to_string(pixels.size()) +
                                " bytes for a frame of " + std::to_string(impl_->width) + "x" +
                                std::to_string(impl_->height) + " pixels");
  }
  impl_->Draw(scene, render_scale, pixels);
}

void OffscreenRenderer::RenderWithDepth(const RenderScene& scene, std::span<std::uint8_t> pixels,
                                        std::span<float> depth) {
  const std::size_t count = static_cast<std::size_t>(impl_->width) * static_cast<std::size_t>(impl_->height);
  if (!impl_->depth_readback)
    throw std::invalid_argument("OffscreenRenderer::RenderWithDepth: the renderer was created without depth readback");
  if (pixels.size() != 4 * count || depth.size() != count) {
    throw std::invalid_argument("OffscreenRenderer::RenderWithDepth: " + std::to_string(pixels.size()) + " bytes and " +
                                std::to_string(depth.size()) + " depths for a frame of " +
                                std::to_string(impl_->width) + "x" + std::to_string(impl_->height) + " pixels");
  }
  impl_->Draw(scene, 1.0f, pixels, depth);
}

void OffscreenRenderer::Resize(int width, int height) {
  CheckSize(width, height);
  if (width == impl_->width && height == impl_->height) return;
  Check(vkDeviceWaitIdle(impl_->device), "vkDeviceWaitIdle");
  impl_->CreateImages(width, height);
}

bool OffscreenRenderer::bgra() const {
  return impl_->color_format == VK_FORMAT_B8G8R8A8_UNORM;
}

bool OffscreenRenderer::cpu_device() const {
  return impl_->cpu_device;
}

bool OffscreenRenderer::reads_depth() const {
  return impl_->depth_readback;
}

}  // namespace ductile::render
