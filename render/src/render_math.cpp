#include "render_math.h"

#include <cmath>
#include <limits>

namespace ductile::render {

Vec3 Add(const Vec3& a, const Vec3& b) {
  return {a[0] + b[0], a[1] + b[1], a[2] + b[2]};
}
Vec3 Subtract(const Vec3& a, const Vec3& b) {
  return {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
}
Vec3 Scale(const Vec3& a, float s) {
  return {a[0] * s, a[1] * s, a[2] * s};
}
float Dot(const Vec3& a, const Vec3& b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
Vec3 Cross(const Vec3& a, const Vec3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
float Length(const Vec3& a) {
  return std::sqrt(Dot(a, a));
}

Vec3 Normalize(const Vec3& a, const Vec3& fallback) {
  const float length = Length(a);
  if (!(length > 0.0f) || !std::isfinite(length)) return fallback;
  return Scale(a, 1.0f / length);
}

Mat4 Multiply(const Mat4& a, const Mat4& b) {
  Mat4 result{};
  for (int c = 0; c < 4; ++c) {
    for (int r = 0; r < 4; ++r) {
      float sum = 0.0f;
      for (int k = 0; k < 4; ++k) sum += a[4 * k + r] * b[4 * c + k];
      result[4 * c + r] = sum;
    }
  }
  return result;
}

Vec3 TransformPoint(const Mat4& m, const Vec3& p) {
  Vec3 result{};
  for (int r = 0; r < 3; ++r) result[r] = m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r];
  return result;
}

Mat4 LookAt(const Vec3& eye, const Vec3& target, const Vec3& up) {
  const Vec3 forward = Normalize(Subtract(target, eye), {0, 1, 0});
  Vec3 right = Cross(forward, up);
  if (Length(right) < 1e-6f * Length(up))
    right = Cross(forward, std::fabs(forward[2]) < 0.9f ? Vec3{0, 0, 1} : Vec3{1, 0, 0});
  right = Normalize(right, {1, 0, 0});
  const Vec3 camera_up = Cross(right, forward);
  // Rows of the rotation are the camera axes; the camera looks along -z.
  return {right[0], camera_up[0], -forward[0], 0, right[1],         camera_up[1],         -forward[1],       0,
          right[2], camera_up[2], -forward[2], 0, -Dot(right, eye), -Dot(camera_up, eye), Dot(forward, eye), 1};
}

Mat4 Perspective(float fov_y, float aspect, float near_plane, float far_plane) {
  const float f = 1.0f / std::tan(0.5f * fov_y);
  Mat4 m{};
  m[0] = f / aspect;
  m[5] = -f;  // Vulkan's y points down.
  m[10] = far_plane / (near_plane - far_plane);
  m[11] = -1.0f;
  m[14] = near_plane * far_plane / (near_plane - far_plane);
  return m;
}

double ViewDepth(double d, double near_plane, double far_plane) {
  if (d >= 1.0) return std::numeric_limits<double>::infinity();
  return far_plane * near_plane / (far_plane - d * (far_plane - near_plane));
}

Mat4 Orthographic(float left, float right, float bottom, float top, float near_plane, float far_plane) {
  Mat4 m{};
  m[0] = 2.0f / (right - left);
  m[5] = 2.0f / (top - bottom);
  m[10] = 1.0f / (near_plane - far_plane);
  m[12] = -(right + left) / (right - left);
  m[13] = -(top + bottom) / (top - bottom);
  m[14] = near_plane / (near_plane - far_plane);
  m[15] = 1.0f;
  return m;
}

Mat4 NormalMatrix(const Mat4& m) {
  // a(r, c) is the 3x3 block; its inverse transpose is the cofactor matrix divided by the determinant.
  auto a = [&m](int r, int c) { return m[4 * c + r]; };
  const float c00 = a(1, 1) * a(2, 2) - a(1, 2) * a(2, 1);
  const float c01 = a(1, 2) * a(2, 0) - a(1, 0) * a(2, 2);
  const float c02 = a(1, 0) * a(2, 1) - a(1, 1) * a(2, 0);
  const float c10 = a(0, 2) * a(2, 1) - a(0, 1) * a(2, 2);
  const float c11 = a(0, 0) * a(2, 2) - a(0, 2) * a(2, 0);
  const float c12 = a(0, 1) * a(2, 0) - a(0, 0) * a(2, 1);
  const float c20 = a(0, 1) * a(1, 2) - a(0, 2) * a(1, 1);
  const float c21 = a(0, 2) * a(1, 0) - a(0, 0) * a(1, 2);
  const float c22 = a(0, 0) * a(1, 1) - a(0, 1) * a(1, 0);
  const float determinant = a(0, 0) * c00 + a(0, 1) * c01 + a(0, 2) * c02;
  if (!(std::fabs(determinant) > 0.0f) || !std::isfinite(determinant)) return kIdentity4;
  const float s = 1.0f / determinant;
  // Element (r, c) of the inverse transpose is cofactor(r, c) / det.
  return {c00 * s, c10 * s, c20 * s, 0, c01 * s, c11 * s, c21 * s, 0, c02 * s, c12 * s, c22 * s, 0, 0, 0, 0, 1};
}

}  // namespace ductile::render
