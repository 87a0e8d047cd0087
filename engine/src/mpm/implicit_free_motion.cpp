// ImplicitFreeMotion: the quadratic free-motion problem of an implicit MPM step (implicit_free_motion.h, whose
// comment has the equations). Serial and in double: it is the reference the strong coupling is built on.
#include "mpm/implicit_free_motion.h"

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/svd3.h"
#include "mpm/constitutive/fluid.h"
#include "mpm/transfer_kernels.h"

namespace ductile::mpm {

namespace {

Mat3<double> ToMat3(const Eigen::Matrix3d& a) {
  Mat3<double> m;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) m.m[r][c] = a(r, c);
  return m;
}

Eigen::Matrix3d ToEigen(const Mat3<double>& m) {
  Eigen::Matrix3d a;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) a(r, c) = m.m[r][c];
  return a;
}

// The first of node i's three velocity components in a grid vector.
Eigen::Index Dof(int i) {
  return 3 * static_cast<Eigen::Index>(i);
}

std::int64_t Key(int i, int j, int k) {
  constexpr std::int64_t kOffset = 1 << 20;
  return ((static_cast<std::int64_t>(i) + kOffset) << 42) | ((static_cast<std::int64_t>(j) + kOffset) << 21) |
         (static_cast<std::int64_t>(k) + kOffset);
}

}  // namespace

void ImplicitFreeMotion::Build(const ImplicitParticles& particles, const std::vector<ImplicitMaterial>& materials,
                               double h, const Eigen::Vector3d& origin, double dt, const Eigen::Vector3d& gravity) {
  materials_ = materials;
  material_of_ = particles.material;
  h_ = h;
  dt_ = dt;
  origin_ = origin;
  const std::size_t n = particles.x.size();
  node_coord_.clear();
  stencil_.assign(n, {});
  std::unordered_map<std::int64_t, int> index;
  for (std::size_t p = 0; p < n; ++p) {
    const Eigen::Vector3d xg = (particles.x[p] - origin) / h;
    int base[3];
    double w[3][3], dw[3][3];
    for (int a = 0; a < 3; ++a) {
      base[a] = static_cast<int>(std::floor(xg[a] - 0.5));
      QuadraticBSpline(xg[a] - base[a], w[a], dw[a]);
    }
    Stencil& s = stencil_[p];
    int m = 0;
    for (int di = 0; di < 3; ++di)
      for (int dj = 0; dj < 3; ++dj)
        for (int dk = 0; dk < 3; ++dk, ++m) {
          const std::array<int, 3> c{base[0] + di, base[1] + dj, base[2] + dk};
          const auto [it, added] = index.try_emplace(Key(c[0], c[1], c[2]), static_cast<int>(node_coord_.size()));
          if (added) node_coord_.push_back(c);
          s.node[m] = it->second;
          s.w[m] = w[0][di] * w[1][dj] * w[2][dk];
          s.grad[m] = Eigen::Vector3d(dw[0][di] * w[1][dj] * w[2][dk], w[0][di] * dw[1][dj] * w[2][dk],
                                      w[0][di] * w[1][dj] * dw[2][dk]) /
                      h;
        }
  }
  // P2G of mass and APIC momentum, then ṽ = momentum / mass + Δt g.
  const std::size_t nodes = node_coord_.size();
  mass_.assign(nodes, 0.0);
  v_tilde_ = Eigen::VectorXd::Zero(3 * static_cast<Eigen::Index>(nodes));
  for (std::size_t p = 0; p < n; ++p) {
    const Stencil& s = stencil_[p];
    for (int m = 0; m < 27; ++m) {
      const int i = s.node[m];
      const Eigen::Vector3d xi = origin + h * Eigen::Vector3d(node_coord_[i][0], node_coord_[i][1], node_coord_[i][2]);
      const double wm = s.w[m] * particles.mass[p];
      mass_[i] += wm;
      v_tilde_.segment<3>(Dof(i)) += wm * (particles.v[p] + particles.C[p] * (xi - particles.x[p]));
    }
  }
  for (std::size_t i = 0; i < nodes; ++i) {
    const auto i3 = static_cast<Eigen::Index>(3 * i);
    if (mass_[i] > 0) v_tilde_.segment<3>(i3) = v_tilde_.segment<3>(i3) / mass_[i] + dt * gravity;
  }
  // A node that particles give next to no mass (weights at a stencil's edge: exactly 0 for particles on a lattice
  // at half-cell offsets, or 1e-17 of a particle's mass for one just inside) is held at 0. With no mass it would
  // divide 0 by 0 in the CG's Jacobi step; with a trace of mass its row of A is m_i + O(Δt² λ |∇w|²) and its
  // velocity is ill-determined: in a one-off instrumented run of scenes/water_pouring.yaml a fluid's free motion
  // put 870 m/s on a node of 1e-16 kg and 2,000 m/s on one of 1e-11 kg, and CHOLMOD's rounding found A not positive
  // definite. Held below kLightNode of the lightest particle's mass: its weight in every particle is then below
  // kLightNode, so holding it changes a particle's velocity by less than kLightNode of it, and its velocity gradient
  // by about √(2 kLightNode)/h times it (the quadratic B-spline's slope where its weight is that small).
  constexpr double kLightNode = 1e-6;
  double lightest = std::numeric_limits<double>::infinity();
  for (const double m : particles.mass) lightest = std::min(lightest, m);
  const double light = kLightNode * lightest;
  fixed_.assign(3 * nodes, false);
  for (std::size_t i = 0; i < nodes; ++i)
    if (!(mass_[i] > light)) fixed_[3 * i] = fixed_[3 * i + 1] = fixed_[3 * i + 2] = true;
  rotation_.resize(n);
  F_ = particles.F;
  volume_ = particles.volume;
  for (std::size_t p = 0; p < n; ++p) rotation_[p] = PolarRotation3(ToMat3(particles.F[p]));
}

