// The projective terms' projections and their derivatives (the formulas: pd/pd_projection.h).
#include "pd/pd_projection.h"

#include <cmath>

#include "core/small_math_eigen.h"
#include "core/svd3.h"

namespace ductile::pd {

namespace {

/// The signed polar decomposition (core/signed_polar.h's convention) from core/svd3.h's SVD, whose U and V are proper
/// rotations with the smallest singular value negative for an inverted F, exactly that convention: a third of the
/// cost of Eigen's JacobiSVD, which took a third of a step's time in the bridge's profile.
SignedPolar FastSignedPolar(const Eigen::Matrix3d& F) {
  Mat3d U, V;
  Vec3d sigma;
  Svd3(ToMat3d(F), U, sigma, V);
  SignedPolar polar;
  polar.V = ToEigen(V);
  polar.sigma = ToEigen(sigma);
  polar.R = ToEigen(U) * polar.V.transpose();
  return polar;
}

/// Below this fibre length the muscle's direction is undefined (header).
constexpr double kMinFibreLength = 1e-12;

}  // namespace

Eigen::Matrix3d StencilApply(const PdModel& model, const Term& term, const Eigen::Matrix<double, 4, 3>& corners) {
  if (term.kind == TermKind::kMuscle) {
    Eigen::Matrix3d Y = Eigen::Matrix3d::Zero();
    Y.col(0) = corners.transpose() * term.fibre;
    return Y;
  }
  return corners.transpose() * model.gradients[static_cast<std::size_t>(term.tet)];
}

Eigen::Matrix3d TermY(const PdModel& model, const Term& term, const Eigen::MatrixX3d& q) {
  Eigen::Matrix<double, 4, 3> corners;
  const auto& tet = model.tets[static_cast<std::size_t>(term.tet)];
  for (int c = 0; c < 4; ++c) corners.row(c) = q.row(tet[static_cast<std::size_t>(c)]);
  return StencilApply(model, term, corners);
}

Eigen::Matrix<double, 4, 3> StencilTranspose(const PdModel& model, const Term& term, const Eigen::Matrix3d& Y) {
  if (term.kind == TermKind::kMuscle) return term.fibre * Y.col(0).transpose();
  return model.gradients[static_cast<std::size_t>(term.tet)] * Y.transpose();
}

double TermTarget(const PdModel& model, const Term& term, const PdControls& controls) {
  if (term.actuator < 0) return 1.0;
  if (term.kind == TermKind::kMuscle) {
    const int group = model.muscles[static_cast<std::size_t>(term.actuator)].group;
    return 1.0 - model.max_contraction * controls.muscle_activation[static_cast<std::size_t>(group)];
  }
  return std::cbrt(controls.cell_volume_ratio[static_cast<std::size_t>(term.actuator)]);
}

double TermTargetDerivative(const PdModel& model, const Term& term, const PdControls& controls) {
  if (term.actuator < 0) return 0.0;
  if (term.kind == TermKind::kMuscle) return -model.max_contraction;
  const double a = controls.cell_volume_ratio[static_cast<std::size_t>(term.actuator)];
  return 1.0 / (3.0 * std::cbrt(a * a));  // d a^{1/3}/da
}

TermProjection Project(TermKind kind, const Eigen::Matrix3d& Y, double target) {
  TermProjection p{.Y = Y, .P = Eigen::Matrix3d::Zero(), .polar = {}, .target = target};
  if (kind == TermKind::kMuscle) {
    const double length = Y.col(0).norm();
    if (length > kMinFibreLength) p.P.col(0) = (target / length) * Y.col(0);
    return p;
  }
  p.polar = FastSignedPolar(Y);
  if (kind == TermKind::kStrain) {
    p.P = target * p.polar.R;
  } else {
    p.P = Y + (target - p.polar.sigma.sum() / 3.0) * p.polar.R;
  }
  return p;
}

Eigen::Matrix3d ProjectionDifferential(TermKind kind, const TermProjection& p, const Eigen::Matrix3d& dY) {
  if (kind == TermKind::kMuscle) {
    Eigen::Matrix3d dP = Eigen::Matrix3d::Zero();
    const double length = p.Y.col(0).norm();
    if (!(length > kMinFibreLength)) return dP;
    const Eigen::Vector3d unit = p.Y.col(0) / length;
    const Eigen::Vector3d df = dY.col(0);
    dP.col(0) = (p.target / length) * (df - unit * unit.dot(df));
    return dP;
  }
  const Eigen::Matrix3d dR = RotationDifferential(p.polar, dY);
  if (kind == TermKind::kStrain) return p.target * dR;
  const double dtrace = (p.polar.R.transpose() * dY).trace();
  return dY - (dtrace / 3.0) * p.polar.R + (p.target - p.polar.sigma.sum() / 3.0) * dR;
}

Eigen::Matrix3d ProjectionTargetDerivative(TermKind kind, const TermProjection& p) {
  if (kind != TermKind::kMuscle) return p.polar.R;
  Eigen::Matrix3d d = Eigen::Matrix3d::Zero();
  const double length = p.Y.col(0).norm();
  if (length > kMinFibreLength) d.col(0) = p.Y.col(0) / length;
  return d;
}

}  // namespace ductile::pd
