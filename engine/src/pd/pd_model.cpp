// Compiling a projective-dynamics body (the terms and weights: pd/pd_model.h).
#include "pd/pd_model.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include <Eigen/LU>

#include "core/elastic_moduli.h"

namespace ductile::pd {

namespace {

/// The arguments written one after another (numbers as an ostream writes them: -1, 0.5, 1e+05).
template <typename... Args>
std::string Cat(const Args&... args) {
  std::ostringstream out;
  (out << ... << args);
  return out.str();
}

/// `values` expanded to one per tet; an error names `key` when it has neither one nor `tets` entries.
std::string PerTet(std::vector<double>& values, std::size_t tets, const char* key) {
  if (values.size() == 1) values.assign(tets, values[0]);
  if (values.size() != tets)
    return Cat(key, ": ", values.size(), " values for ", tets, " tets (give one, or one per tet)");
  return {};
}

std::string CheckActuators(const PdBodyDesc& desc, std::size_t tets) {
  if (!desc.pneumatic_cell.empty() && desc.pneumatic_cell.size() != tets)
    return Cat("pneumatic cells: ", desc.pneumatic_cell.size(), " entries for ", tets, " tets");
  for (std::size_t t = 0; t < desc.pneumatic_cell.size(); ++t)
    if (desc.pneumatic_cell[t] < -1) return Cat("pneumatic cell of tet ", t, ": ", desc.pneumatic_cell[t]);
  for (std::size_t i = 0; i < desc.muscles.size(); ++i) {
    const MuscleFibre& m = desc.muscles[i];
    if (m.tet < 0 || static_cast<std::size_t>(m.tet) >= tets)
      return Cat("muscle ", i, ": tet ", m.tet, " out of range (the mesh has ", tets, ")");
    if (m.group < 0) return Cat("muscle ", i, ": group ", m.group, " (must be ≥ 0)");
    if (!(m.direction.norm() > 0) || !m.direction.allFinite())
      return Cat("muscle ", i, ": the fibre direction is zero or not finite");
    if (!(m.stiffness > 0 && std::isfinite(m.stiffness)))
      return Cat("muscle ", i, ": stiffness ", m.stiffness, " Pa (must be positive)");
  }
  if (std::string error = ObstaclesError(desc.obstacles, static_cast<int>(desc.mesh.vertices.size())); !error.empty())
    return error;
  if (!(desc.stick_velocity > 0 && std::isfinite(desc.stick_velocity)))
    return Cat("stick_velocity: ", desc.stick_velocity, " m/s (must be positive)");
  if (!(desc.max_contraction > 0 && desc.max_contraction < 1))
    return Cat("max_contraction: ", desc.max_contraction, " (must be in (0, 1))");
  return {};
}

std::string CheckBones(const PdBodyDesc& desc, std::size_t vertices) {
  std::vector<int> owner(vertices, -1);
  for (const int p : desc.pinned)
    if (p >= 0 && static_cast<std::size_t>(p) < vertices) owner[static_cast<std::size_t>(p)] = -2;
  for (std::size_t b = 0; b < desc.bones.size(); ++b) {
    const PdBone& bone = desc.bones[b];
    if (bone.parent < -1 || bone.parent >= static_cast<int>(b))
      return Cat("bone ", b, ": parent ", bone.parent, " (must be an earlier bone, or -1 for the world)");
    if (!(bone.axis.norm() > 0) || !bone.axis.allFinite() || !bone.anchor.allFinite())
      return Cat("bone ", b, ": the axis is zero or not finite, or the anchor is not finite");
    for (const int v : bone.vertices) {
      if (v < 0 || static_cast<std::size_t>(v) >= vertices)
        return Cat("bone ", b, ": vertex ", v, " out of range (the mesh has ", vertices, ")");
      int& o = owner[static_cast<std::size_t>(v)];
      if (o == -2) return Cat("bone ", b, ": vertex ", v, " is pinned");
      if (o >= 0) return Cat("bone ", b, ": vertex ", v, " is in bone ", o, " too");
      o = static_cast<int>(b);
    }
  }
  return {};
}

std::string CheckScalars(const PdBodyDesc& desc) {
  if (!(desc.density > 0 && std::isfinite(desc.density)))
    return Cat("density: ", desc.density, " kg/m³ (must be positive)");
  if (!(desc.dt > 0 && std::isfinite(desc.dt))) return Cat("dt: ", desc.dt, " s (must be positive)");
  if (!desc.gravity.allFinite()) return "gravity: not finite";
  return {};
}

void AddGeometry(PdModel& m) {
  m.masses.assign(m.rest.size(), 0.0);
  for (const auto& tet : m.tets) {
    Eigen::Matrix3d Dm;
    Dm << m.rest[tet[1]] - m.rest[tet[0]], m.rest[tet[2]] - m.rest[tet[0]], m.rest[tet[3]] - m.rest[tet[0]];
    const double volume = Dm.determinant() / 6.0;
    // F = Ds Dm⁻¹ = Σ_k x_k ∇N_kᵀ: the rows 1..3 of ∇N are Dm⁻ᵀ's rows, row 0 their negated sum.
    const Eigen::Matrix3d B = Dm.inverse();
    ShapeGradients g;
    g.row(0) = -B.colwise().sum();
    g.bottomRows<3>() = B;
    m.gradients.push_back(g);
    m.volumes.push_back(volume);
  }
}

}  // namespace

std::string MaterialsError(const std::vector<double>& E, const std::vector<double>& nu) {
  for (std::size_t t = 0; t < E.size(); ++t) {
    if (!(E[t] > 0 && std::isfinite(E[t])))
      return Cat("youngs_modulus of tet ", t, ": ", E[t], " Pa (must be positive)");
    if (!(nu[t] >= 0 && nu[t] < 0.5))
      return Cat("poisson_ratio of tet ", t, ": ", nu[t],
                 " (must be in [0, 0.5): projective dynamics needs λ ≥ 0 and a finite λ)");
  }
  return {};
}

double TotalMass(const PdModel& model) {
  double mass = 0;
  for (const double m : model.masses) mass += m;
  return mass;
}

PdControls PdControls::Rest(const PdModel& model) {
  PdControls u;
  u.cell_volume_ratio.assign(static_cast<std::size_t>(model.cell_count), 1.0);
  u.muscle_activation.assign(static_cast<std::size_t>(model.muscle_group_count), 0.0);
  for (const int p : model.pinned) u.pinned_targets.push_back(model.rest[static_cast<std::size_t>(p)]);
  u.joint_torques.assign(model.bones.size(), 0.0);
  return u;
}

PdState PdState::AtRest(const PdModel& model) {
  PdState s;
  const int n = model.vertex_count();
  s.q.resize(n, 3);
  for (int i = 0; i < n; ++i) s.q.row(i) = model.rest[static_cast<std::size_t>(i)].transpose();
  s.v = Eigen::MatrixX3d::Zero(n, 3);
  s.z = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(model.bones.size()));
  return s;
}