void ImplicitFreeMotion::SetWalls(const Eigen::Vector3d& min, const Eigen::Vector3d& max, bool sticky) {
  for (std::size_t i = 0; i < node_coord_.size(); ++i) {
    bool outside[3];
    bool any = false;
    for (int a = 0; a < 3; ++a) {
      const double xi = origin_[a] + h_ * node_coord_[i][a];
      outside[a] = xi < min[a] || xi > max[a];
      any = any || outside[a];
    }
    for (int a = 0; a < 3; ++a)
      if (sticky ? any : outside[a]) fixed_[3 * i + static_cast<std::size_t>(a)] = true;
  }
}

Mat3<double> ImplicitFreeMotion::StepDeformation(int p, const Eigen::VectorXd& v) const {
  return ToMat3((Eigen::Matrix3d::Identity() + dt_ * VelocityGradient(p, v)) * F_[p]);
}

Mat3<double> ImplicitFreeMotion::ObjectiveStepDeformation(int p, const Eigen::Matrix3d& L,
                                                          const Eigen::Matrix3d& Q) const {
  const Eigen::Matrix3d D = 0.5 * (L + L.transpose());
  return ToMat3(Q * (Eigen::Matrix3d::Identity() + D) * F_[p]);
}

LinearCorotated<double> ImplicitFreeMotion::ModelOf(std::size_t p) const {
  const ImplicitMaterial& m = MaterialOf(p);
  return {m.mu, m.lambda, m.yield_stress};
}

Eigen::Matrix3d ImplicitFreeMotion::VelocityGradient(int p, const Eigen::VectorXd& u) const {
  Eigen::Matrix3d g = Eigen::Matrix3d::Zero();
  const Stencil& s = stencil_[p];
  for (int m = 0; m < 27; ++m) g += u.segment<3>(Dof(s.node[m])) * s.grad[m].transpose();
  return g;
}

void ImplicitFreeMotion::ScatterStress(int p, const Eigen::Matrix3d& P, double scale, Eigen::VectorXd& out) const {
  const Eigen::Matrix3d A = scale * volume_[p] * P * F_[p].transpose();
  const Stencil& s = stencil_[p];
  for (int m = 0; m < 27; ++m) out.segment<3>(Dof(s.node[m])) += A * s.grad[m];
}

double ImplicitFreeMotion::Energy(const Eigen::VectorXd& v) const {
  double e = 0;
  for (std::size_t i = 0; i < mass_.size(); ++i) {
    const auto i3 = static_cast<Eigen::Index>(3 * i);
    e += 0.5 * mass_[i] * (v.segment<3>(i3) - v_tilde_.segment<3>(i3)).squaredNorm();
  }
  for (std::size_t p = 0; p < stencil_.size(); ++p)
    e += volume_[p] * ModelOf(p).Energy(StepDeformation(static_cast<int>(p), v), rotation_[p]);
  return e;
}

