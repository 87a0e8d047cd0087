#include "contact/constraints/friction_cone_contact.h"

namespace ductile::contact {

double FrictionConeContact::Calc(const Eigen::VectorXd& vc, Eigen::VectorXd& gamma, Eigen::MatrixXd* G) const {
  return CalcThroughFixedSize(*this, vc, gamma, G);
}

double FrictionConeContact::Calc3(const Eigen::Vector3d& vc, Eigen::Vector3d& gamma, Eigen::Matrix3d* G) const {
  Vec3<double> g;
  Mat3<double> H;
  const double cost = cost_.Calc3({vc.x(), vc.y(), vc.z()}, g, G ? &H : nullptr);
  gamma = {g.x, g.y, g.z};
  if (G)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) (*G)(i, j) = H.m[i][j];
  return cost;
}

}  // namespace ductile::contact
