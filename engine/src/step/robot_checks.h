// The robots' contacts after a step (docs/architecture.md, "Robot contact checks"): every contact between two links
// of one robot that can meet (a self-contact) and every link whose contact force, averaged over the last
// RobotForceWindow::kSeconds, exceeds its robot's link_force_limit, into the step's telemetry, with each robot's most
// loaded link.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "contact/rigid_system.h"
#include "ductile/model.h"
#include "ductile/telemetry.h"
#include "state/state_data.h"

namespace ductile {

/// The mean contact force [N] and its moment about the body origin [N·m] on tree body b over the last step, world:
/// the rigid step's contacts plus the MPM and IPC contact impulses divided by Δt (none before the first step).
void BodyContactWrench(const Model& model, const State::Data& state, const contact::RigidSystem& rigid, int b,
                       Eigen::Vector3d& f_W, Eigen::Vector3d& t_W);

/// The robot links' contact forces of the last steps. Their mean over kSeconds is what the checks compare with the
/// limit, as a force sensor of about 50 Hz bandwidth would read it: one step's force chatters where a contact solve
/// alternates from step to step (a folded cloth squeezed with 40 N per finger gave 0 and up to 550 N in turn, a
/// 40-60 N mean), while a link pressed for real keeps its force over many steps. Workspace scratch, not State: it
/// starts anew after a reset or a restored state, and when Δt changes.
class RobotForceWindow {
 public:
  static constexpr double kSeconds = 0.02;  ///< [s]
  /// Adds one step's forces [N] (per robot link, robots in scene order, links in tree order) for steps of `dt` [s];
  /// `mean` gets their mean over the window (fewer steps until it is full).
  void Add(double dt, const std::vector<Eigen::Vector3d>& forces, std::vector<Eigen::Vector3d>& mean);
  void Clear() {
    steps_.clear();
    next_ = 0;
  }

 private:
  double dt_ = 0;
  std::size_t next_ = 0;                             // the oldest step once the ring is full
  std::vector<std::vector<Eigen::Vector3d>> steps_;  // a ring of round(kSeconds / dt) steps, at least one
};

/// Fills `telemetry.robot_alerts` and `telemetry.robot_loads` from the step just taken.
void CheckRobotContacts(const Model& model, const State::Data& state, const contact::RigidSystem& rigid,
                        RobotForceWindow& window, StepTelemetry& telemetry);

}  // namespace ductile
