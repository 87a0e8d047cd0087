// The step's equations with contacts and their Jacobian (pd/pd_step_system.h).
#include "pd/pd_step_system.h"

#include <Eigen/Geometry>
#include <cmath>

namespace ductile::pd {

std::pair<Eigen::Vector3d, Eigen::Vector3d> TangentBasis(const Eigen::Vector3d& n) {
  const Eigen::Vector3d a = std::abs(n.x()) < 0.9 ? Eigen::Vector3d::UnitX() : Eigen::Vector3d::UnitY();
  const Eigen::Vector3d t1 = (a - n * n.dot(a)).normalized();
  return {t1, n.cross(t1)};
}

namespace {

/// R_i, C_i, K_i, ∂G_i/∂μ and G_i of one constraint (file comment).
struct ConstraintRows {
  Eigen::Matrix3d R = Eigen::Matrix3d::Zero();
  Eigen::Matrix3d C = Eigen::Matrix3d::Zero();
  Eigen::Matrix3d K = Eigen::Matrix3d::Zero();
  Eigen::Vector3d dmu = Eigen::Vector3d::Zero();
  Eigen::Vector3d G = Eigen::Vector3d::Zero();
};

ConstraintRows Rows(const PdModel& model, const VertexConstraint& c, const Eigen::Vector3d& start,
                    const Eigen::Vector3d& q, const Eigen::Vector3d& g) {
  const PdHalfSpace& h = model.obstacles[static_cast<std::size_t>(c.obstacle)];
  const Eigen::Vector3d& n = h.normal;
  const Eigen::Matrix3d T = Eigen::Matrix3d::Identity() - n * n.transpose();
  const SlipDirection slip = RegularisedSlip(TangentialSlip(h, q, start), SlipRegularisation(model));
  const double lambda = n.dot(g);
  const auto [t1, t2] = TangentBasis(n);
  ConstraintRows rows;
  rows.C.row(0) = n.transpose();
  rows.G(0) = n.dot(q) - h.offset;
  int k = 1;
  for (const Eigen::Vector3d& t : {t1, t2}) {
    rows.R.row(k) = t.transpose() + h.friction * t.dot(slip.phi) * n.transpose();
    rows.C.row(k) = h.friction * lambda * t.transpose() * slip.derivative * T;
    rows.K.row(k) = -rows.C.row(k);
    rows.dmu(k) = lambda * t.dot(slip.phi);
    rows.G(k) = t.dot(T * g + h.friction * lambda * slip.phi);
    ++k;
  }
  return rows;
}

}  // namespace

StepSystem AssembleStepSystem(const PdHessian& hessian, const std::vector<VertexConstraint>& constraints,
                              const Eigen::MatrixX3d& start, const Eigen::MatrixX3d& q, const Eigen::MatrixX3d& g) {
  const PdModel& model = hessian.model();
  const auto n_free = static_cast<Eigen::Index>(model.free_vertices.size());
  StepSystem system;
  system.G.resize(n_free, 3);
  for (Eigen::Index f = 0; f < n_free; ++f) system.G.row(f) = g.row(model.free_vertices[static_cast<std::size_t>(f)]);
  std::vector<int> constraint_of(static_cast<std::size_t>(n_free), -1);
  std::vector<ConstraintRows> rows;
  for (std::size_t k = 0; k < constraints.size(); ++k) {
    const VertexConstraint& c = constraints[k];
    constraint_of[static_cast<std::size_t>(c.free_row)] = static_cast<int>(k);
    rows.push_back(
        Rows(model, c, start.row(c.vertex).transpose(), q.row(c.vertex).transpose(), g.row(c.vertex).transpose()));
    system.G.row(c.free_row) = rows.back().G.transpose();
    system.row_operator.push_back(rows.back().R);
    system.start_derivative.push_back(rows.back().K);
    system.friction_derivative.push_back(rows.back().dmu);
  }
  const Eigen::SparseMatrix<double> H = hessian.AssembleFree();
  std::vector<Eigen::Triplet<double>> triplets;
  for (Eigen::Index col = 0; col < H.outerSize(); ++col) {
    for (Eigen::SparseMatrix<double>::InnerIterator it(H, col); it; ++it) {
      const auto vertex = static_cast<std::size_t>(it.row() / 3);
      const int k = constraint_of[vertex];
      if (k < 0) {
        triplets.emplace_back(static_cast<int>(it.row()), static_cast<int>(col), it.value());
        continue;
      }
      const Eigen::Matrix3d& R = rows[static_cast<std::size_t>(k)].R;
      for (int out = 0; out < 3; ++out)
        if (R(out, it.row() % 3) != 0)
          triplets.emplace_back(static_cast<int>(3 * vertex) + out, static_cast<int>(col),
                                R(out, it.row() % 3) * it.value());
    }
  }
  for (std::size_t k = 0; k < constraints.size(); ++k)
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b)
        if (rows[k].C(a, b) != 0)
          triplets.emplace_back(3 * constraints[k].free_row + a, 3 * constraints[k].free_row + b, rows[k].C(a, b));
  system.J.resize(3 * n_free, 3 * n_free);
  system.J.setFromTriplets(triplets.begin(), triplets.end());
  system.J.makeCompressed();
  return system;
}

void ApplyRowOperators(const StepSystem& system, const std::vector<VertexConstraint>& constraints,
                       Eigen::MatrixXd& columns) {
  for (std::size_t k = 0; k < constraints.size(); ++k) {
    const Eigen::Index row = 3 * static_cast<Eigen::Index>(constraints[k].free_row);
    columns.middleRows<3>(row) = system.row_operator[k] * columns.middleRows<3>(row).eval();
  }
}

std::vector<VertexConstraint> ConstraintsOfStep(const PdModel& model, const Eigen::MatrixX3d& q,
                                                const Eigen::MatrixX3d& g, double gap_tolerance,
                                                double force_tolerance) {
  std::vector<VertexConstraint> constraints;
  ForEachFreeVertexAndObstacle(model, [&](int f, int i, int o, const PdHalfSpace& h) {
    if (std::abs(h.normal.dot(q.row(i).transpose()) - h.offset) > gap_tolerance) return true;
    if (!(h.normal.dot(g.row(i).transpose()) > force_tolerance)) return true;
    constraints.push_back({.vertex = i, .free_row = f, .obstacle = o});
    return false;  // the first half-space of a vertex
  });
  return constraints;
}

}  // namespace ductile::pd
