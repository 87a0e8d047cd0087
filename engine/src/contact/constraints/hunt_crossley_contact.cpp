#include "contact/constraints/hunt_crossley_contact.h"

namespace ductile::contact {

double HuntCrossleyContact::Calc(const Eigen::VectorXd& vc, Eigen::VectorXd& gamma, Eigen::MatrixXd* G) const {
  return CalcThroughFixedSize(*this, vc, gamma, G);
}

double HuntCrossleyContact::Calc3(const Eigen::Vector3d& vc, Eigen::Vector3d& gamma, Eigen::Matrix3d* G) const {
  return Calc3ThroughKernel(cost_, vc, gamma, G);
}

}  // namespace ductile::contact
