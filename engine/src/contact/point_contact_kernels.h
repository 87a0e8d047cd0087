// The two point-contact costs of the MPM-rigid contact solve as SIM_HD functions, shared by the host classes
// (constraints/hunt_crossley_contact.h, constraints/friction_cone_contact.h, which hold the formulas' derivation)
// and the device backend's contact solve (backend/device_contact.h): ℓ(v_c), γ = −∂ℓ/∂v_c and G = ∂²ℓ/∂v_c² of
// one contact, in its frame (t₁, t₂, n). Plain doubles, no Eigen, so that nvcc compiles them for the GPU; the
// operations are those the host classes did before they called these (same order, so results are bitwise the same).
#pragma once

#include <cmath>

#include "core/sim_hd.h"
#include "core/small_math.h"

namespace ductile::contact {

struct HuntCrossleyParams {
  double dt = 1e-3;              ///< Time step Δt [s], > 0.
  double phi0 = 0;               ///< Signed distance at the start of the step [m] (< 0 penetrating).
  double stiffness = 1e5;        ///< k [N/m], > 0.
  double dissipation = 10;       ///< Hunt-Crossley d [s/m], ≥ 0.
  double friction = 0.5;         ///< μ, ≥ 0.
  double vn0 = 0;                ///< Normal velocity at the start of the step [m/s], for the lagged impulse n₀.
  double stiction_speed = 1e-4;  ///< v_s [m/s], > 0.
  double sigma = 1e-3;           ///< σ, dimensionless regularisation of friction.
  double delassus = 0;           ///< w [1/kg], Delassus estimate of the contact.
};

struct FrictionConeParams {
  double dt = 1e-3;       ///< Time step Δt [s], > 0.
  double phi0 = 0;        ///< Signed distance at the start of the step [m] (< 0 penetrating).
  double friction = 0.5;  ///< μ, ≥ 0.
  double delassus = 1;    ///< w [1/kg], > 0: the contact's Delassus estimate.
  double beta = 1;        ///< Near-rigid parameter β, > 0.
  double sigma = 1e-3;    ///< Friction regularisation σ, > 0.
};

/// The near-rigid regularisation of Castro et al. 2022 (Sec. V-B): R = β²/(4π²)·w for a Delassus estimate w
/// [1/kg or 1/(kg·m²)]; with β = 1 a constraint behaves like a critically damped spring whose period is one time
/// step, the stiffest the step can resolve.
SIM_HD double NearRigidCompliance(double beta, double w) {
  constexpr double kPi = 3.14159265358979323846;
  return beta * beta / (4 * kPi * kPi) * w;
}

/// The lagged Hunt-Crossley cost with regularised friction (constraints/hunt_crossley_contact.h).
struct HuntCrossleyCost {
  double dt = 0, stiffness = 0, dissipation = 0, friction = 0;
  double fe0 = 0;    // f_e0 = −k φ₀
  double v_hat = 0;  // where n(v_n) vanishes
  double n0 = 0;     // the lagged normal impulse n(v_n0)
  double eps = 0;    // ε_s

  SIM_HD static HuntCrossleyCost Make(const HuntCrossleyParams& p) {
    HuntCrossleyCost c;
    c.dt = p.dt;
    c.stiffness = p.stiffness;
    c.dissipation = p.dissipation;
    c.friction = p.friction;
    c.fe0 = -p.stiffness * p.phi0;
    c.v_hat = c.fe0 / (p.dt * p.stiffness);
    if (p.dissipation > 0) c.v_hat = fmin(c.v_hat, 1 / p.dissipation);
    c.n0 = c.NormalImpulse(p.vn0);
    c.eps = fmax(p.stiction_speed, p.friction * p.sigma * p.delassus * c.n0);
    return c;
  }

  /// n(v_n) [N·s].
  SIM_HD double NormalImpulse(double vn) const {
    if (vn >= v_hat) return 0;
    return dt * (fe0 - dt * stiffness * vn) * (1 - dissipation * vn);
  }

