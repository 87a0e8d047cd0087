// Spatial (6D) vector algebra in world coordinates (Featherstone, "Rigid Body Dynamics Algorithms", 2008, ch. 2).
//
// Every spatial quantity here is expressed in the world frame W and taken about the world origin O, so no frame
// transforms are needed between bodies:
//   motion  V = (ω, v_O)   ω the angular velocity, v_O the velocity of the body-fixed point at O [rad/s, m/s];
//   force   f = (n_O, f)   n_O the moment about O, f the force [N·m, N];
//   inertia I_O = [[Ī + m[c]×[c]×ᵀ, m[c]×], [m[c]×ᵀ, m·1]], c the centre of mass, Ī the rotational inertia
//           about it (world axes); momentum h = I_O V.
// The velocity of a body point at p is v_O + ω × p.
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>

namespace ductile::multibody {

using Vector6d = Eigen::Matrix<double, 6, 1>;
using Matrix6d = Eigen::Matrix<double, 6, 6>;
using Matrix6Xd = Eigen::Matrix<double, 6, Eigen::Dynamic>;

/// [a]×: the matrix of the cross product, [a]× b = a × b.
inline Eigen::Matrix3d Skew(const Eigen::Vector3d& a) {
  Eigen::Matrix3d s;
  s << 0, -a.z(), a.y(), a.z(), 0, -a.x(), -a.y(), a.x(), 0;
  return s;
}

/// V ×ₘ U, the spatial motion cross product (Featherstone Eq. 2.31): (ω × u_ω, v × u_ω + ω × u_v).
inline Vector6d CrossMotion(const Vector6d& V, const Vector6d& U) {
  Vector6d r;
  r.head<3>() = V.head<3>().cross(U.head<3>());
  r.tail<3>() = V.tail<3>().cross(U.head<3>()) + V.head<3>().cross(U.tail<3>());
  return r;
}

/// V ×* f, the spatial force cross product (Featherstone Eq. 2.32): (ω × n + v × f, ω × f).
inline Vector6d CrossForce(const Vector6d& V, const Vector6d& f) {
  Vector6d r;
  r.head<3>() = V.head<3>().cross(f.head<3>()) + V.tail<3>().cross(f.tail<3>());
  r.tail<3>() = V.head<3>().cross(f.tail<3>());
  return r;
}

/// The spatial inertia about the world origin of a body of mass m [kg] with centre of mass p_WCm [m] and
/// rotational inertia I_Cm_W about it in world axes [kg·m²].
inline Matrix6d SpatialInertiaAtOrigin(double m, const Eigen::Vector3d& p_WCm, const Eigen::Matrix3d& I_Cm_W) {
  const Eigen::Matrix3d c = Skew(p_WCm);
  Matrix6d I;
  I.topLeftCorner<3, 3>() = I_Cm_W + m * c * c.transpose();
  I.topRightCorner<3, 3>() = m * c;
  I.bottomLeftCorner<3, 3>() = m * c.transpose();
  I.bottomRightCorner<3, 3>() = m * Eigen::Matrix3d::Identity();
  return I;
}

/// The spatial velocity about the origin of a frame whose origin at p_WB moves with v_WB and turns with w_WB.
inline Vector6d SpatialVelocityAtOrigin(const Eigen::Vector3d& w_WB, const Eigen::Vector3d& v_WB,
                                        const Eigen::Vector3d& p_WB) {
  Vector6d V;
  V.head<3>() = w_WB;
  V.tail<3>() = v_WB - w_WB.cross(p_WB);
  return V;
}

/// The velocity of the body point at p_WQ [m] of a body moving with spatial velocity V [m/s].
inline Eigen::Vector3d PointVelocity(const Vector6d& V, const Eigen::Vector3d& p_WQ) {
  return V.tail<3>() + V.head<3>().cross(p_WQ);
}

}  // namespace ductile::multibody
