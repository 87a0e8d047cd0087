// The coupling experiments of Yu et al. 2025 (Figs. 2 and 3, and the dough rolling of its Table I) run
// from the shipped scene files with overrides, measured the way the paper reports them. Shared by the default
// physics tests and the `slow`-labelled ones (tests/slow) that run the paper's smallest time steps.
#pragma once

#include <gtest/gtest.h>

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ductile/model.h"
#include "ductile/scene.h"
#include "ductile/simulator.h"

namespace ductile::testing {

inline std::filesystem::path ShippedScene(const std::string& name) {
  return std::filesystem::path(DUCTILE_SOURCE_DIR) / "scenes" / name;
}

inline std::unique_ptr<Simulator> SimulatorForScene(const std::string& name, const std::vector<std::string>& sets) {
  std::vector<Override> overrides;
  for (const std::string& s : sets) overrides.push_back(ParseOverride(s));
  auto model = std::make_shared<const Model>(CompileModel(LoadScene(ShippedScene(name), overrides)));
  return std::make_unique<Simulator>(model);
}

inline int RigidBodyIndex(const Simulator& sim, const std::string& name) {
  for (int b = 0; b < sim.num_rigid_bodies(); ++b)
    if (sim.SummarizeRigidBody(b).name == name) return b;
  return -1;
}

/// The overrides of a run at Δt = dt with `substeps`, then `more`.
inline std::vector<std::string> TimingOverrides(double dt, int substeps, const std::vector<std::string>& more) {
  std::vector<std::string> sets{"simulation.dt=" + std::to_string(dt),
                                "simulation.substeps=" + std::to_string(substeps)};
  sets.insert(sets.end(), more.begin(), more.end());
  return sets;
}

/// Panel squeeze (Fig. 2): the contact force on each panel, averaged over the window [t_begin, t_end].
struct PanelSqueezeResult {
  double cube_mass = 0;                         ///< [kg]
  std::array<std::array<double, 3>, 2> mean{};  ///< Per panel (left, right): mean contact force [N], world.
  /// Per panel: max |f_y − mean f_y| over the window of the force's 1 ms means [N] (at Δt = 1 ms the step's own
  /// force; at Δt = 0.1 ms the mean of ten steps, so both time steps are judged at the same time resolution).
  std::array<double, 2> fy_swing{};
  std::array<double, 2> fy_swing_per_step{};  ///< The same over every step's own force [N].
  int mpm_contacts_max = 0;
  int steps_not_converged = 0;  ///< Steps whose contact solve missed its tolerance.
  double cube_drop = 0;         ///< How far the cube's centre fell from t_begin to t_end [m].
};

/// The bars for the panel squeeze, recorded as test properties: per panel the mean normal force 10 N
/// (pushing the left panel towards −x, the right one towards +x) and the mean z friction −m·g/2 within 2%, the
/// mean y friction and its swing under 1% of m·g; every contact solve converged.
inline void ExpectPanelSqueezeBars(const PanelSqueezeResult& r) {
  const double weight = r.cube_mass * 9.81;
  const char* names[2] = {"left", "right"};
  for (int p = 0; p < 2; ++p) {
    ::testing::Test::RecordProperty(std::string(names[p]) + "_fx_N", std::to_string(r.mean[p][0]));
    ::testing::Test::RecordProperty(std::string(names[p]) + "_fy_N", std::to_string(r.mean[p][1]));
    ::testing::Test::RecordProperty(std::string(names[p]) + "_fz_N", std::to_string(r.mean[p][2]));
    ::testing::Test::RecordProperty(std::string(names[p]) + "_fy_swing_N", std::to_string(r.fy_swing[p]));
    ::testing::Test::RecordProperty(std::string(names[p]) + "_fy_swing_per_step_N",
                                    std::to_string(r.fy_swing_per_step[p]));
  }
  ::testing::Test::RecordProperty("half_weight_N", std::to_string(weight / 2));
  ::testing::Test::RecordProperty("cube_drop_m", std::to_string(r.cube_drop));
  EXPECT_GT(r.mpm_contacts_max, 0);
  EXPECT_EQ(r.steps_not_converged, 0);
  EXPECT_NEAR(r.mean[0][0], -10.0, 0.2);
  EXPECT_NEAR(r.mean[1][0], 10.0, 0.2);
  for (int p = 0; p < 2; ++p) {
    EXPECT_NEAR(r.mean[p][2], -weight / 2, 0.02 * weight / 2) << names[p];  // the cube hangs on the panel
    EXPECT_LT(std::abs(r.mean[p][1]), 0.01 * weight) << names[p];
    EXPECT_LT(r.fy_swing[p], 0.01 * weight) << names[p];
  }
  // Held, not sliding out: the regularised friction creeps at well under a millimetre per second.
  EXPECT_LT(std::abs(r.cube_drop), 1e-3);
}

inline PanelSqueezeResult RunPanelSqueeze(double dt, int substeps, double t_begin, double t_end,
                                          const std::vector<std::string>& more = {}) {
  auto sim = SimulatorForScene("panel_squeeze.yaml", TimingOverrides(dt, substeps, more));
  const int panels[2] = {RigidBodyIndex(*sim, "left_panel"), RigidBodyIndex(*sim, "right_panel")};
  PanelSqueezeResult r;
  r.cube_mass = sim->SummarizeObject(0).mass;
  std::vector<std::array<double, 2>> fy;
  int samples = 0;
  double z_begin = 0;
  while (sim->time() + 0.5 * dt < t_end) {
    sim->Step();
    if (!sim->last_step().mpm_contact_converged) ++r.steps_not_converged;
    r.mpm_contacts_max = std::max(r.mpm_contacts_max, sim->last_step().mpm_contacts_max);
    if (sim->time() <= t_begin + 0.5 * dt) {
      z_begin = sim->SummarizeObject(0).center_of_mass[2];
      continue;
    }
    std::array<double, 2> y{};
    for (int p = 0; p < 2; ++p) {
      const RigidBodySummary s = sim->SummarizeRigidBody(panels[p]);
      for (int a = 0; a < 3; ++a) r.mean[p][a] += s.contact_force[a];
      y[p] = s.contact_force[1];
    }
    fy.push_back(y);
    ++samples;
  }
  for (auto& m : r.mean)
    for (double& f : m) f /= samples;
  const int per_ms = std::max(1, static_cast<int>(std::lround(1e-3 / dt)));
  for (std::size_t first = 0; first + per_ms <= fy.size(); first += per_ms) {
    for (int p = 0; p < 2; ++p) {
      double sum = 0;
      for (int k = 0; k < per_ms; ++k) {
        sum += fy[first + k][p];
        r.fy_swing_per_step[p] = std::max(r.fy_swing_per_step[p], std::abs(fy[first + k][p] - r.mean[p][1]));
      }
      r.fy_swing[p] = std::max(r.fy_swing[p], std::abs(sum / per_ms - r.mean[p][1]));
    }
  }
  r.cube_drop = z_begin - sim->SummarizeObject(0).center_of_mass[2];
  return r;
}

/// Dough rolling (Table I): how fast the pin spins about its axis while the carrier rolls it over the slab, and
/// the slab's height before and after.
struct DoughRollingResult {
  double spin_rate = 0;      ///< Mean |ω| of the pin about its axis over [t_begin, t_end] [rad/s].
  double carrier_speed = 0;  ///< Mean speed of the carrier over the same window [m/s].
  double top_before = 0;     ///< Highest particle at t = 0 [m].
  double top_after = 0;      ///< Highest particle at the end, after the pin has left [m].
  int steps_not_converged = 0;
  int mpm_contacts_max = 0;
};

inline DoughRollingResult RunDoughRolling(double t_begin, double t_end) {
  auto sim = SimulatorForScene("dough_rolling.yaml", {});
  const int pin = RigidBodyIndex(*sim, "pin"), carrier = RigidBodyIndex(*sim, "carrier");
  DoughRollingResult r;
  r.top_before = sim->SummarizeObject(0).bounds_max[2];
  const auto rotation = [&] {
    const RigidBodySummary s = sim->SummarizeRigidBody(pin);
    return Eigen::Quaterniond(s.quaternion[0], s.quaternion[1], s.quaternion[2], s.quaternion[3]);
  };
  double angle = 0;
  Eigen::Quaterniond previous = rotation();
  Eigen::Vector3d carrier_begin = Eigen::Vector3d::Zero();
  const double dt = sim->model().dt;
  while (sim->time() + 0.5 * dt < sim->model().duration) {
    sim->Step();
    if (!sim->last_step().mpm_contact_converged) ++r.steps_not_converged;
    r.mpm_contacts_max = std::max(r.mpm_contacts_max, sim->last_step().mpm_contacts_max);
    const Eigen::Quaterniond q = rotation();
    const std::array<double, 3> c = sim->SummarizeRigidBody(carrier).position;
    if (sim->time() <= t_begin + 0.5 * dt) {
      carrier_begin = Eigen::Vector3d(c[0], c[1], c[2]);
    } else if (sim->time() <= t_end + 0.5 * dt) {
      angle += Eigen::AngleAxisd(q * previous.conjugate()).angle();  // the pin turns about its own axis only
      r.carrier_speed = (Eigen::Vector3d(c[0], c[1], c[2]) - carrier_begin).norm() / (t_end - t_begin);
    }
    previous = q;
  }
  r.spin_rate = angle / (t_end - t_begin);
  r.top_after = sim->SummarizeObject(0).bounds_max[2];
  return r;
}

/// Close, lift and shake (Fig. 3): the largest distance any of the three cubes' centres moves relative to the
/// panels' midpoint during the shake window.
struct CloseLiftShakeResult {
  std::array<double, 3> max_slip{};  ///< left soft cube, rigid block, right soft cube [m].
  double lift = 0;                   ///< How far the block rose from t = 0 to the start of the shake [m].
  int steps_not_converged = 0;
  int mpm_contacts_max = 0;
};

inline CloseLiftShakeResult RunCloseLiftShake(double dt, int substeps, double shake_begin, double shake_end,
                                              const std::vector<std::string>& more = {}) {
  auto sim = SimulatorForScene("close_lift_shake.yaml", TimingOverrides(dt, substeps, more));
  const int left = RigidBodyIndex(*sim, "left_panel"), right = RigidBodyIndex(*sim, "right_panel");
  const int block = RigidBodyIndex(*sim, "block");
  const auto vec = [](const std::array<double, 3>& a) { return Eigen::Vector3d(a[0], a[1], a[2]); };
  // The three centres relative to the midpoint between the panels.
  const auto offsets = [&] {
    const Eigen::Vector3d mid =
        0.5 * (vec(sim->SummarizeRigidBody(left).position) + vec(sim->SummarizeRigidBody(right).position));
    return std::array<Eigen::Vector3d, 3>{vec(sim->SummarizeObject(0).center_of_mass) - mid,
                                          vec(sim->SummarizeRigidBody(block).position) - mid,
                                          vec(sim->SummarizeObject(1).center_of_mass) - mid};
  };
  CloseLiftShakeResult r;
  const double z0 = sim->SummarizeRigidBody(block).position[2];
  std::array<Eigen::Vector3d, 3> reference = {Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero(),
                                              Eigen::Vector3d::Zero()};
  while (sim->time() + 0.5 * dt < shake_end) {
    sim->Step();
    if (!sim->last_step().mpm_contact_converged) ++r.steps_not_converged;
    r.mpm_contacts_max = std::max(r.mpm_contacts_max, sim->last_step().mpm_contacts_max);
    if (sim->time() <= shake_begin + 0.5 * dt) {
      reference = offsets();
      r.lift = sim->SummarizeRigidBody(block).position[2] - z0;
      continue;
    }
    const std::array<Eigen::Vector3d, 3> now = offsets();
    for (int i = 0; i < 3; ++i) r.max_slip[i] = std::max(r.max_slip[i], (now[i] - reference[i]).norm());
  }
  return r;
}

/// The pieces that particles form on a grid of spacing h (PiecesOnTheGrid).
struct Pieces {
  std::vector<int> size;   ///< Particles per piece, largest first.
  std::vector<int> piece;  ///< Per particle: its piece (an index into `size`).
};

/// The pieces that the particles at `positions` form on a grid of spacing h: connected components of the cells
/// that hold a particle, two cells joined when they touch (face, edge or corner; 26-neighbours), so two pieces are
/// apart only when a whole empty cell separates them everywhere, farther than MPM's quadratic stencils (1.5 h
/// about a particle) can couple them through shared nodes.
inline Pieces PiecesOnTheGrid(const std::vector<std::array<float, 3>>& positions, double h) {
  std::map<std::array<int, 3>, int> cell_index;  // occupied cell -> its index
  std::vector<int> count;                        // particles per occupied cell
  std::vector<int> cell_of(positions.size());
  for (std::size_t p = 0; p < positions.size(); ++p) {
    std::array<int, 3> c{};
    for (int a = 0; a < 3; ++a) c[a] = static_cast<int>(std::floor(positions[p][a] / h));
    const auto [it, added] = cell_index.try_emplace(c, static_cast<int>(count.size()));
    if (added) count.push_back(0);
    ++count[it->second];
    cell_of[p] = it->second;
  }
  std::vector<int> label(count.size(), -1), size;
  for (const auto& [seed, seed_index] : cell_index) {
    if (label[seed_index] >= 0) continue;
    const int id = static_cast<int>(size.size());
    size.push_back(0);
    std::vector<std::array<int, 3>> stack{seed};
    label[seed_index] = id;
    while (!stack.empty()) {
      const std::array<int, 3> c = stack.back();
      stack.pop_back();
      size[id] += count[cell_index.at(c)];
      for (int dx = -1; dx <= 1; ++dx)
        for (int dy = -1; dy <= 1; ++dy)
          for (int dz = -1; dz <= 1; ++dz) {
            const auto n = cell_index.find({c[0] + dx, c[1] + dy, c[2] + dz});
            if (n == cell_index.end() || label[n->second] >= 0) continue;
            label[n->second] = id;
            stack.push_back(n->first);
          }
    }
  }
  // Largest first.
  std::vector<int> order(size.size()), rank(size.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = static_cast<int>(k);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return size[a] > size[b]; });
  Pieces out;
  for (std::size_t k = 0; k < order.size(); ++k) {
    rank[order[k]] = static_cast<int>(k);
    out.size.push_back(size[order[k]]);
  }
  out.piece.resize(positions.size());
  for (std::size_t p = 0; p < positions.size(); ++p) out.piece[p] = rank[label[cell_of[p]]];
  return out;
}

}  // namespace ductile::testing