Eigen::VectorXd ImplicitFreeMotion::Gradient(const Eigen::VectorXd& v) const {
  Eigen::VectorXd g(v.size());
  for (std::size_t i = 0; i < mass_.size(); ++i) {
    const auto i3 = static_cast<Eigen::Index>(3 * i);
    g.segment<3>(i3) = mass_[i] * (v.segment<3>(i3) - v_tilde_.segment<3>(i3));
  }
  for (std::size_t p = 0; p < stencil_.size(); ++p) {
    const int q = static_cast<int>(p);
    ScatterStress(q, ToEigen(ModelOf(p).FirstPiola(StepDeformation(q, v), rotation_[p])), dt_, g);
  }
  return g;
}

Eigen::VectorXd ImplicitFreeMotion::HessianTimes(const Eigen::VectorXd& u) const {
  Eigen::VectorXd y(u.size());
  for (std::size_t i = 0; i < mass_.size(); ++i) {
    const auto i3 = static_cast<Eigen::Index>(3 * i);
    y.segment<3>(i3) = mass_[i] * u.segment<3>(i3);
  }
  for (std::size_t p = 0; p < stencil_.size(); ++p) {
    const int q = static_cast<int>(p);
    // δP = R (2μ δE + λ tr(δE) I), δE = sym(Rᵀ δF): the stress of the linear strain increment.
    const Mat3<double>& R = rotation_[p];
    const Mat3<double> RtdF = R.Transposed() * ToMat3(dt_ * VelocityGradient(q, u) * F_[p]);
    const Mat3<double> dP = R * ModelOf(p).RotatedStress((RtdF + RtdF.Transposed()) * 0.5);
    ScatterStress(q, ToEigen(dP), dt_, y);
  }
  return y;
}

// Two nodes couple when a particle's stencil holds both: their coordinates differ by at most 2 per axis, so each
// node's row has at most 5³ = 125 blocks (AssembleHessian).
constexpr int kHessianSlots = 125;

void ImplicitFreeMotion::SumHessianBlocks() {
  // Summed in place per (node, offset code); AssembleHessian writes them once.
  const std::size_t nodes = mass_.size();
  std::vector<Eigen::Matrix3d>& blocks = hessian_blocks_;
  std::vector<int>& partner = hessian_partner_;
  blocks.assign(nodes * kHessianSlots, Eigen::Matrix3d::Zero());
  partner.assign(nodes * kHessianSlots, -1);
  // The offset code of stencil node k seen from stencil node j (stencil index m = 9 di + 3 dj + dk, as Build lays the
  // 3x3x3 block out), the same for every particle.
  static const std::array<std::array<int, 27>, 27> kCode = [] {
    std::array<std::array<int, 27>, 27> code{};
    for (int j = 0; j < 27; ++j)
      for (int k = 0; k < 27; ++k)
        code[j][k] = (k / 9 - j / 9 + 2) * 25 + (k / 3 % 3 - j / 3 % 3 + 2) * 5 + (k % 3 - j % 3 + 2);
    return code;
  }();
  for (std::size_t p = 0; p < stencil_.size(); ++p) {
    const double mu = MaterialOf(p).mu, lambda = MaterialOf(p).lambda;
    const Stencil& s = stencil_[p];
    const Eigen::Matrix3d R = ToEigen(rotation_[p]);
    const double scale = dt_ * dt_ * volume_[p];
    // With gⱼ = F_pⁿᵀ ∇w_jp and rⱼ = R gⱼ: R (μ (gⱼ·g_k) I + μ g_k gⱼᵀ + λ gⱼ g_kᵀ) Rᵀ = μ (gⱼ·g_k) I + μ r_k rⱼᵀ +
    // λ rⱼ r_kᵀ.
    std::array<Eigen::Vector3d, 27> g, r;
    for (int m = 0; m < 27; ++m) {
      g[m] = F_[p].transpose() * s.grad[m];
      r[m] = R * g[m];
    }
    for (int j = 0; j < 27; ++j)
      for (int k = 0; k < 27; ++k) {
        const std::size_t at =
            static_cast<std::size_t>(s.node[j]) * kHessianSlots + static_cast<std::size_t>(kCode[j][k]);
        partner[at] = s.node[k];
        Eigen::Matrix3d& block = blocks[at];
        block += scale * (mu * r[k] * r[j].transpose() + lambda * r[j] * r[k].transpose());
        block.diagonal().array() += scale * mu * g[j].dot(g[k]);
      }
  }
}