std::string ObstaclesError(const std::vector<PdHalfSpace>& obstacles, int vertices) {
  for (std::size_t i = 0; i < obstacles.size(); ++i) {
    const PdHalfSpace& o = obstacles[i];
    if (!(o.normal.norm() > 0) || !o.normal.allFinite() || !std::isfinite(o.offset) || !o.motion.allFinite())
      return Cat("obstacle ", i, ": the normal is zero or not finite, or the offset or motion is not finite");
    if (!(o.friction >= 0 && std::isfinite(o.friction)))
      return Cat("obstacle ", i, ": friction ", o.friction, " (must be ≥ 0)");
    if (o.vertex < -1 || o.vertex >= vertices)
      return Cat("obstacle ", i, ": vertex ", o.vertex, " out of range (the mesh has ", vertices, ")");
  }
  return {};
}

void SetObstacles(PdModel& m, std::vector<PdHalfSpace> obstacles) {
  const int n = m.vertex_count();
  m.obstacles = std::move(obstacles);
  m.shared_obstacles.clear();
  m.vertex_obstacle_start.assign(static_cast<std::size_t>(n) + 1, 0);
  for (std::size_t o = 0; o < m.obstacles.size(); ++o) {
    PdHalfSpace& h = m.obstacles[o];
    const double length = h.normal.norm();
    h.normal /= length;
    h.offset /= length;
    if (h.vertex < 0)
      m.shared_obstacles.push_back(static_cast<int>(o));
    else
      ++m.vertex_obstacle_start[static_cast<std::size_t>(h.vertex) + 1];
  }
  for (int i = 0; i < n; ++i)
    m.vertex_obstacle_start[static_cast<std::size_t>(i) + 1] += m.vertex_obstacle_start[static_cast<std::size_t>(i)];
  m.vertex_obstacles.assign(static_cast<std::size_t>(m.vertex_obstacle_start.back()), 0);
  std::vector<int> next(m.vertex_obstacle_start.begin(), m.vertex_obstacle_start.end() - 1);
  for (std::size_t o = 0; o < m.obstacles.size(); ++o)
    if (const int v = m.obstacles[o].vertex; v >= 0)
      m.vertex_obstacles[static_cast<std::size_t>(next[static_cast<std::size_t>(v)]++)] = static_cast<int>(o);
}

