// FNV-1a, 64 bit: a stable hash of byte ranges for state-determinism checks (not for security).
#pragma once

#include <cstddef>
#include <cstdint>

namespace ductile {

class Fnv1a64 {
 public:
  void Add(const void* data, std::size_t bytes) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < bytes; ++i) {
      hash_ ^= p[i];
      hash_ *= 0x100000001B3ull;
    }
  }
  std::uint64_t value() const { return hash_; }

 private:
  std::uint64_t hash_ = 0xCBF29CE484222325ull;
};

}  // namespace ductile