void ImplicitFreeMotion::AssembleHessian(Eigen::SparseMatrix<double>& H, const std::vector<bool>* held) {
  SumHessianBlocks();
  const std::size_t nodes = mass_.size();
  const std::vector<Eigen::Matrix3d>& blocks = hessian_blocks_;
  const std::vector<int>& partner = hessian_partner_;
  // Each node's partners k in increasing order, and the entries per column: node j's three columns hold, for each
  // partner k, the rows 3k..3k+2 of their block (the mass on the diagonal block); a held dof's row and column only
  // its diagonal 1.
  const auto is_held = [held](std::size_t dof) { return held && (*held)[dof]; };
  std::vector<std::pair<int, int>>& partners = hessian_partners_;  // (k, slot)
  partners.clear();
  hessian_first_.assign(nodes + 1, 0);
  for (std::size_t j = 0; j < nodes; ++j) {
    const std::size_t first = partners.size();
    for (int code = 0; code < kHessianSlots; ++code) {
      const std::size_t at = j * kHessianSlots + static_cast<std::size_t>(code);
      if (partner[at] >= 0) partners.emplace_back(partner[at], code);
    }
    std::sort(partners.begin() + static_cast<std::ptrdiff_t>(first), partners.end());
    hessian_first_[j + 1] = static_cast<int>(partners.size());
  }
  const auto n = static_cast<Eigen::Index>(3 * nodes);
  H.resize(n, n);
  std::size_t nonzeros = 0;
  for (std::size_t j = 0; j < nodes; ++j)
    for (std::size_t b = 0; b < 3; ++b) {
      if (is_held(3 * j + b)) {
        ++nonzeros;
        continue;
      }
      for (int q = hessian_first_[j]; q < hessian_first_[j + 1]; ++q)
        for (std::size_t a = 0; a < 3; ++a)
          nonzeros += is_held(3 * static_cast<std::size_t>(partners[static_cast<std::size_t>(q)].first) + a) ? 0 : 1;
    }
  H.data().resize(static_cast<Eigen::Index>(nonzeros), 0.25);  // a quarter more room when it grows
  int* outer = H.outerIndexPtr();
  int* inner = H.innerIndexPtr();
  double* values = H.valuePtr();
  int at = 0;
  outer[0] = 0;
  for (std::size_t j = 0; j < nodes; ++j)
    for (std::size_t b = 0; b < 3; ++b) {  // column 3j + b
      const std::size_t column = 3 * j + b;
      if (is_held(column)) {
        inner[at] = static_cast<int>(column);
        values[at++] = 1;
      } else {
        for (int q = hessian_first_[j]; q < hessian_first_[j + 1]; ++q) {
          const auto [k, code] = partners[static_cast<std::size_t>(q)];
          const Eigen::Matrix3d& block = blocks[j * kHessianSlots + static_cast<std::size_t>(code)];
          for (std::size_t a = 0; a < 3; ++a) {
            const std::size_t row = 3 * static_cast<std::size_t>(k) + a;
            if (is_held(row)) continue;
            inner[at] = static_cast<int>(row);
            // H(3k + a, 3j + b) = block_kj(a, b) = block_jk(b, a) (H symmetric).
            values[at++] = block(static_cast<Eigen::Index>(b), static_cast<Eigen::Index>(a)) +
                           (static_cast<std::size_t>(k) == j && a == b ? mass_[j] : 0.0);
          }
        }
      }
      outer[column + 1] = at;
    }
}

