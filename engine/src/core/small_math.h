// Small fixed-size vectors and matrices for kernels (SIM_HD): 3-vectors and row-major 3x3 matrices over float
// or double. Eigen serves the host-side code; kernels use these so the same source compiles under nvcc
// without Eigen's device restrictions.
#pragma once

#include <cmath>

#include "core/sim_hd.h"

namespace ductile {

template <typename T>
struct Vec3 {
  T x{}, y{}, z{};

  constexpr Vec3() = default;
  SIM_HD constexpr Vec3(T x_in, T y_in, T z_in) : x(x_in), y(y_in), z(z_in) {}
  SIM_HD static constexpr Vec3 Constant(T s) { return {s, s, s}; }

  SIM_HD T& operator[](int i) { return i == 0 ? x : (i == 1 ? y : z); }
  SIM_HD const T& operator[](int i) const { return i == 0 ? x : (i == 1 ? y : z); }

  SIM_HD Vec3 operator+(const Vec3& o) const { return {x + o.x, y + o.y, z + o.z}; }
  SIM_HD Vec3 operator-(const Vec3& o) const { return {x - o.x, y - o.y, z - o.z}; }
  SIM_HD Vec3 operator-() const { return {-x, -y, -z}; }
  SIM_HD Vec3 operator*(T s) const { return {x * s, y * s, z * s}; }
  SIM_HD Vec3 operator/(T s) const { return {x / s, y / s, z / s}; }
  SIM_HD Vec3& operator+=(const Vec3& o) {
    x += o.x;
    y += o.y;
    z += o.z;
    return *this;
  }
  SIM_HD Vec3& operator-=(const Vec3& o) {
    x -= o.x;
    y -= o.y;
    z -= o.z;
    return *this;
  }
  SIM_HD Vec3& operator*=(T s) {
    x *= s;
    y *= s;
    z *= s;
    return *this;
  }
};

template <typename T>
SIM_HD Vec3<T> operator*(T s, const Vec3<T>& v) {
  return v * s;
}
template <typename T>
SIM_HD T Dot(const Vec3<T>& a, const Vec3<T>& b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
template <typename T>
SIM_HD Vec3<T> Cross(const Vec3<T>& a, const Vec3<T>& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
template <typename T>
SIM_HD T SquaredNorm(const Vec3<T>& a) {
  return Dot(a, a);
}
template <typename T>
SIM_HD T Norm(const Vec3<T>& a) {
  return std::sqrt(Dot(a, a));
}
template <typename T>
SIM_HD Vec3<T> CwiseProduct(const Vec3<T>& a, const Vec3<T>& b) {
  return {a.x * b.x, a.y * b.y, a.z * b.z};
}

/// Row-major 3x3 matrix: m[r][c].
template <typename T>
struct Mat3 {
  T m[3][3]{};

  SIM_HD static constexpr Mat3 Zero() { return Mat3{}; }
  SIM_HD static constexpr Mat3 Identity() { return Diagonal(T(1), T(1), T(1)); }
  SIM_HD static constexpr Mat3 Diagonal(T a, T b, T c) {
    Mat3 r{};
    r.m[0][0] = a;
    r.m[1][1] = b;
    r.m[2][2] = c;
    return r;
  }
  SIM_HD static constexpr Mat3 Diagonal(const Vec3<T>& d) { return Diagonal(d.x, d.y, d.z); }
  /// The outer product a bᵀ.
  SIM_HD static Mat3 Outer(const Vec3<T>& a, const Vec3<T>& b) {
    Mat3 r;
    SIM_UNROLL
    for (int i = 0; i < 3; ++i) SIM_UNROLL
    for (int j = 0; j < 3; ++j) r.m[i][j] = a[i] * b[j];
    return r;
  }
  SIM_HD static Mat3 FromColumns(const Vec3<T>& c0, const Vec3<T>& c1, const Vec3<T>& c2) {
    Mat3 r;
    SIM_UNROLL
    for (int i = 0; i < 3; ++i) {
      r.m[i][0] = c0[i];
      r.m[i][1] = c1[i];
      r.m[i][2] = c2[i];
    }
    return r;
  }

  SIM_HD T& operator()(int r, int c) { return m[r][c]; }
  SIM_HD const T& operator()(int r, int c) const { return m[r][c]; }
  SIM_HD Vec3<T> Column(int c) const { return {m[0][c], m[1][c], m[2][c]}; }
  SIM_HD Vec3<T> Row(int r) const { return {m[r][0], m[r][1], m[r][2]}; }

  SIM_HD Mat3 operator+(const Mat3& o) const {
    Mat3 r;
    SIM_UNROLL
    for (int i = 0; i < 3; ++i) SIM_UNROLL
    for (int j = 0; j < 3; ++j) r.m[i][j] = m[i][j] + o.m[i][j];
    return r;
  }
  SIM_HD Mat3 operator-(const Mat3& o) const {
    Mat3 r;
    SIM_UNROLL
    for (int i = 0; i < 3; ++i) SIM_UNROLL
    for (int j = 0; j < 3; ++j) r.m[i][j] = m[i][j] - o.m[i][j];
    return r;
  }
  SIM_HD Mat3 operator*(T s) const {
    Mat3 r;
    SIM_UNROLL
    for (int i = 0; i < 3; ++i) SIM_UNROLL
    for (int j = 0; j < 3; ++j) r.m[i][j] = m[i][j] * s;
    return r;
  }
  SIM_HD Mat3& operator+=(const Mat3& o) {
    SIM_UNROLL
    for (int i = 0; i < 3; ++i) SIM_UNROLL
    for (int j = 0; j < 3; ++j) m[i][j] += o.m[i][j];
    return *this;
  }
  SIM_HD Mat3& operator-=(const Mat3& o) {
    SIM_UNROLL
    for (int i = 0; i < 3; ++i) SIM_UNROLL
    for (int j = 0; j < 3; ++j) m[i][j] -= o.m[i][j];
    return *this;
  }
  SIM_HD Mat3& operator*=(T s) {
    SIM_UNROLL
    for (int i = 0; i < 3; ++i) SIM_UNROLL
    for (int j = 0; j < 3; ++j) m[i][j] *= s;
    return *this;
  }
  SIM_HD Mat3 operator*(const Mat3& o) const {
    Mat3 r;
    SIM_UNROLL
    for (int i = 0; i < 3; ++i) SIM_UNROLL
    for (int j = 0; j < 3; ++j) r.m[i][j] = m[i][0] * o.m[0][j] + m[i][1] * o.m[1][j] + m[i][2] * o.m[2][j];
    return r;
  }
  SIM_HD Vec3<T> operator*(const Vec3<T>& v) const {
    return {m[0][0] * v.x + m[0][1] * v.y + m[0][2] * v.z, m[1][0] * v.x + m[1][1] * v.y + m[1][2] * v.z,
            m[2][0] * v.x + m[2][1] * v.y + m[2][2] * v.z};
  }
  SIM_HD Mat3 Transposed() const {
    Mat3 r;
    SIM_UNROLL
    for (int i = 0; i < 3; ++i) SIM_UNROLL
    for (int j = 0; j < 3; ++j) r.m[i][j] = m[j][i];
    return r;
  }
  SIM_HD T Trace() const { return m[0][0] + m[1][1] + m[2][2]; }
  SIM_HD T Determinant() const {
    return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
           m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
  }
  /// The cofactor matrix: cof(A) = det(A) A⁻ᵀ, defined also for singular A.
  SIM_HD Mat3 Cofactor() const {
    Mat3 r;
    r.m[0][0] = m[1][1] * m[2][2] - m[1][2] * m[2][1];
    r.m[0][1] = m[1][2] * m[2][0] - m[1][0] * m[2][2];
    r.m[0][2] = m[1][0] * m[2][1] - m[1][1] * m[2][0];
    r.m[1][0] = m[0][2] * m[2][1] - m[0][1] * m[2][2];
    r.m[1][1] = m[0][0] * m[2][2] - m[0][2] * m[2][0];
    r.m[1][2] = m[0][1] * m[2][0] - m[0][0] * m[2][1];
    r.m[2][0] = m[0][1] * m[1][2] - m[0][2] * m[1][1];
    r.m[2][1] = m[0][2] * m[1][0] - m[0][0] * m[1][2];
    r.m[2][2] = m[0][0] * m[1][1] - m[0][1] * m[1][0];
    return r;
  }
  /// The inverse; the caller guarantees det ≠ 0.
  SIM_HD Mat3 Inverse() const { return Cofactor().Transposed() * (T(1) / Determinant()); }
  /// Frobenius inner product A : B.
  SIM_HD T DoubleDot(const Mat3& o) const {
    T s = 0;
    SIM_UNROLL
    for (int i = 0; i < 3; ++i) SIM_UNROLL
    for (int j = 0; j < 3; ++j) s += m[i][j] * o.m[i][j];
    return s;
  }
  SIM_HD T SquaredNorm() const { return DoubleDot(*this); }
};

template <typename T>
SIM_HD Mat3<T> operator*(T s, const Mat3<T>& a) {
  return a * s;
}

template <typename To, typename From>
SIM_HD Mat3<To> Cast(const Mat3<From>& a) {
  Mat3<To> r;
  SIM_UNROLL
  for (int i = 0; i < 3; ++i) SIM_UNROLL
  for (int j = 0; j < 3; ++j) r.m[i][j] = static_cast<To>(a.m[i][j]);
  return r;
}
template <typename To, typename From>
SIM_HD Vec3<To> Cast(const Vec3<From>& a) {
  return {static_cast<To>(a.x), static_cast<To>(a.y), static_cast<To>(a.z)};
}

using Vec3f = Vec3<float>;
using Vec3d = Vec3<double>;
using Mat3f = Mat3<float>;
using Mat3d = Mat3<double>;

}  // namespace ductile