PdModelResult MakePdModel(PdBodyDesc desc) {
  PdModelResult result;
  const fem::TetMeshCheck check = fem::CheckAndOrient(desc.mesh);
  if (!check.error.empty()) return {.model = {}, .error = "mesh: " + check.error};
  const std::size_t tets = desc.mesh.tets.size();
  for (const std::string& error : {PerTet(desc.youngs_modulus, tets, "youngs_modulus"),
                                   PerTet(desc.poisson_ratio, tets, "poisson_ratio"), CheckScalars(desc)})
    if (!error.empty()) return {.model = {}, .error = error};
  for (const std::string& error : {MaterialsError(desc.youngs_modulus, desc.poisson_ratio), CheckActuators(desc, tets),
                                   CheckBones(desc, desc.mesh.vertices.size())})
    if (!error.empty()) return {.model = {}, .error = error};
  PdModel& m = result.model;
  m.rest = std::move(desc.mesh.vertices);
  m.tets = std::move(desc.mesh.tets);
  const int n = m.vertex_count();
  std::sort(desc.pinned.begin(), desc.pinned.end());
  desc.pinned.erase(std::unique(desc.pinned.begin(), desc.pinned.end()), desc.pinned.end());
  for (const int p : desc.pinned)
    if (p < 0 || p >= n)
      return {.model = {}, .error = Cat("pinned vertex ", p, " out of range (the mesh has ", n, ")")};
  m.pinned = std::move(desc.pinned);
  AddGeometry(m);
  for (std::size_t t = 0; t < tets; ++t)
    for (int corner = 0; corner < 4; ++corner)
      m.masses[static_cast<std::size_t>(m.tets[t][static_cast<std::size_t>(corner)])] +=
          desc.density * m.volumes[t] / 4.0;
  m.bone_of.assign(static_cast<std::size_t>(n), -1);
  for (std::size_t b = 0; b < desc.bones.size(); ++b) {
    PdBone bone = desc.bones[b];
    bone.axis.normalize();
    for (const int v : bone.vertices) m.bone_of[static_cast<std::size_t>(v)] = static_cast<int>(b);
    m.bones.push_back(std::move(bone));
  }
  for (int i = 0; i < n; ++i)
    if (m.bone_of[static_cast<std::size_t>(i)] >= 0) m.bone_vertices.push_back(i);
  m.free_index.assign(static_cast<std::size_t>(n), -1);
  for (int i = 0, next = 0; i < n; ++i) {
    if (std::binary_search(m.pinned.begin(), m.pinned.end(), i) || m.bone_of[static_cast<std::size_t>(i)] >= 0)
      continue;
    if (!(m.masses[static_cast<std::size_t>(i)] > 0))
      return {.model = {}, .error = Cat("vertex ", i, " belongs to no tet (a free vertex needs a mass)")};
    m.free_index[static_cast<std::size_t>(i)] = next++;
    m.free_vertices.push_back(i);
  }
  m.youngs_modulus = std::move(desc.youngs_modulus);
  m.poisson_ratio = std::move(desc.poisson_ratio);
  for (std::size_t t = 0; t < tets; ++t) {
    const int cell = desc.pneumatic_cell.empty() ? -1 : desc.pneumatic_cell[t];
    m.cell_count = std::max(m.cell_count, cell + 1);
    // A tet inside one bone moves rigidly: its terms are constant, and left in A they would only slow the sweeps
    // (rotating the bone against projections a sweep old).
    const auto& corners = m.tets[t];
    const int bone = m.bone_of[static_cast<std::size_t>(corners[0])];
    if (bone >= 0 && std::all_of(corners.begin(), corners.end(),
                                 [&](int v) { return m.bone_of[static_cast<std::size_t>(v)] == bone; }))
      continue;
    m.terms.push_back({.tet = static_cast<int>(t), .kind = TermKind::kStrain, .actuator = cell});
    m.terms.push_back({.tet = static_cast<int>(t), .kind = TermKind::kVolume, .actuator = cell});
  }
  for (MuscleFibre fibre : desc.muscles) {
    fibre.direction.normalize();
    m.muscle_group_count = std::max(m.muscle_group_count, fibre.group + 1);
    m.terms.push_back({.tet = fibre.tet,
                       .kind = TermKind::kMuscle,
                       .actuator = static_cast<int>(m.muscles.size()),
                       .fibre = m.gradients[static_cast<std::size_t>(fibre.tet)] * fibre.direction});
    m.muscles.push_back(fibre);
  }
  SetObstacles(m, std::move(desc.obstacles));
  m.stick_velocity = desc.stick_velocity;
  m.max_contraction = desc.max_contraction;
  m.gravity = desc.gravity;
  m.dt = desc.dt;
  return result;
}