Eigen::VectorXd ImplicitFreeMotion::Solve(double tolerance, int max_iterations) {
  // Jacobi: each node's mass plus the diagonal of the energy term, Δt² Σ_p V_p (2μ + λ) ‖F_pⁿᵀ ∇w_ip‖² (an upper
  // bound of each 3x3 diagonal block's mean; enough for a preconditioner).
  Eigen::VectorXd diagonal(v_tilde_.size());
  for (std::size_t i = 0; i < mass_.size(); ++i)
    diagonal.segment<3>(static_cast<Eigen::Index>(3 * i)).setConstant(mass_[i]);
  for (std::size_t p = 0; p < stencil_.size(); ++p)
    for (int m = 0; m < 27; ++m) {
      const double g2 = (F_[p].transpose() * stencil_[p].grad[m]).squaredNorm();
      diagonal.segment<3>(Dof(stencil_[p].node[m])).array() +=
          dt_ * dt_ * volume_[p] * (2 * MaterialOf(p).mu + MaterialOf(p).lambda) * g2;
    }
  // A held dof stays 0 in every CG vector; its diagonal (0 for a node without mass) is only kept from 0/0.
  for (Eigen::Index k = 0; k < diagonal.size(); ++k)
    if (fixed_[static_cast<std::size_t>(k)]) diagonal[k] = 1;
  // Start from ṽ with the walls' components at 0; the held components stay 0 in every CG vector.
  Eigen::VectorXd v = v_tilde_;
  for (Eigen::Index k = 0; k < v.size(); ++k)
    if (fixed_[static_cast<std::size_t>(k)]) v[k] = 0;
  const auto hold = [&](Eigen::VectorXd& x) {
    for (Eigen::Index k = 0; k < x.size(); ++k)
      if (fixed_[static_cast<std::size_t>(k)]) x[k] = 0;
  };
  Eigen::VectorXd b = -Gradient(v);
  hold(b);
  const double stop = tolerance * b.norm();
  Eigen::VectorXd delta = Eigen::VectorXd::Zero(v.size());
  Eigen::VectorXd r = b;
  Eigen::VectorXd z = r.cwiseQuotient(diagonal);
  Eigen::VectorXd d = z;
  double rz = r.dot(z);
  iterations_ = 0;
  while (r.norm() > stop && iterations_ < max_iterations) {
    Eigen::VectorXd q = HessianTimes(d);
    hold(q);
    const double alpha = rz / d.dot(q);
    delta += alpha * d;
    r -= alpha * q;
    z = r.cwiseQuotient(diagonal);
    const double rz_next = r.dot(z);
    d = z + (rz_next / rz) * d;
    rz = rz_next;
    ++iterations_;
  }
  return v + delta;
}

namespace {

// Per body (ImplicitParticles::object; one body when it is empty) its mass and mass-weighted mean of `values`.
struct BodyMeans {
  std::vector<double> mass;
  std::vector<Eigen::Vector3d> mean;
  std::size_t of(const ImplicitParticles& particles, std::size_t p) const {
    return particles.object.empty() ? 0 : static_cast<std::size_t>(particles.object[p]);
  }
  void Take(const ImplicitParticles& particles, const std::vector<Eigen::Vector3d>& values) {
    std::size_t bodies = 1;
    for (const int o : particles.object) bodies = std::max(bodies, static_cast<std::size_t>(o) + 1);
    mass.assign(bodies, 0.0);
    mean.assign(bodies, Eigen::Vector3d::Zero());
    for (std::size_t p = 0; p < values.size(); ++p) {
      mass[of(particles, p)] += particles.mass[p];
      mean[of(particles, p)] += particles.mass[p] * values[p];
    }
    for (std::size_t o = 0; o < bodies; ++o)
      if (mass[o] > 0) mean[o] /= mass[o];
  }
};

}  // namespace

void ImplicitFreeMotion::G2P(const Eigen::VectorXd& v, const ImplicitParticles& particles,
                             std::vector<Eigen::Vector3d>& vp, std::vector<Eigen::Matrix3d>& Cp) const {
  vp.assign(stencil_.size(), Eigen::Vector3d::Zero());
  Cp.assign(stencil_.size(), Eigen::Matrix3d::Zero());
  for (std::size_t p = 0; p < stencil_.size(); ++p) {
    const Stencil& s = stencil_[p];
    for (int m = 0; m < 27; ++m) {
      const int i = s.node[m];
      const Eigen::Vector3d vi = v.segment<3>(Dof(i));
      vp[p] += s.w[m] * vi;
      Cp[p] += s.w[m] * vi * (NodePosition(i) - particles.x[p]).transpose();
    }
    Cp[p] *= 4.0 / (h_ * h_);
  }
}

