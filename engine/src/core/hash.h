// FNV-1a, 64 bit: a stable hash of byte ranges for state-determinism checks and model fingerprints (not for
// security); and the heap bytes of a vector, for memory budgets.
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
  /// A vector's length, then its elements' bytes (of trivially copyable elements).
  template <typename Vector>
  void AddVector(const Vector& v) {
    const std::uint64_t n = v.size();
    Add(&n, sizeof(n));
    Add(v.data(), sizeof(v[0]) * v.size());
  }
  std::uint64_t value() const { return hash_; }

 private:
  std::uint64_t hash_ = 0xCBF29CE484222325ull;
};

/// The heap bytes a vector holds (its capacity), for memory budgets (State::MemoryBytes).
template <typename Vector>
std::size_t HeapBytes(const Vector& v) {
  return v.capacity() * sizeof(typename Vector::value_type);
}

}  // namespace ductile
