// The few vector and matrix operations the renderer needs on the RenderScene's column-major Mat4 (element (row r,
// column c) at [4c + r]). Clip space is Vulkan's: x right, y down, depth 0 at the near plane and 1 at the far one.
#pragma once

#include "ductile/render/render_scene.h"

namespace ductile::render {

Vec3 Add(const Vec3& a, const Vec3& b);
Vec3 Subtract(const Vec3& a, const Vec3& b);
Vec3 Scale(const Vec3& a, float s);
float Dot(const Vec3& a, const Vec3& b);
Vec3 Cross(const Vec3& a, const Vec3& b);
float Length(const Vec3& a);
/// `a` / |a|; `fallback` when |a| is zero or not finite.
Vec3 Normalize(const Vec3& a, const Vec3& fallback);

/// a * b.
Mat4 Multiply(const Mat4& a, const Mat4& b);
/// m * (p, 1), dropping w (for affine m).
Vec3 TransformPoint(const Mat4& m, const Vec3& p);

/// The right-handed view transform of a camera at `eye` looking at `target` (camera looks along -z, y up).
/// `up` may be parallel to the view direction; another axis is then used.
Mat4 LookAt(const Vec3& eye, const Vec3& target, const Vec3& up);
/// Perspective projection to Vulkan clip space; `fov_y` [rad], `aspect` width / height, planes [m], 0 < near < far.
Mat4 Perspective(float fov_y, float aspect, float near_plane, float far_plane);
/// The inverse of Perspective's depth: the distance along the viewing axis [m] of window depth d ∈ [0, 1),
/// z = f n / (f − d (f − n)); +infinity for d ≥ 1 (the far plane, where a cleared depth buffer says nothing was drawn).
double ViewDepth(double d, double near_plane, double far_plane);
/// Orthographic projection of the view-space box [left, right] x [bottom, top] x [-far, -near] to Vulkan clip
/// space, without flipping y (a shadow map is sampled with the same convention it is rendered with).
Mat4 Orthographic(float left, float right, float bottom, float top, float near_plane, float far_plane);

/// The inverse transpose of the upper 3x3 block of `m` as a Mat4 (zero translation), which maps mesh-frame normals
/// to world normals under non-uniform scale. The identity when the block is singular.
Mat4 NormalMatrix(const Mat4& m);

}  // namespace ductile::render
