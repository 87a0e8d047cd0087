// The Teleop dock (docs/studio.md, "Teleoperation"): choose a robot and its tool link, switch teleoperation on (the
// target starts at the link's pose in the newest snapshot), move the target with the keyboard in the viewport, the
// viewport's gizmo, a gamepad or a SpaceMouse, and open, close or squeeze the gripper. A 60 Hz timer polls the
// devices, integrates their motion over the wall time since the last tick (speeds in m/s and rad/s, so the frame
// rate does not matter) and posts the moved target to the simulation thread as a command::Teleop. The dock shows
// the target, the IK residual and tracking error the SimController publishes, and which devices were found. With
// "Move all arms together" the scene's other robots follow the target too: the target frame starts at the tools'
// centroid, turned like the chosen tool, and every tool keeps the pose it had in that frame when teleoperation
// started (two hands on a rolling pin).
#pragma once

#include <QElapsedTimer>
#include <QString>
#include <QWidget>
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "ductile/simulator.h"
#include "ductile/snapshot.h"
#include "sim_controller.h"
#include "teleop_motion.h"
#include "viewport.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QTimer;
class QVBoxLayout;

namespace ductile::studio {

class Gamepad;
class SpaceMouse;
class TeleopKeyboard;

class TeleopPanel : public QWidget {
  Q_OBJECT

 public:
  /// `viewport`: where the keyboard acts and whose camera the SpaceMouse follows; null without Vulkan (then only
  /// the gamepad, the SpaceMouse and the buttons act).
  explicit TeleopPanel(Viewport* viewport, QWidget* parent = nullptr);
  ~TeleopPanel() override;

  /// A newly opened scene: its robots and moving bodies (OpenedScene::robots and ::bodies), whose bodies named
  /// "ROBOT/LINK" give each robot's links. Teleoperation is off.
  void SetScene(const std::vector<std::string>& robots, const std::vector<std::string>& bodies);
  /// With each UI poll: the newest snapshot (the tool link's pose) and the controller's status (IK residual and
  /// tracking error of the robot).
  void Update(const Snapshot& snapshot, const ControllerStatus& status);
  /// The simulation went back to t = 0, which drops the engine's target and gripper command: teleoperation off.
  void OnReset();
  /// A refused command (Event::key kTeleopKey or kGripperKey): the reason in the dock; a refused target also
  /// switches teleoperation off.
  void ShowRefused(const Event& event);

  /// Switches teleoperation of the chosen robot and link on, with the target at the link's pose now, or off (the
  /// arm's controllers keep their last targets). With linked arms (arms_linked) every other robot's tool link
  /// follows too. Returns false, with the reason in the dock, when it cannot start.
  bool SetTeleopEnabled(bool on);
  /// Whether the other robots follow the target ("Move all arms together", enabled where the scene has more than
  /// one robot); ticking or unticking the box switches teleop off.
  bool arms_linked() const;
  /// The targets of the robots that follow the chosen one, while teleoperating with linked arms.
  std::vector<TeleopTarget> follower_targets() const;
  /// The chosen robot's own target: target() itself, or with linked arms its tool's place in the target frame.
  TeleopTarget tool_target() const;
  bool teleop_enabled() const { return enabled_; }
  /// Moves the target's position to `p_W` [m] (the gizmo does), when teleoperating.
  void MoveTargetTo(const std::array<double, 3>& p_W);
  /// Closes (squeezing with the force in the dock, or to the closed position at force 0) or opens the gripper.
  void SetGripperClosed(bool closed);
  bool gripper_closed() const { return gripper_closed_; }
  /// The target frame: the chosen tool's target, or with linked arms the frame all the tools move with.
  const TeleopTarget& target() const { return target_; }
  /// The time [s] the input devices have moved the target so far: the sum of the ticks in which one did, each at
  /// most 0.5 s (a stall of the UI thread beyond that is not made up). For tests: motion over it is the speed.
  double moved_seconds() const { return moved_seconds_; }
  /// The chosen robot and link; empty when the scene has no robot.
  std::string robot() const;
  std::string link() const;
  /// What the viewport draws and drags.
  TeleopGizmo gizmo() const;
  /// A line for the HUD and status bar while teleoperating ("teleop arm/gripper_tcp: IK … mm"), else empty.
  QString StatusLine() const;
  /// The devices found, one per line.
  QString DeviceSummary() const;

 signals:
  /// A teleop or gripper command for the simulation thread.
  void command(const ductile::studio::Command& command);

 private:
  // The constructor's parts: the dock's widgets from the top down, and what its controls do.
  void AddArmChoice(QVBoxLayout* layout);  // robot, tool link, note, enable and link boxes
  void AddSpeeds(QVBoxLayout* layout);
  void AddReadouts(QVBoxLayout* layout);  // the target and the controller's status
  void AddGripper(QVBoxLayout* layout);
  void AddDeviceList(QVBoxLayout* layout);
  void ConnectControls();
  void Tick();
  void FillLinks();
  void Post(const Command& c);
  /// Posts the target and, with linked arms, each follower's target.
  void PostTargets();
  void ShowTarget();
  /// The default tool link of `robot`: gripper_tcp when it has one, else its last link; empty when unknown.
  std::string DefaultToolLink(const std::string& robot) const;

  Viewport* viewport_ = nullptr;
  QComboBox* robot_ = nullptr;
  QComboBox* link_ = nullptr;
  QLabel* note_ = nullptr;
  QCheckBox* enable_ = nullptr;
  QCheckBox* orientation_ = nullptr;
  QCheckBox* link_arms_ = nullptr;
  QDoubleSpinBox* speed_ = nullptr;       // [m/s]
  QDoubleSpinBox* turn_speed_ = nullptr;  // [rad/s]
  QLabel* target_label_ = nullptr;
  QLabel* status_label_ = nullptr;
  QPushButton* open_ = nullptr;
  QPushButton* close_ = nullptr;
  QDoubleSpinBox* force_ = nullptr;  // [N]
  QLabel* gripper_label_ = nullptr;
  QLabel* devices_label_ = nullptr;
  QTimer* timer_ = nullptr;
  QElapsedTimer clock_;
  double moved_seconds_ = 0;

  TeleopKeyboard* keyboard_ = nullptr;
  std::unique_ptr<Gamepad> gamepad_;
  std::unique_ptr<SpaceMouse> space_mouse_;

  std::vector<std::string> body_names_;  // the scene's moving bodies, for the link lists
  std::vector<std::string> robots_;
  // Every body's pose in the newest snapshot, by name (the followers' tools when teleop starts).
  struct Pose {
    std::array<double, 3> position{};
    std::array<double, 4> quaternion{1, 0, 0, 0};
  };
  std::vector<std::pair<std::string, Pose>> poses_;
  // With linked arms: each follower's target template and its tool's pose in the chosen tool's frame.
  struct Follower {
    TeleopTarget target;
    Pose relative;
  };
  std::vector<Follower> followers_;
  // The chosen tool's position in the target frame (zero unless linked; the frame turns like the tool).
  std::array<double, 3> tool_offset_{};
  bool enabled_ = false;
  bool gripper_closed_ = false;
  TeleopTarget target_;
  bool tool_known_ = false;  // the chosen link is in the newest snapshot:
  std::array<double, 3> tool_position_{};
  std::array<double, 4> tool_quaternion_{1, 0, 0, 0};
  TeleopStatus status_;  // of the chosen robot, after the last step
};

}  // namespace ductile::studio
