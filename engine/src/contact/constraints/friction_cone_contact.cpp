#include "contact/constraints/friction_cone_contact.h"

namespace ductile::contact {

double FrictionConeContact::Calc(const Eigen::VectorXd& vc, Eigen::VectorXd& gamma, Eigen::MatrixXd* G) const {
  return CalcThroughFixedSize(*this, vc, gamma, G);
}

double FrictionConeContact::Calc3(const Eigen::Vector3d& vc, Eigen::Vector3d& gamma, Eigen::Matrix3d* G) const {
  return Calc3ThroughKernel(cost_, vc, gamma, G);
}

}  // namespace ductile::contact