double TermWeight(const PdModel& model, const Term& term) {
  const auto t = static_cast<std::size_t>(term.tet);
  const double volume = model.volumes[t];
  if (term.kind == TermKind::kMuscle) return model.muscles[static_cast<std::size_t>(term.actuator)].stiffness * volume;
  const LameParameters lame = LameFromYoungPoisson(model.youngs_modulus[t], model.poisson_ratio[t]);
  return term.kind == TermKind::kStrain ? 2.0 * lame.mu * volume : 3.0 * lame.lambda * volume;
}

Eigen::Vector2d TermWeightDerivatives(const PdModel& model, const Term& term) {
  const auto t = static_cast<std::size_t>(term.tet);
  const double E = model.youngs_modulus[t];
  const double nu = model.poisson_ratio[t];
  const double V = model.volumes[t];
  if (term.kind == TermKind::kStrain) {
    // ω = 2μV = E V/(1 + ν).
    return {V / (1.0 + nu), -E * V / ((1.0 + nu) * (1.0 + nu))};
  }
  if (term.kind == TermKind::kVolume) {
    // ω = 3λV, λ = Eν/((1 + ν)(1 − 2ν)), ∂λ/∂ν = E(1 + 2ν²)/((1 + ν)(1 − 2ν))².
    const double d = (1.0 + nu) * (1.0 - 2.0 * nu);
    return {3.0 * V * nu / d, 3.0 * V * E * (1.0 + 2.0 * nu * nu) / (d * d)};
  }
  return {0.0, 0.0};
}

}  // namespace ductile::pd
