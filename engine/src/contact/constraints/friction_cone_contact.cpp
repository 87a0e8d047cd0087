#include "contact/constraints/friction_cone_contact.h"

namespace ductile::contact {

double FrictionConeContact::Calc(const Eigen::VectorXd& vc, Eigen::VectorXd& gamma, Eigen::MatrixXd* G) const {
  return CalcThroughFixedSize(*this, vc, gamma, G);
}

double FrictionConeContact::Calc3(const Eigen::Vector3d& vc, Eigen::Vector3d& gamma, Eigen::Matrix3d* G) const {
  return Calc3ThroughKernel(cost_, vc, gamma, G);
}

bool FrictionConeContact::SlidesNearStiction(const Eigen::Vector3d& vc, double band, Eigen::Matrix3d& G) const {
  Mat3<double> H;
  if (!cost_.SlidesNearStiction({vc.x(), vc.y(), vc.z()}, band, H)) return false;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) G(i, j) = H.m[i][j];
  return true;
}

}  // namespace ductile::contact
