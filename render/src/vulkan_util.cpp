#include "vulkan_util.h"

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

std::optional<VkFormat> FindDepthFormat(VkPhysicalDevice physical_device, VkFormatFeatureFlags features) {
  for (VkFormat format : {VK_FORMAT_D32_SFLOAT, VK_FORMAT_D24_UNORM_S8_UINT, VK_FORMAT_D32_SFLOAT_S8_UINT}) {
    VkFormatProperties properties{};
    vkGetPhysicalDeviceFormatProperties(physical_device, format, &properties);
    if ((properties.optimalTilingFeatures & features) == features) return format;
  }
  return std::nullopt;
}

}  // namespace ductile::render
