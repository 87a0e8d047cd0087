// Small Vulkan helpers of the renderer: error checking that turns a failed call into a RenderError naming the call,
// and owners of buffers and images with their memory.
#pragma once

#include <vulkan/vulkan.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace ductile::render {

/// The enumerator's name of `result`, e.g. "VK_ERROR_OUT_OF_DEVICE_MEMORY".
const char* ResultName(VkResult result);

/// Throws RenderError "<call> failed: <result name>" unless `result` is VK_SUCCESS.
void Check(VkResult result, const char* call);

/// Index of a memory type allowed by `type_bits` with all of `properties`; throws RenderError when there is none.
std::uint32_t FindMemoryType(VkPhysicalDevice physical_device, std::uint32_t type_bits,
                             VkMemoryPropertyFlags properties);

/// A buffer in host-visible, host-coherent memory, mapped for its whole life. Move-only.
class HostBuffer {
 public:
  HostBuffer() = default;
  /// A buffer of `size` bytes (> 0) for `usage`. Throws RenderError.
  HostBuffer(VkPhysicalDevice physical_device, VkDevice device, VkDeviceSize size, VkBufferUsageFlags usage);
  ~HostBuffer();
  HostBuffer(HostBuffer&& other) noexcept { *this = std::move(other); }
  HostBuffer& operator=(HostBuffer&& other) noexcept;
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;

  VkBuffer buffer() const { return buffer_; }
  VkDeviceSize size() const { return size_; }
  std::byte* data() const { return static_cast<std::byte*>(mapped_); }

 private:
  void Destroy();

  VkDevice device_ = VK_NULL_HANDLE;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  VkDeviceSize size_ = 0;
  void* mapped_ = nullptr;
};

/// A 2D image in device-local memory with one view of all of it. Move-only.
class GpuImage {
 public:
  GpuImage() = default;
  /// Throws RenderError.
  GpuImage(VkPhysicalDevice physical_device, VkDevice device, VkExtent2D extent, VkFormat format,
           VkSampleCountFlagBits samples, VkImageUsageFlags usage, VkImageAspectFlags aspect);
  ~GpuImage();
  GpuImage(GpuImage&& other) noexcept { *this = std::move(other); }
  GpuImage& operator=(GpuImage&& other) noexcept;
  GpuImage(const GpuImage&) = delete;
  GpuImage& operator=(const GpuImage&) = delete;

  VkImage image() const { return image_; }
  VkImageView view() const { return view_; }

 private:
  void Destroy();

  VkDevice device_ = VK_NULL_HANDLE;
  VkImage image_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  VkImageView view_ = VK_NULL_HANDLE;
};

/// A device with one queue of `queue_family` and the device `extensions`, and that queue. Throws RenderError.
VkDevice CreateDeviceWithQueue(VkPhysicalDevice physical_device, std::uint32_t queue_family,
                               std::span<const char* const> extensions, VkQueue& queue);

/// Preference among physical devices, lower first: a discrete GPU, an integrated one, a virtual one, the CPU
/// implementation (lavapipe), anything else. The offscreen renderer, the studio's window and its choice of how to
/// show frames all pick by it, so that they agree on the device.
int DeviceTypeRank(VkPhysicalDeviceType type);

/// The instance's physical devices in order of DeviceTypeRank (the loader's order among equals). Throws RenderError.
std::vector<VkPhysicalDevice> DevicesByPreference(VkInstance instance);

/// The first queue family of `physical_device` that draws (has VK_QUEUE_GRAPHICS_BIT), if any.
std::optional<std::uint32_t> GraphicsQueueFamily(VkPhysicalDevice physical_device);

/// Whether `format`'s optimal tiling has all of `features`.
bool SupportsOptimal(VkPhysicalDevice physical_device, VkFormat format, VkFormatFeatureFlags features);

/// A render pass of one subpass drawing into a colour and a depth attachment with `samples` samples, both cleared;
/// when `samples` > 1 the colour is resolved into a third, single-sample attachment. The single-sample colour (or the
/// resolve target) is stored and ends in `result_layout`. The depth is not stored, unless `depth_result_layout` is
/// not VK_IMAGE_LAYOUT_UNDEFINED: then it is stored and ends in that layout (a depth image read back). Throws
/// RenderError naming `call`.
VkRenderPass CreateColorDepthRenderPass(VkDevice device, VkFormat color_format, VkFormat depth_format,
                                        VkSampleCountFlagBits samples, VkImageLayout result_layout,
                                        std::span<const VkSubpassDependency> dependencies, const char* call,
                                        VkImageLayout depth_result_layout = VK_IMAGE_LAYOUT_UNDEFINED);