Eigen::Matrix3d ImplicitFreeMotion::StepF(std::size_t p, const Eigen::Matrix3d& gradient, const Eigen::Matrix3d& Q,
                                          double& plastic) const {
  if (MaterialOf(p).fluid) {
    // A fluid keeps only its volume ratio: J ← J (1 + Δt tr ∇v), the volume change that its energy (λ/2 tr(Ê)²,
    // linear in tr ∇v) priced, not det((I + Δt ∇v) F). The solve leaves shear free (μ = 0), and a free shear of
    // Δt ∇v above 1 (a stream stopped by the floor within a step) makes that determinant negative at no cost.
    // Then raised to kMinFluidVolumeRatio, as the explicit fluid's return map does (mpm/constitutive/fluid.h).
    const double J = F_[p].determinant() * (1.0 + dt_ * gradient.trace());
    return Eigen::Matrix3d::Identity() * std::cbrt(std::max(J, kMinFluidVolumeRatio<double>));
  }
  Mat3<double> Fe = ObjectiveStepDeformation(static_cast<int>(p), dt_ * gradient, Q);
  plastic += ModelOf(p).ReturnMap(rotation_[p], Fe);  // 0 without a yield stress: F left as it is
  return ToEigen(Fe);
}

// Rigid motions exactly (docs/architecture.md, "Domains and couplings", step 4): relative to its body's mean velocity
// v̄ each particle turns with the step's spin W = skew(Δt ∇v) as the Cayley rotation Q = (I − ½W)⁻¹(I + ½W) that the
// stored F takes (ObjectiveStepDeformation):
//   x += Δt v̄ + (I − ½W)⁻¹ Δt (v_p − v̄),   v_p ← v̄ + Q (v_p − v̄),   C_p ← Q C_p Qᵀ,
// less the body's mass-weighted means of the turned parts, so that its momentum and centre of mass move exactly as
// without the turning (where Q varies over a deforming body, Σ m Q (v_p − v̄) need not vanish). For v_p = v̄ + ω ×
// (x − c) this is the rigid motion c + Δt v̄ + Q (x − c) with its velocity turned along; the position's gradient over
// a neighbourhood is Q + O(Δt D), as F's. x += Δt v_p instead stretches a body spinning at ω by √(1 + ω²Δt²) a step,
// which F, a rotation, never records (a ball spun at 30 rad/s grew 45% in 0.4 s at 10 ms steps); and a velocity
// left unturned leaves each step a radial error ωΔt |v − v̄| that the implicit step removes, projecting instead of
// turning: the body loses ω²Δt² of its spin energy a step (30 → 14 rad/s in 0.4 s;
// ImplicitFreeMotion.SpinningBlockMovesRigidlyOverManySteps).
void ImplicitFreeMotion::Apply(const Eigen::VectorXd& v, ImplicitParticles& particles) const {
  const std::size_t n = stencil_.size();
  std::vector<Eigen::Vector3d> vp, turned(n), moved(n);
  std::vector<Eigen::Matrix3d> Cp, gradient(n), Q(n);
  G2P(v, particles, vp, Cp);
  BodyMeans velocity;
  velocity.Take(particles, vp);
  for (std::size_t p = 0; p < n; ++p) {
    gradient[p] = VelocityGradient(static_cast<int>(p), v);
    const Eigen::Matrix3d L = dt_ * gradient[p];
    const Eigen::Matrix3d half_spin = 0.25 * (L - L.transpose());  // W/2, W = skew(L)
    const Eigen::Matrix3d to_midpoint = (Eigen::Matrix3d::Identity() - half_spin).inverse();
    Q[p] = to_midpoint * (Eigen::Matrix3d::Identity() + half_spin);
    const Eigen::Vector3d relative = vp[p] - velocity.mean[velocity.of(particles, p)];
    turned[p] = Q[p] * relative;
    moved[p] = to_midpoint * (dt_ * relative);
    Cp[p] = Q[p] * Cp[p] * Q[p].transpose();
  }
  BodyMeans turned_mean, moved_mean;
  turned_mean.Take(particles, turned);
  moved_mean.Take(particles, moved);
  for (std::size_t p = 0; p < n; ++p) {
    double plastic = 0;
    particles.F[p] = StepF(p, gradient[p], Q[p], plastic);
    if (particles.plastic_strain.size() == n) particles.plastic_strain[p] += plastic;
    const std::size_t o = velocity.of(particles, p);
    particles.x[p] += dt_ * velocity.mean[o] + moved[p] - moved_mean.mean[o];
    particles.v[p] = velocity.mean[o] + turned[p] - turned_mean.mean[o];
    particles.C[p] = Cp[p];
  }
}

}  // namespace ductile::mpm
