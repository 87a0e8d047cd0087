#include "ductile/render/vulkan_util.h"

#include <algorithm>
#include <array>
#include <string>

#include "ductile/render/renderer.h"

namespace ductile::render {

const char* ResultName(VkResult result) {
  switch (result) {
    case VK_SUCCESS:
      return "VK_SUCCESS";
    case VK_NOT_READY:
      return "VK_NOT_READY";
    case VK_TIMEOUT:
      return "VK_TIMEOUT";
    case VK_INCOMPLETE:
      return "VK_INCOMPLETE";
    case VK_ERROR_OUT_OF_HOST_MEMORY:
      return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
      return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_INITIALIZATION_FAILED:
      return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_DEVICE_LOST:
      return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_MEMORY_MAP_FAILED:
      return "VK_ERROR_MEMORY_MAP_FAILED";
    case VK_ERROR_LAYER_NOT_PRESENT:
      return "VK_ERROR_LAYER_NOT_PRESENT";
    case VK_ERROR_EXTENSION_NOT_PRESENT:
      return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case VK_ERROR_FEATURE_NOT_PRESENT:
      return "VK_ERROR_FEATURE_NOT_PRESENT";
    case VK_ERROR_INCOMPATIBLE_DRIVER:
      return "VK_ERROR_INCOMPATIBLE_DRIVER";
    case VK_ERROR_TOO_MANY_OBJECTS:
      return "VK_ERROR_TOO_MANY_OBJECTS";
    case VK_ERROR_FORMAT_NOT_SUPPORTED:
      return "VK_ERROR_FORMAT_NOT_SUPPORTED";
    case VK_ERROR_FRAGMENTED_POOL:
      return "VK_ERROR_FRAGMENTED_POOL";
    case VK_ERROR_OUT_OF_POOL_MEMORY:
      return "VK_ERROR_OUT_OF_POOL_MEMORY";
    default:
      return "VkResult (unnamed)";
  }
}

void Check(VkResult result, const char* call) {
  if (result != VK_SUCCESS) {
    throw RenderError(std::string(call) + " failed: " + ResultName(result) + " (" +
                      std::to_string(static_cast<int>(result)) + ")");
  }
}

std::uint32_t FindMemoryType(VkPhysicalDevice physical_device, std::uint32_t type_bits,
                             VkMemoryPropertyFlags properties) {
  VkPhysicalDeviceMemoryProperties memory{};
  vkGetPhysicalDeviceMemoryProperties(physical_device, &memory);
  for (std::uint32_t i = 0; i < memory.memoryTypeCount; ++i) {
    if ((type_bits & (1u << i)) != 0 && (memory.memoryTypes[i].propertyFlags & properties) == properties) return i;
  }
  throw RenderError("no Vulkan memory type with properties 0x" + std::to_string(properties) + " for type bits " +
                    std::to_string(type_bits));
}

HostBuffer::HostBuffer(VkPhysicalDevice physical_device, VkDevice device, VkDeviceSize size, VkBufferUsageFlags usage)
    : device_(device), size_(size) {
  VkBufferCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  info.size = size;
  info.usage = usage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  Check(vkCreateBuffer(device, &info, nullptr, &buffer_), "vkCreateBuffer");
  try {
    VkMemoryRequirements requirements{};
    vkGetBufferMemoryRequirements(device, buffer_, &requirements);
    VkMemoryAllocateInfo allocate{};
    allocate.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    allocate.allocationSize = requirements.size;
    allocate.memoryTypeIndex =
        FindMemoryType(physical_device, requirements.memoryTypeBits,
                       VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    Check(vkAllocateMemory(device, &allocate, nullptr, &memory_), "vkAllocateMemory");
    Check(vkBindBufferMemory(device, buffer_, memory_, 0), "vkBindBufferMemory");
    Check(vkMapMemory(device, memory_, 0, VK_WHOLE_SIZE, 0, &mapped_), "vkMapMemory");
  } catch (...) {
    Destroy();
    throw;
  }
}

HostBuffer::~HostBuffer() {
  Destroy();
}

HostBuffer& HostBuffer::operator=(HostBuffer&& other) noexcept {
  if (this != &other) {
    Destroy();
    std::swap(device_, other.device_);
    std::swap(buffer_, other.buffer_);
    std::swap(memory_, other.memory_);
    std::swap(size_, other.size_);
    std::swap(mapped_, other.mapped_);
  }
  return *this;
}

void HostBuffer::Destroy() {
  if (device_ == VK_NULL_HANDLE) return;
  if (buffer_ != VK_NULL_HANDLE) vkDestroyBuffer(device_, buffer_, nullptr);
  // Freeing the memory unmaps it.
  if (memory_ != VK_NULL_HANDLE) vkFreeMemory(device_, memory_, nullptr);
  device_ = VK_NULL_HANDLE;
  buffer_ = VK_NULL_HANDLE;
  memory_ = VK_NULL_HANDLE;
  size_ = 0;
  mapped_ = nullptr;
}

GpuImage::GpuImage(VkPhysicalDevice physical_device, VkDevice device, VkExtent2D extent, VkFormat format,
                   VkSampleCountFlagBits samples, VkImageUsageFlags usage, VkImageAspectFlags aspect)
    : device_(device) {
  VkImageCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO;
  info.imageType = VK_IMAGE_TYPE_2D;
  info.format = format;
  info.extent = {extent.width, extent.height, 1};
  info.mipLevels = 1;
  info.arrayLayers = 1;
  info.samples = samples;
  info.tiling = VK_IMAGE_TILING_OPTIMAL;
  info.usage = usage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  Check(vkCreateImage(device, &info, nullptr, &image_), "vkCreateImage");
  try {
    VkMemoryRequirements requirements{};
    vkGetImageMemoryRequirements(device, image_, &requirements);
    VkMemoryAllocateInfo allocate{};
    allocate.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    allocate.allocationSize = requirements.size;
    allocate.memoryTypeIndex =
        FindMemoryType(physical_device, requirements.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    Check(vkAllocateMemory(device, &allocate, nullptr, &memory_), "vkAllocateMemory");
    Check(vkBindImageMemory(device, image_, memory_, 0), "vkBindImageMemory");
    VkImageViewCreateInfo view{};
    view.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO;
    view.image = image_;
    view.viewType = VK_IMAGE_VIEW_TYPE_2D;
    view.format = format;
    view.subresourceRange = {aspect, 0, 1, 0, 1};
    Check(vkCreateImageView(device, &view, nullptr, &view_), "vkCreateImageView");
  } catch (...) {
    Destroy();
    throw;
  }
}

GpuImage::~GpuImage() {
  Destroy();
}

GpuImage& GpuImage::operator=(GpuImage&& other) noexcept {
  if (this != &other) {
    Destroy();
    std::swap(device_, other.device_);
    std::swap(image_, other.image_);
    std::swap(memory_, other.memory_);
    std::swap(view_, other.view_);
  }
  return *this;
}

void GpuImage::Destroy() {
  if (device_ == VK_NULL_HANDLE) return;
  if (view_ != VK_NULL_HANDLE) vkDestroyImageView(device_, view_, nullptr);
  if (image_ != VK_NULL_HANDLE) vkDestroyImage(device_, image_, nullptr);
  if (memory_ != VK_NULL_HANDLE) vkFreeMemory(device_, memory_, nullptr);
  device_ = VK_NULL_HANDLE;
  image_ = VK_NULL_HANDLE;
  memory_ = VK_NULL_HANDLE;
  view_ = VK_NULL_HANDLE;
}

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

std::vector<VkPhysicalDevice> DevicesByPreference(VkInstance instance) {
  std::uint32_t count = 0;
  Check(vkEnumeratePhysicalDevices(instance, &count, nullptr), "vkEnumeratePhysicalDevices");
  std::vector<VkPhysicalDevice> devices(count);
  if (count > 0) Check(vkEnumeratePhysicalDevices(instance, &count, devices.data()), "vkEnumeratePhysicalDevices");
  devices.resize(count);
  const auto rank = [](VkPhysicalDevice d) {
    VkPhysicalDeviceProperties properties{};
    vkGetPhysicalDeviceProperties(d, &properties);
    return DeviceTypeRank(properties.deviceType);
  };
  std::stable_sort(devices.begin(), devices.end(),
                   [&](VkPhysicalDevice a, VkPhysicalDevice b) { return rank(a) < rank(b); });
  return devices;
}

std::optional<std::uint32_t> GraphicsQueueFamily(VkPhysicalDevice physical_device) {
  std::uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical_device, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vkGetPhysicalDeviceQueueFamilyProperties(physical_device, &count, families.data());
  for (std::uint32_t f = 0; f < count; ++f)
    if ((families[f].queueFlags & VK_QUEUE_GRAPHICS_BIT) != 0) return f;
  return std::nullopt;
}

bool SupportsOptimal(VkPhysicalDevice physical_device, VkFormat format, VkFormatFeatureFlags features) {
  VkFormatProperties properties{};
  vkGetPhysicalDeviceFormatProperties(physical_device, format, &properties);
  return (properties.optimalTilingFeatures & features) == features;
}

VkDevice CreateDeviceWithQueue(VkPhysicalDevice physical_device, std::uint32_t queue_family,
                               std::span<const char* const> extensions, VkQueue& queue) {
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info{};
  queue_info.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queue_info.queueFamilyIndex = queue_family;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;
  VkDeviceCreateInfo device_info{};
  device_info.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  device_info.queueCreateInfoCount = 1;
  device_info.pQueueCreateInfos = &queue_info;
  device_info.enabledExtensionCount = static_cast<std::uint32_t>(extensions.size());
  device_info.ppEnabledExtensionNames = extensions.data();
  VkDevice device = VK_NULL_HANDLE;
  Check(vkCreateDevice(physical_device, &device_info, nullptr, &device), "vkCreateDevice");
  vkGetDeviceQueue(device, queue_family, 0, &queue);
  return device;
}

namespace {

// A render pass of `subpass` over `attachments`. Throws RenderError naming `call`.
VkRenderPass CreateOneSubpassPass(VkDevice device, std::span<const VkAttachmentDescription> attachments,
                                  const VkSubpassDescription& subpass,
                                  std::span<const VkSubpassDependency> dependencies, const char* call) {
  VkRenderPassCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO;
  info.attachmentCount = static_cast<std::uint32_t>(attachments.size());
  info.pAttachments = attachments.data();
  info.subpassCount = 1;
  info.pSubpasses = &subpass;
  info.dependencyCount = static_cast<std::uint32_t>(dependencies.size());
  info.pDependencies = dependencies.data();
  VkRenderPass render_pass = VK_NULL_HANDLE;
  Check(vkCreateRenderPass(device, &info, nullptr, &render_pass), call);
  return render_pass;
}

// A single-sample attachment of `format` whose old contents are cleared or dropped (`load_op`) and whose new ones are
// stored, ending in `result_layout`; no stencil.
VkAttachmentDescription StoredAttachment(VkFormat format, VkAttachmentLoadOp load_op, VkImageLayout result_layout) {
  VkAttachmentDescription attachment{};
  attachment.format = format;
  attachment.samples = VK_SAMPLE_COUNT_1_BIT;
  attachment.loadOp = load_op;
  attachment.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
  attachment.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
  attachment.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
  attachment.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  attachment.finalLayout = result_layout;
  return attachment;
}

// The sampler of one mipmap level that filters with `filter` and addresses with `address_mode`.
VkSamplerCreateInfo SamplerInfo(VkFilter filter, VkSamplerAddressMode address_mode) {
  VkSamplerCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO;
  info.magFilter = filter;
  info.minFilter = filter;
  info.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
  info.addressModeU = address_mode;
  info.addressModeV = address_mode;
  info.addressModeW = address_mode;
  info.maxLod = 0.0f;
  return info;
}

}  // namespace

std::array<VkSubpassDependency, 2> ReadBetweenPassesDependencies(
    VkPipelineStageFlags reader_stage, VkAccessFlags reader_access, VkPipelineStageFlags write_wait_stage,
    VkAccessFlags write_wait_access, VkPipelineStageFlags write_stage, VkAccessFlags write_access) {
  std::array<VkSubpassDependency, 2> dependencies{};
  dependencies[0].srcSubpass = VK_SUBPASS_EXTERNAL;
  dependencies[0].dstSubpass = 0;
  dependencies[0].srcStageMask = reader_stage;
  dependencies[0].dstStageMask = write_wait_stage;
  dependencies[0].srcAccessMask = reader_access;
  dependencies[0].dstAccessMask = write_wait_access;
  dependencies[1].srcSubpass = 0;
  dependencies[1].dstSubpass = VK_SUBPASS_EXTERNAL;
  dependencies[1].srcStageMask = write_stage;
  dependencies[1].dstStageMask = reader_stage;
  dependencies[1].srcAccessMask = write_access;
  dependencies[1].dstAccessMask = reader_access;
  return dependencies;
}

VkRenderPass CreateDepthRenderPass(VkDevice device, VkFormat format, VkImageLayout result_layout,
                                   std::span<const VkSubpassDependency> dependencies, const char* call) {
  const VkAttachmentDescription depth = StoredAttachment(format, VK_ATTACHMENT_LOAD_OP_CLEAR, result_layout);
  const VkAttachmentReference depth_reference{0, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
  VkSubpassDescription subpass{};
  subpass.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
  subpass.pDepthStencilAttachment = &depth_reference;
  return CreateOneSubpassPass(device, {&depth, 1}, subpass, dependencies, call);
}

VkRenderPass CreateColorDepthRenderPass(VkDevice device, VkFormat color_format, VkFormat depth_format,
                                        VkSampleCountFlagBits samples, VkImageLayout result_layout,
                                        std::span<const VkSubpassDependency> dependencies, const char* call,
                                        VkImageLayout depth_result_layout) {
  const bool multisampled = samples != VK_SAMPLE_COUNT_1_BIT;
  std::array<VkAttachmentDescription, 3> attachments{};
  attachments[0].format = color_format;
  attachments[0].samples = samples;
  attachments[0].loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
  attachments[0].storeOp = multisampled ? VK_ATTACHMENT_STORE_OP_DONT_CARE : VK_ATTACHMENT_STORE_OP_STORE;
  attachments[0].stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
  attachments[0].stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
  attachments[0].initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  attachments[0].finalLayout = multisampled ? VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL : result_layout;
  attachments[1] = attachments[0];
  attachments[1].format = depth_format;
  const bool depth_stored = depth_result_layout != VK_IMAGE_LAYOUT_UNDEFINED;
  attachments[1].storeOp = depth_stored ? VK_ATTACHMENT_STORE_OP_STORE : VK_ATTACHMENT_STORE_OP_DONT_CARE;
  attachments[1].finalLayout = depth_stored ? depth_result_layout : VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL;
  attachments[2] = attachments[0];
  attachments[2].samples = VK_SAMPLE_COUNT_1_BIT;
  attachments[2].loadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
  attachments[2].storeOp = VK_ATTACHMENT_STORE_OP_STORE;
  attachments[2].finalLayout = result_layout;
  const VkAttachmentReference color_reference{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  const VkAttachmentReference depth_reference{1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
  const VkAttachmentReference resolve_reference{2, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  VkSubpassDescription subpass{};
  subpass.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
  subpass.colorAttachmentCount = 1;
  subpass.pColorAttachments = &color_reference;
  subpass.pResolveAttachments = multisampled ? &resolve_reference : nullptr;
  subpass.pDepthStencilAttachment = &depth_reference;
  return CreateOneSubpassPass(device, std::span(attachments).first(multisampled ? 3 : 2), subpass, dependencies, call);
}

VkRenderPass CreateColorRenderPass(VkDevice device, VkFormat format, VkAttachmentLoadOp load_op,
                                   VkImageLayout result_layout, VkPipelineStageFlags reader_stage,
                                   VkAccessFlags reader_access, const char* call) {
  const std::array<VkSubpassDependency, 2> dependencies = ReadBetweenPassesDependencies(
      reader_stage, reader_access, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
      VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT);
  const VkAttachmentDescription color = StoredAttachment(format, load_op, result_layout);
  const VkAttachmentReference color_reference{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  VkSubpassDescription subpass{};
  subpass.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
  subpass.colorAttachmentCount = 1;
  subpass.pColorAttachments = &color_reference;
  return CreateOneSubpassPass(device, {&color, 1}, subpass, dependencies, call);
}

VkFramebuffer CreateFramebuffer(VkDevice device, VkRenderPass render_pass, std::span<const VkImageView> attachments,
                                VkExtent2D extent, const char* call) {
  VkFramebufferCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO;
  info.renderPass = render_pass;
  info.attachmentCount = static_cast<std::uint32_t>(attachments.size());
  info.pAttachments = attachments.data();
  info.width = extent.width;
  info.height = extent.height;
  info.layers = 1;
  VkFramebuffer framebuffer = VK_NULL_HANDLE;
  Check(vkCreateFramebuffer(device, &info, nullptr, &framebuffer), call);
  return framebuffer;
}

VkSampler CreateClampToEdgeSampler(VkDevice device, VkFilter filter, const char* call) {
  const VkSamplerCreateInfo info = SamplerInfo(filter, VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE);
  VkSampler sampler = VK_NULL_HANDLE;
  Check(vkCreateSampler(device, &info, nullptr, &sampler), call);
  return sampler;
}

VkSampler CreateDepthCompareSampler(VkDevice device, const char* call) {
  // Outside the image the border reads as 1, the far plane, so a comparison with any depth passes.
  VkSamplerCreateInfo info = SamplerInfo(VK_FILTER_NEAREST, VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER);
  info.borderColor = VK_BORDER_COLOR_FLOAT_OPAQUE_WHITE;
  info.compareEnable = VK_TRUE;
  info.compareOp = VK_COMPARE_OP_LESS_OR_EQUAL;
  VkSampler sampler = VK_NULL_HANDLE;
  Check(vkCreateSampler(device, &info, nullptr, &sampler), call);
  return sampler;
}

namespace {

// The write of one descriptor of `type` at `binding` of `set`; the caller points it at its image or buffer.
VkWriteDescriptorSet DescriptorWrite(VkDescriptorSet set, std::uint32_t binding, VkDescriptorType type) {
  VkWriteDescriptorSet write{};
  write.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
  write.dstSet = set;
  write.dstBinding = binding;
  write.descriptorCount = 1;
  write.descriptorType = type;
  return write;
}

}  // namespace

void WriteImageDescriptor(VkDevice device, VkDescriptorSet set, std::uint32_t binding, VkSampler sampler,
                          VkImageView view, VkImageLayout layout) {
  const VkDescriptorImageInfo image_info{sampler, view, layout};
  VkWriteDescriptorSet write = DescriptorWrite(set, binding, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER);
  write.pImageInfo = &image_info;
  vkUpdateDescriptorSets(device, 1, &write, 0, nullptr);
}

void WriteBufferDescriptor(VkDevice device, VkDescriptorSet set, std::uint32_t binding, VkDescriptorType type,
                           const VkDescriptorBufferInfo& buffer_info) {
  VkWriteDescriptorSet write = DescriptorWrite(set, binding, type);
  write.pBufferInfo = &buffer_info;
  vkUpdateDescriptorSets(device, 1, &write, 0, nullptr);
}

void BeginRenderPass(VkCommandBuffer command_buffer, VkRenderPass render_pass, VkFramebuffer framebuffer,
                     VkExtent2D extent, std::span<const VkClearValue> clears) {
  VkRenderPassBeginInfo begin{};
  begin.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO;
  begin.renderPass = render_pass;
  begin.framebuffer = framebuffer;
  begin.renderArea = {{0, 0}, extent};
  begin.clearValueCount = static_cast<std::uint32_t>(clears.size());
  begin.pClearValues = clears.data();
  vkCmdBeginRenderPass(command_buffer, &begin, VK_SUBPASS_CONTENTS_INLINE);
}

void SetViewportAndScissor(VkCommandBuffer command_buffer, VkExtent2D extent) {
  const VkViewport viewport{0, 0, static_cast<float>(extent.width), static_cast<float>(extent.height), 0, 1};
  const VkRect2D scissor{{0, 0}, extent};
  vkCmdSetViewport(command_buffer, 0, 1, &viewport);
  vkCmdSetScissor(command_buffer, 0, 1, &scissor);
}

std::optional<VkFormat> FindDepthFormat(VkPhysicalDevice physical_device, VkFormatFeatureFlags features) {
  for (VkFormat format : {VK_FORMAT_D32_SFLOAT, VK_FORMAT_D24_UNORM_S8_UINT, VK_FORMAT_D32_SFLOAT_S8_UINT}) {
    if (SupportsOptimal(physical_device, format, features)) return format;
  }
  return std::nullopt;
}

void RecordHostReadBarrier(VkCommandBuffer command_buffer, VkBuffer buffer) {
  VkBufferMemoryBarrier to_host{};
  to_host.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER;
  to_host.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  to_host.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  to_host.srcQueueFamilyIndex = to_host.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  to_host.buffer = buffer;
  to_host.size = VK_WHOLE_SIZE;
  vkCmdPipelineBarrier(command_buffer, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0, nullptr, 1,
                       &to_host, 0, nullptr);
}

}  // namespace ductile::render
