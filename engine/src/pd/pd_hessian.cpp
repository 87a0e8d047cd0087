// H x, conjugate gradients with the prefactorised A as preconditioner, and the direct fallback (pd/pd_hessian.h).
#include "pd/pd_hessian.h"

#include <tbb/parallel_for.h>

#include <Eigen/SparseCore>
#include <Eigen/SparseLU>
#include <algorithm>

#include "pd/pd_solver.h"

namespace ductile::pd {

namespace {

using Corners = Eigen::Matrix<double, 4, 3>;

// The slot of (corner a, direction da) x (corner c, direction dc) in a tet's 12x12 block, row-major by (a, da).
std::size_t BlockSlot(int a, int da, int c, int dc) {
  return static_cast<std::size_t>(12 * (3 * a + da)) + static_cast<std::size_t>(3 * c + dc);
}

}  // namespace

const PdModel& PdHessian::model() const {
  return solver_.model();
}

PdHessian::PdHessian(const PdSolver& solver, std::vector<TermProjection> projections)
    : solver_(solver), projections_(std::move(projections)), curvatures_(projections_.size()) {
  // Each term's ω (I − ∂P/∂Y) as a 9x9 matrix on vec(dY), built once from the nine unit directions: a Hessian
  // product is then one matrix-vector product per term instead of a rotation differential (conjugate gradients
  // take tens of products per solve). A muscle term's Y lives in column 0: only the top-left 3x3 block is used.
  const PdModel& model = solver_.model();
  tbb::parallel_for(std::size_t{0}, projections_.size(), [&](std::size_t k) {
    const Term& term = model.terms[k];
    const int size = term.kind == TermKind::kMuscle ? 3 : 9;
    Matrix9 curvature = Matrix9::Zero();
    for (int e = 0; e < size; ++e) {
      Eigen::Matrix3d unit = Eigen::Matrix3d::Zero();
      unit.data()[e] = 1.0;
      const Eigen::Matrix3d column = unit - ProjectionDifferential(term.kind, projections_[k], unit);
      curvature.col(e) = solver_.weights()[k] * Eigen::Map<const Eigen::Matrix<double, 9, 1>>(column.data());
    }
    curvatures_[k] = curvature;
  });
}

Eigen::Matrix<double, 4, 3> PdHessian::TermForces(std::size_t k, const Eigen::Matrix3d& dY) const {
  Eigen::Matrix3d stress;
  Eigen::Map<Eigen::Matrix<double, 9, 1>>(stress.data()) =
      curvatures_[k] * Eigen::Map<const Eigen::Matrix<double, 9, 1>>(dY.data());
  return StencilTranspose(solver_.model(), solver_.model().terms[k], stress);
}

Eigen::MatrixX3d PdHessian::Apply(const Eigen::MatrixX3d& x_in) const {
  const PdModel& model = solver_.model();
  Eigen::MatrixX3d x = x_in;
  for (int i = 0; i < model.vertex_count(); ++i)
    if (model.free_index[static_cast<std::size_t>(i)] < 0) x.row(i).setZero();  // pinned and bone vertices
  return ApplyAll(x);
}

Eigen::MatrixX3d PdHessian::ApplyAll(const Eigen::MatrixX3d& x) const {
  const PdModel& model = solver_.model();
  const double h = model.dt;
  Eigen::MatrixX3d y(x.rows(), 3);
  for (Eigen::Index i = 0; i < x.rows(); ++i)
    y.row(i) = (model.masses[static_cast<std::size_t>(i)] / (h * h)) * x.row(i);
  std::vector<Corners> forces(model.terms.size());
  tbb::parallel_for(std::size_t{0}, model.terms.size(), [&](std::size_t k) {
    const Term& term = model.terms[k];
    const auto& tet = model.tets[static_cast<std::size_t>(term.tet)];
    Corners corners;
    for (int c = 0; c < 4; ++c) corners.row(c) = x.row(tet[static_cast<std::size_t>(c)]);
    forces[k] = TermForces(k, StencilApply(model, term, corners));
  });
  for (std::size_t k = 0; k < forces.size(); ++k) {
    const auto& tet = model.tets[static_cast<std::size_t>(model.terms[k].tet)];
    for (int c = 0; c < 4; ++c) y.row(tet[static_cast<std::size_t>(c)]) += forces[k].row(c);
  }
  return y;
}

PdHessian::Outcome PdHessian::Solve(const Eigen::MatrixX3d& b, Eigen::MatrixX3d& x, double tolerance,
                                    int max_iterations, int* iterations) const {
  x = Eigen::MatrixX3d::Zero(b.rows(), 3);
  Eigen::MatrixX3d r = b;
  Eigen::MatrixX3d all = Eigen::MatrixX3d::Zero(solver_.model().vertex_count(), 3);  // p on every row
  Eigen::MatrixX3d z = solver_.SolveFree(r);
  double rz = r.cwiseProduct(z).sum();
  if (iterations) *iterations = 0;
  if (!(rz > 0)) return Outcome::kConverged;  // b = 0
  const double stop = tolerance * tolerance * rz;
  Eigen::MatrixX3d p = z;
  for (int k = 0; k < max_iterations; ++k) {
    solver_.SetFreeRows(p, all);
    const Eigen::MatrixX3d Hp = solver_.FreeRows(ApplyAll(all));
    const double curvature = p.cwiseProduct(Hp).sum();
    if (!(curvature > 0)) return Outcome::kNegativeCurvature;
    const double alpha = rz / curvature;
    x += alpha * p;
    r -= alpha * Hp;
    if (iterations) *iterations = k + 1;
    z = solver_.SolveFree(r);
    const double rz_next = r.cwiseProduct(z).sum();
    if (rz_next <= stop) return Outcome::kConverged;
    p = z + (rz_next / rz) * p;
    rz = rz_next;
  }
  return Outcome::kNotConverged;
}

HessianPattern HessianPattern::Of(const PdModel& model) {
  const auto n_free = static_cast<int>(model.free_vertices.size());
  const auto free_of = [&model](int vertex) { return model.free_index[static_cast<std::size_t>(vertex)]; };
  std::vector<Eigen::Triplet<double>> triplets;
  triplets.reserve(3 * static_cast<std::size_t>(n_free) + 144 * model.tets.size());
  for (int i = 0; i < 3 * n_free; ++i) triplets.emplace_back(i, i, 0.0);
  for (const std::array<int, 4>& tet : model.tets)
    for (const int a : tet)
      for (const int c : tet)
        if (free_of(a) >= 0 && free_of(c) >= 0)
          for (int da = 0; da < 3; ++da)
            for (int dc = 0; dc < 3; ++dc) triplets.emplace_back(3 * free_of(c) + dc, 3 * free_of(a) + da, 0.0);
  HessianPattern pattern;
  const Eigen::Index size = 3 * static_cast<Eigen::Index>(n_free);
  pattern.zero.resize(size, size);
  pattern.zero.setFromTriplets(triplets.begin(), triplets.end());
  pattern.zero.makeCompressed();
  const auto index = [&pattern](int row, int col) {
    const int* first = pattern.zero.innerIndexPtr() + pattern.zero.outerIndexPtr()[col];
    const int* last = pattern.zero.innerIndexPtr() + pattern.zero.outerIndexPtr()[col + 1];
    return static_cast<int>(std::lower_bound(first, last, row) - pattern.zero.innerIndexPtr());
  };
  for (int i = 0; i < 3 * n_free; ++i) pattern.diagonal.push_back(index(i, i));
  pattern.tet_entries.resize(model.tets.size());
  for (std::size_t t = 0; t < model.tets.size(); ++t)
    for (int a = 0; a < 4; ++a)
      for (int da = 0; da < 3; ++da)
        for (int c = 0; c < 4; ++c)
          for (int dc = 0; dc < 3; ++dc) {
            const int fa = free_of(model.tets[t][static_cast<std::size_t>(a)]);
            const int fc = free_of(model.tets[t][static_cast<std::size_t>(c)]);
            pattern.tet_entries[t][BlockSlot(a, da, c, dc)] = fa >= 0 && fc >= 0 ? index(3 * fc + dc, 3 * fa + da) : -1;
          }
  return pattern;
}

Eigen::SparseMatrix<double> PdHessian::AssembleFree() const {
  // Each term's 12x12 block, a column per unit corner displacement, added into the pattern's values.
  const PdModel& model = solver_.model();
  const double h = model.dt;
  const HessianPattern& pattern = solver_.hessian_pattern();
  Eigen::SparseMatrix<double> H = pattern.zero;
  double* values = H.valuePtr();
  for (std::size_t f = 0; f < model.free_vertices.size(); ++f)
    for (std::size_t d = 0; d < 3; ++d)
      values[pattern.diagonal[3 * f + d]] += model.masses[static_cast<std::size_t>(model.free_vertices[f])] / (h * h);
  for (std::size_t k = 0; k < model.terms.size(); ++k) {
    const Term& term = model.terms[k];
    const auto t = static_cast<std::size_t>(term.tet);
    const std::array<int, 144>& entries = pattern.tet_entries[t];
    for (int a = 0; a < 4; ++a) {
      if (model.free_index[static_cast<std::size_t>(model.tets[t][static_cast<std::size_t>(a)])] < 0) continue;
      for (int da = 0; da < 3; ++da) {
        Corners unit = Corners::Zero();
        unit(a, da) = 1.0;
        const Corners column = TermForces(k, StencilApply(model, term, unit));
        for (int c = 0; c < 4; ++c)
          for (int dc = 0; dc < 3; ++dc)
            if (const int at = entries[BlockSlot(a, da, c, dc)]; at >= 0) values[at] += column(c, dc);
      }
    }
  }
  return H;
}

Eigen::VectorXd VertexMajor(const Eigen::MatrixX3d& rows) {
  Eigen::VectorXd vector(3 * rows.rows());
  for (Eigen::Index f = 0; f < rows.rows(); ++f) vector.segment<3>(3 * f) = rows.row(f).transpose();
  return vector;
}

Eigen::MatrixX3d FromVertexMajor(const Eigen::VectorXd& vector) {
  Eigen::MatrixX3d rows(vector.size() / 3, 3);
  for (Eigen::Index f = 0; f < rows.rows(); ++f) rows.row(f) = vector.segment<3>(3 * f).transpose();
  return rows;
}

bool SolveSparse(const Eigen::SparseMatrix<double>& matrix, const Eigen::MatrixX3d& b, Eigen::MatrixX3d& x) {
  Eigen::SparseLU<Eigen::SparseMatrix<double>> lu;
  lu.compute(matrix);
  if (lu.info() != Eigen::Success) return false;
  const Eigen::VectorXd solution = lu.solve(VertexMajor(b));
  if (lu.info() != Eigen::Success || !solution.allFinite()) return false;
  x = FromVertexMajor(solution);
  return true;
}

bool PdHessian::SolveDirect(const Eigen::MatrixX3d& b, Eigen::MatrixX3d& x) const {
  return SolveSparse(AssembleFree(), b, x);
}

}  // namespace ductile::pd
