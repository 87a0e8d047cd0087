// The compiled projective-dynamics domain of a Model (docs/architecture.md, "Projective dynamics"): per scene
// `pd_bodies` entry a pd::PdModel in the world frame at t = 0 with its drawn surface and live controls, the static
// planes of the rigid world as half-spaces every vertex meets, and the solver's settings. What model/pd_domain.h
// steps.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "ductile/model.h"
#include "ductile/scene.h"
#include "pd/pd_model.h"
#include "pd/pd_solver.h"

namespace ductile {

struct PdBodiesModel {
  struct Body {
    std::string name;
    pd::PdModel model;  ///< Rest positions in the world at t = 0; no obstacles (the domain sets them per step).
    /// The boundary triangles (vertex indices of `model`), outward; what is drawn.
    std::vector<std::array<int, 3>> surface;
    Eigen::Vector3d velocity = Eigen::Vector3d::Zero();  ///< Initial velocity of every vertex [m/s].
    double mass = 0;                                     ///< [kg].
    // Live (ParameterDerives::kPd): the material of every tet and the actuators' activations.
    double youngs_modulus = 1e5;
    double poisson_ratio = 0.3;
    double pneumatic_ratio = 1;
    double muscle_activation = 0;
    std::vector<double> joint_torques;  ///< Per bone (PdModel::bones order) [N·m or N].
    std::vector<std::string> bone_names;
    std::array<double, 4> rgba{0.45, 0.7, 0.4, 1.0};
  };
  std::vector<Body> bodies;
  pd::PdSolverSettings settings;
  double friction = 0.5;                ///< μ against every rigid geometry.
  std::vector<pd::PdHalfSpace> planes;  ///< The rigid world's static planes (friction set per step from `friction`).

  bool empty() const { return bodies.empty(); }
};

/// The controls of a body of `model` at the activations `pneumatic_ratio` and `muscle_activation` and the joint
/// torques `joint_torques` (one per bone): one pneumatic chamber (every tet), one muscle group, the pinned vertices
/// held where they started.
pd::PdControls ControlsOf(const pd::PdModel& model, double pneumatic_ratio, double muscle_activation,
                          const std::vector<double>& joint_torques);
/// ... at `body`'s live activations and torques.
inline pd::PdControls ControlsOf(const PdBodiesModel::Body& body) {
  return ControlsOf(body.model, body.pneumatic_ratio, body.muscle_activation, body.joint_torques);
}

/// A body's state at t = 0: at rest where it was placed, its free vertices at `velocity` [m/s].
pd::PdState InitialStateOf(const pd::PdModel& model, const Eigen::Vector3d& velocity);

/// The live parameters of `scene` (materials, activations, the `pd` settings) into a copy of `pd`'s bodies.
void ApplyPdParameters(const SceneDesc& scene, PdBodiesModel& pd);

/// Whether the PD domains of two models differ in their bodies, meshes, pins or planes (a state of one does not fit
/// the other, or the solvers must be rebuilt).
bool PdStructureChanged(const Model& a, const Model& b);

/// Compiles the scene's `pd_bodies` and `pd` into `model.pd`, with the static planes of `model.rigid` (which must be
/// compiled). Throws SceneError naming the body when a shape cannot be meshed, a `.msh` file is bad, the body's
/// material or actuators are invalid, or a bone's box holds no vertex, a pinned one or one of an earlier bone.
void CompilePd(const SceneDesc& scene, Model& model);

}  // namespace ductile