  /// N(v_n) = ∫₀^{v_n} n: Δt (f v − (a + f d) v²/2 + a d v³/3), a = Δt k, f = f_e0, v = min(v_n, v̂).
  SIM_HD double Antiderivative(double vn) const {
    const double v = fmin(vn, v_hat);
    const double a = dt * stiffness;
    const double f = fe0;
    const double d = dissipation;
    return dt * (f * v - (a + f * d) * v * v / 2 + a * d * v * v * v / 3);
  }

  SIM_HD double Calc3(const Vec3<double>& vc, Vec3<double>& gamma, Mat3<double>* G) const {
    const double vn = vc.z;
    const double vt[2] = {vc.x, vc.y};
    const double s = std::sqrt((vt[0] * vt[0] + vt[1] * vt[1]) + eps * eps);
    const double mu_n0 = friction * n0;
    gamma.x = -mu_n0 * vt[0] / s;
    gamma.y = -mu_n0 * vt[1] / s;
    gamma.z = NormalImpulse(vn);
    if (G) {
      *G = Mat3<double>::Zero();
      const double s3 = s * s * s;
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) G->m[i][j] = mu_n0 * ((i == j ? 1 / s : 0 / s) - vt[i] * vt[j] / s3);
      if (vn < v_hat) {
        // n′(v) = Δt (−a (1 − d v) − d (f − a v)), a = Δt k.
        const double a = dt * stiffness;
        G->m[2][2] = -dt * (-a * (1 - dissipation * vn) - dissipation * (fe0 - a * vn));
      }
    }
    return -Antiderivative(vn) + mu_n0 * (s - eps);
  }
};

/// SAP's regularised friction cone (constraints/friction_cone_contact.h).
struct FrictionConeCost {
  double mu_tilde = 0;  // μ √(R_t/R_n)
  double sqrt_rt = 1;   // √R_t
  double sqrt_rn = 1;   // √R_n
  double v_hat = 0;     // v̂_n

  SIM_HD static FrictionConeCost Make(const FrictionConeParams& p) {
    constexpr double kPi = 3.14159265358979323846;
    FrictionConeCost c;
    const double Rn = NearRigidCompliance(p.beta, p.delassus);
    const double Rt = p.sigma * p.delassus;
    c.sqrt_rt = std::sqrt(Rt);
    c.sqrt_rn = std::sqrt(Rn);
    c.mu_tilde = p.friction * c.sqrt_rt / c.sqrt_rn;
    const double tau_d = p.beta * p.dt / kPi;
    // A speculative contact (a gap φ₀ > 0 at the step's start) may close its gap within the step and no more; a
    // penetrating one is pushed out over Δt + τ_d, the critically damped spring's time.
    c.v_hat = p.phi0 > 0 ? -p.phi0 / p.dt : -p.phi0 / (p.dt + tau_d);
    return c;
  }

  /// ỹ = R^(−½) (v̂ − v_c): its tangential part yt, normal part yn and r = ‖yt‖.
  SIM_HD void ScaledY(const Vec3<double>& vc, double yt[2], double& yn, double& r) const {
    yt[0] = -vc.x / sqrt_rt;
    yt[1] = -vc.y / sqrt_rt;
    yn = (v_hat - vc.z) / sqrt_rn;
    r = std::sqrt(yt[0] * yt[0] + yt[1] * yt[1]);
  }

