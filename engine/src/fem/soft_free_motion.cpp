#include "fem/soft_free_motion.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ductile::fem {

void SoftFreeMotion::Configure(std::span<const SoftBodyDesc> bodies,
                               std::span<const std::vector<std::array<int, 3>>> surfaces) {
  tets_.clear();
  materials_.clear();
  mass_.clear();
  pinned_.clear();
  surface_vertices_.clear();
  int first = 0;
  for (std::size_t b = 0; b < bodies.size(); ++b) {
    const SoftBodyDesc& body = bodies[b];
    materials_.push_back({body.model, body.lame});
    for (std::size_t t = 0; t < body.tets.size(); ++t) {
      const std::array<int, 4>& e = body.tets[t];
      const auto X = [&](int k) -> const Eigen::Vector3d& { return body.vertices[static_cast<std::size_t>(e[k])]; };
      const std::optional<TetRest> rest = MakeTetRest(X(0), X(1), X(2), X(3));
      if (!rest)
        throw std::invalid_argument("soft body " + std::to_string(b) + ": tet " + std::to_string(t) +
                                    " has a non-positive rest volume");
      tets_.push_back({{first + e[0], first + e[1], first + e[2], first + e[3]}, *rest, static_cast<int>(b)});
    }
    const std::vector<double> masses = LumpedMasses(body.vertices, body.tets, body.density);
    mass_.insert(mass_.end(), masses.begin(), masses.end());
    std::vector<bool> pinned(body.vertices.size(), false);
    for (const int p : body.pinned) pinned[static_cast<std::size_t>(p)] = true;
    pinned_.insert(pinned_.end(), pinned.begin(), pinned.end());
    std::vector<bool> on_surface(body.vertices.size(), false);
    if (b < surfaces.size())
      for (const std::array<int, 3>& f : surfaces[b])
        for (const int v : f) on_surface[static_cast<std::size_t>(v)] = true;
    for (std::size_t v = 0; v < on_surface.size(); ++v)
      if (on_surface[v]) surface_vertices_.push_back(first + static_cast<int>(v));
    first += static_cast<int>(body.vertices.size());
  }
}

void SoftFreeMotion::SetMaterial(int body, ElasticModel model, const LameParameters& lame) {
  materials_.at(static_cast<std::size_t>(body)) = {model, lame};
}

void SoftFreeMotion::Build(const std::vector<Eigen::Vector3d>& x, const std::vector<Eigen::Vector3d>& v, double dt,
                           const Eigen::Vector3d& gravity, Eigen::SparseMatrix<double>& A, Eigen::VectorXd& b,
                           std::vector<bool>& fixed, Eigen::VectorXd& v_start) const {
  const auto n = static_cast<Eigen::Index>(3 * mass_.size());
  fixed.assign(static_cast<std::size_t>(n), false);
  for (std::size_t i = 0; i < pinned_.size(); ++i)  // pinned, or in no tet (no mass)
    if (pinned_[i] || mass_[i] <= 0) fixed[3 * i] = fixed[3 * i + 1] = fixed[3 * i + 2] = true;
  b.setZero(n);
  v_start.setZero(n);
  std::vector<Eigen::Triplet<double>> triplets;
  triplets.reserve(tets_.size() * 144 + static_cast<std::size_t>(n));
  // M vⁿ + Δt M g, and M on the diagonal.
  for (std::size_t i = 0; i < mass_.size(); ++i)
    for (int a = 0; a < 3; ++a) {
      const auto dof = static_cast<Eigen::Index>(3 * i) + a;
      triplets.emplace_back(dof, dof, mass_[i]);
      b[dof] = mass_[i] * (v[i][a] + dt * gravity[a]);
      v_start[dof] = v[i][a];
    }
  // Δt f(xⁿ) and Δt² K per element.
  const double dt2 = dt * dt;
  for (const Tet& t : tets_) {
    const Material& m = materials_[static_cast<std::size_t>(t.body)];
    const auto X = [&](int k) -> const Eigen::Vector3d& { return x[static_cast<std::size_t>(t.v[k])]; };
    const Vector12d g = TetGradient(m.model, m.lame, t.rest, X(0), X(1), X(2), X(3));
    const Matrix12d H = TetHessian(m.model, m.lame, t.rest, X(0), X(1), X(2), X(3), true);
    for (int i = 0; i < 4; ++i)
      for (int a = 0; a < 3; ++a) {
        const Eigen::Index row = 3 * static_cast<Eigen::Index>(t.v[i]) + a;
        b[row] -= dt * g[3 * i + a];
        for (int j = 0; j < 4; ++j)
          for (int c = 0; c < 3; ++c)
            triplets.emplace_back(row, 3 * static_cast<Eigen::Index>(t.v[j]) + c, dt2 * H(3 * i + a, 3 * j + c));
      }
  }
  // Held dofs: identity rows and columns, v = 0.
  std::erase_if(triplets, [&](const Eigen::Triplet<double>& e) {
    return fixed[static_cast<std::size_t>(e.row())] || fixed[static_cast<std::size_t>(e.col())];
  });
  for (Eigen::Index dof = 0; dof < n; ++dof)
    if (fixed[static_cast<std::size_t>(dof)]) {
      triplets.emplace_back(dof, dof, 1.0);
      b[dof] = 0;
      v_start[dof] = 0;
    }
  A.resize(n, n);
  A.setFromTriplets(triplets.begin(), triplets.end());
  A.makeCompressed();
}

}  // namespace ductile::fem