/// The two dependencies of a one-subpass render pass whose attachments are read between passes at `reader_stage`
/// with `reader_access`: the pass's first writes (at `write_wait_stage`, `write_wait_access`) wait for the previous
/// reads, and the next reads wait for the pass's writes (made at `write_stage` with `write_access`).
std::array<VkSubpassDependency, 2> ReadBetweenPassesDependencies(
    VkPipelineStageFlags reader_stage, VkAccessFlags reader_access, VkPipelineStageFlags write_wait_stage,
    VkAccessFlags write_wait_access, VkPipelineStageFlags write_stage, VkAccessFlags write_access);
/// A render pass of one subpass drawing into one single-sample depth attachment of `format`, cleared, stored and
/// ending in `result_layout`. Throws RenderError naming `call`.
VkRenderPass CreateDepthRenderPass(VkDevice device, VkFormat format, VkImageLayout result_layout,
                                   std::span<const VkSubpassDependency> dependencies, const char* call);
/// A render pass of one subpass drawing into one single-sample colour attachment of `format`, its old contents
/// cleared or dropped (`load_op`), stored, ending in `result_layout`, for an image that is read between passes at
/// `reader_stage` with `reader_access`: the pass writes after the previous read, and the next read waits for the
/// writes. Throws RenderError naming `call`.
VkRenderPass CreateColorRenderPass(VkDevice device, VkFormat format, VkAttachmentLoadOp load_op,
                                   VkImageLayout result_layout, VkPipelineStageFlags reader_stage,
                                   VkAccessFlags reader_access, const char* call);

/// Records a barrier that makes transfer writes into `buffer` (a copy out of an image) visible to the host, which
/// reads it after waiting for the submission.
void RecordHostReadBarrier(VkCommandBuffer command_buffer, VkBuffer buffer);

/// A framebuffer of `render_pass` over `attachments`, `extent` large. Throws RenderError naming `call`.
VkFramebuffer CreateFramebuffer(VkDevice device, VkRenderPass render_pass, std::span<const VkImageView> attachments,
                                VkExtent2D extent, const char* call);

/// A sampler without mipmaps that clamps to the edge and filters with `filter`. Throws RenderError naming `call`.
VkSampler CreateClampToEdgeSampler(VkDevice device, VkFilter filter, const char* call);
/// A sampler of a depth image without mipmaps that compares the depth it reads with the reference, passing where the
/// reference is less or equal, with nearest filtering; outside the image (clamped to an opaque white border) every
/// comparison passes. Throws RenderError naming `call`.
VkSampler CreateDepthCompareSampler(VkDevice device, const char* call);

/// Points `binding` of `set` at one combined image sampler.
void WriteImageDescriptor(VkDevice device, VkDescriptorSet set, std::uint32_t binding, VkSampler sampler,
                          VkImageView view, VkImageLayout layout);
/// Points `binding` of `set` at one buffer descriptor of `type` (a uniform or storage buffer): `buffer_info`'s range.
void WriteBufferDescriptor(VkDevice device, VkDescriptorSet set, std::uint32_t binding, VkDescriptorType type,
                           const VkDescriptorBufferInfo& buffer_info);

/// Begins `render_pass` on `framebuffer` over the whole of `extent`, its attachments cleared to `clears` (one per
/// attachment with a clear load op, in attachment order), for commands recorded inline.
void BeginRenderPass(VkCommandBuffer command_buffer, VkRenderPass render_pass, VkFramebuffer framebuffer,
                     VkExtent2D extent, std::span<const VkClearValue> clears);
/// Sets the dynamic viewport (depth 0 to 1) and scissor to the whole of `extent`.
void SetViewportAndScissor(VkCommandBuffer command_buffer, VkExtent2D extent);

/// The first of D32_SFLOAT, D24_UNORM_S8_UINT and D32_SFLOAT_S8_UINT whose optimal tiling has all of `features`;
/// nullopt when none has.
std::optional<VkFormat> FindDepthFormat(VkPhysicalDevice physical_device, VkFormatFeatureFlags features);

}  // namespace ductile::render