  SIM_HD double Calc3(const Vec3<double>& vc, Vec3<double>& gamma, Mat3<double>* G) const {
    double yt[2], yn, r;
    ScaledY(vc, yt, yn, r);
    double P[3] = {0, 0, 0};  // P̃(ỹ)
    Mat3<double> dP = Mat3<double>::Zero();
    if (r <= mu_tilde * yn) {  // stiction (includes ỹ = 0 only when yn ≥ 0)
      P[0] = yt[0];
      P[1] = yt[1];
      P[2] = yn;
      dP = Mat3<double>::Identity();
    } else if (mu_tilde * r <= -yn) {  // separation
    } else {                           // sliding: r > 0 here
      const double scale = 1 / (1 + mu_tilde * mu_tilde);
      const double pn = (yn + mu_tilde * r) * scale;
      const double t[2] = {yt[0] / r, yt[1] / r};
      P[0] = mu_tilde * pn * t[0];
      P[1] = mu_tilde * pn * t[1];
      P[2] = pn;
      const double outer = mu_tilde * mu_tilde * scale;
      const double across = mu_tilde * pn / r;
      for (int i = 0; i < 2; ++i) {
        for (int j = 0; j < 2; ++j) dP.m[i][j] = outer * t[i] * t[j] + across * ((i == j ? 1.0 : 0.0) - t[i] * t[j]);
        dP.m[i][2] = mu_tilde * scale * t[i];
        dP.m[2][i] = mu_tilde * scale * t[i];
      }
      dP.m[2][2] = scale;
    }
    // γ = R^(−½) P̃, G = R^(−½) ∂P̃/∂ỹ R^(−½).
    const double inv[3] = {1 / sqrt_rt, 1 / sqrt_rt, 1 / sqrt_rn};
    gamma = {inv[0] * P[0], inv[1] * P[1], inv[2] * P[2]};
    if (G)
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) G->m[i][j] = inv[i] * dP.m[i][j] * inv[j];
    return 0.5 * ((P[0] * P[0] + P[1] * P[1]) + P[2] * P[2]);
  }

  /// Whether v_c slides within `band` (≥ 1) times the cone's edge, ‖ỹ_t‖ ≤ band·μ̃ ỹ_n (sliding, not sticking), and
  /// then the stiction branch's Hessian R⁻¹ in G: the Newton directions of contact/mpm_contact_solver.h take it there.
  SIM_HD bool SlidesNearStiction(const Vec3<double>& vc, double band, Mat3<double>& G) const {
    double yt[2], yn, r;
    ScaledY(vc, yt, yn, r);
    const bool slides = r > mu_tilde * yn && mu_tilde * r > -yn;  // Calc3's regimes, on the same ỹ
    if (!(slides && r <= band * mu_tilde * yn)) return false;
    G = Mat3<double>::Zero();
    G.m[0][0] = G.m[1][1] = 1 / (sqrt_rt * sqrt_rt);
    G.m[2][2] = 1 / (sqrt_rn * sqrt_rn);
    return true;
  }
};

/// One grid contact's cost: the lagged Hunt-Crossley model, or in the near-rigid regime SAP's friction cone with
/// Δt, φ₀, μ, σ and w of the same parameters (contact/mpm_contact_solver.h, GridContact::near_rigid).
struct GridContactCost {
  bool near_rigid = false;
  HuntCrossleyCost hunt_crossley;
  FrictionConeCost cone;

  SIM_HD static GridContactCost Make(const HuntCrossleyParams& p, bool near_rigid) {
    GridContactCost c;
    c.near_rigid = near_rigid;
    if (!near_rigid) {
      c.hunt_crossley = HuntCrossleyCost::Make(p);
      return c;
    }
    FrictionConeParams q;
    q.dt = p.dt;
    q.phi0 = p.phi0;
    q.friction = p.friction;
    q.delassus = p.delassus;
    q.sigma = p.sigma;
    c.cone = FrictionConeCost::Make(q);
    return c;
  }
  SIM_HD double Calc3(const Vec3<double>& vc, Vec3<double>& gamma, Mat3<double>* G) const {
    return near_rigid ? cone.Calc3(vc, gamma, G) : hunt_crossley.Calc3(vc, gamma, G);
  }
};

/// A contact frame R = [t₁ t₂ n] for a unit normal n (any orthonormal tangents, fixed by n alone).
SIM_HD Mat3<double> ContactFrameOf(const Vec3<double>& n) {
  const Vec3<double> helper = std::fabs(n.x) < 0.9 ? Vec3<double>(1, 0, 0) : Vec3<double>(0, 1, 0);
  Vec3<double> t1 = Cross(helper, n);
  t1 = t1 / Norm(t1);
  return Mat3<double>::FromColumns(t1, Cross(n, t1), n);
}

}  // namespace ductile::contact
