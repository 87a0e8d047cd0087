// Binary archives for saving and restoring a State. Each type lists its fields once, in a
// `template <typename Archive> void Serialize(Archive& ar)` member (or a free `Serialize(Archive&, T&)`), and the
// same function both writes (ArchiveWriter) and reads (ArchiveReader) them, so the two directions cannot drift
// apart. The layout is the host's (little-endian x86-64 and aarch64): a state file is for continuing a run on the
// same kind of machine, not an interchange format. Sizes are written as 64-bit counts.
#pragma once

#include <Eigen/Core>
#include <array>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace ductile {

/// A read past the end of the data, or a count that cannot fit in it: the data is truncated or corrupt.
class ArchiveError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace archive_detail {
template <typename T>
struct IsStdVector : std::false_type {};
template <typename T, typename A>
struct IsStdVector<std::vector<T, A>> : std::true_type {};
template <typename T>
struct IsStdArray : std::false_type {};
template <typename T, std::size_t N>
struct IsStdArray<std::array<T, N>> : std::true_type {};
template <typename T, typename Archive>
concept HasSerialize = requires(T& t, Archive& ar) {
  t.Serialize(ar);
};
template <typename T>
concept EigenDense = std::is_base_of_v<Eigen::DenseBase<T>, T>;
}  // namespace archive_detail

/// Appends fields to a byte buffer.
class ArchiveWriter {
 public:
  static constexpr bool kReading = false;

  /// Writes `value`. Serialize members take a non-const reference for both directions; writing never changes it.
  template <typename T>
  void operator()(const T& value) {
    Field(const_cast<T&>(value));
  }
  template <typename T, typename... Rest>
  void operator()(const T& value, const Rest&... rest) {
    (*this)(value);
    (*this)(rest...);
  }
  void Bytes(const void* data, std::size_t size) {
    const auto* p = static_cast<const std::uint8_t*>(data);
    bytes_.insert(bytes_.end(), p, p + size);
  }
  const std::vector<std::uint8_t>& bytes() const { return bytes_; }
  std::vector<std::uint8_t> Take() { return std::move(bytes_); }

 private:
  template <typename T>
  void Field(T& value);
  std::vector<std::uint8_t> bytes_;
};

/// Reads fields back from bytes that an ArchiveWriter wrote; throws ArchiveError when they run out.
class ArchiveReader {
 public:
  static constexpr bool kReading = true;

  ArchiveReader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}

  template <typename T>
  void operator()(T& value) {
    Field(value);
  }
  template <typename T, typename... Rest>
  void operator()(T& value, Rest&... rest) {
    (*this)(value);
    (*this)(rest...);
  }
  void Bytes(void* data, std::size_t size) {
    if (size > size_ - offset_) throw ArchiveError("the data ends early (truncated)");
    if (size > 0) std::memcpy(data, data_ + offset_, size);
    offset_ += size;
  }
  /// A count of elements of `element_bytes` each, checked against the bytes left.
  std::size_t Count(std::size_t element_bytes) {
    std::uint64_t n = 0;
    Bytes(&n, sizeof(n));
    if (element_bytes > 0 && n > (size_ - offset_) / element_bytes)
      throw ArchiveError("a count of " + std::to_string(n) + " does not fit in the data left (truncated or corrupt)");
    return static_cast<std::size_t>(n);
  }
  std::size_t remaining() const { return size_ - offset_; }

 private:
  template <typename T>
  void Field(T& value);
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t offset_ = 0;
};

template <typename T>
void ArchiveWriter::Field(T& value) {
  using namespace archive_detail;
  if constexpr (HasSerialize<T, ArchiveWriter>) {
    value.Serialize(*this);
  } else if constexpr (std::is_same_v<T, std::string>) {
    const std::uint64_t n = value.size();
    Bytes(&n, sizeof(n));
    Bytes(value.data(), value.size());
  } else if constexpr (EigenDense<T>) {
    const std::int64_t rows = value.rows(), cols = value.cols();
    Bytes(&rows, sizeof(rows));
    Bytes(&cols, sizeof(cols));
    Bytes(value.data(), sizeof(typename T::Scalar) * static_cast<std::size_t>(value.size()));
  } else if constexpr (IsStdVector<T>::value) {
    const std::uint64_t n = value.size();
    Bytes(&n, sizeof(n));
    using E = typename T::value_type;
    static_assert(!std::is_same_v<E, bool>, "std::vector<bool> has no contiguous storage");
    if constexpr (std::is_trivially_copyable_v<E> && !EigenDense<E> && !HasSerialize<E, ArchiveWriter>) {
      Bytes(value.data(), sizeof(E) * value.size());
    } else {
      for (E& e : value) Field(e);
    }
  } else if constexpr (IsStdArray<T>::value && !std::is_trivially_copyable_v<T>) {
    for (auto& e : value) Field(e);
  } else {
    static_assert(std::is_trivially_copyable_v<T>, "give the type a Serialize member");
    Bytes(&value, sizeof(T));
  }
}

template <typename T>
void ArchiveReader::Field(T& value) {
  using namespace archive_detail;
  if constexpr (HasSerialize<T, ArchiveReader>) {
    value.Serialize(*this);
  } else if constexpr (std::is_same_v<T, std::string>) {
    value.resize(Count(1));
    Bytes(value.data(), value.size());
  } else if constexpr (EigenDense<T>) {
    std::int64_t rows = 0, cols = 0;
    Bytes(&rows, sizeof(rows));
    Bytes(&cols, sizeof(cols));
    const bool fits_fixed = (T::RowsAtCompileTime == Eigen::Dynamic || T::RowsAtCompileTime == rows) &&
                            (T::ColsAtCompileTime == Eigen::Dynamic || T::ColsAtCompileTime == cols);
    const std::size_t scalar = sizeof(typename T::Scalar);
    if (rows < 0 || cols < 0 || !fits_fixed ||
        (rows > 0 && static_cast<std::size_t>(cols) > remaining() / scalar / static_cast<std::size_t>(rows)))
      throw ArchiveError("a matrix of " + std::to_string(rows) + "x" + std::to_string(cols) +
                         " does not fit (truncated or corrupt)");
    value.resize(rows, cols);
    Bytes(value.data(), scalar * static_cast<std::size_t>(value.size()));
  } else if constexpr (IsStdVector<T>::value) {
    using E = typename T::value_type;
    if constexpr (std::is_trivially_copyable_v<E> && !EigenDense<E> && !HasSerialize<E, ArchiveReader>) {
      value.resize(Count(sizeof(E)));
      Bytes(value.data(), sizeof(E) * value.size());
    } else {
      value.resize(Count(1));
      for (E& e : value) Field(e);
    }
  } else if constexpr (IsStdArray<T>::value && !std::is_trivially_copyable_v<T>) {
    for (auto& e : value) Field(e);
  } else {
    static_assert(std::is_trivially_copyable_v<T>, "give the type a Serialize member");
    Bytes(&value, sizeof(T));
  }
}

}  // namespace ductile
