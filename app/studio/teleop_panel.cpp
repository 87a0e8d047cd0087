#include "teleop_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <numbers>

#include "gamepad.h"
#include "space_mouse.h"
#include "teleop_keyboard.h"

namespace ductile::studio {
namespace {

using Quaternion = std::array<double, 4>;  // (w, x, y, z)

Quaternion Multiply(const Quaternion& a, const Quaternion& b) {
  return {a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3], a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
          a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1], a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]};
}

// The rotation by the rotation vector `r` (axis times angle [rad]) as a unit quaternion.
Quaternion FromRotationVector(const std::array<double, 3>& r) {
  const double angle = std::hypot(r[0], r[1], r[2]);
  if (angle == 0) return {1, 0, 0, 0};
  const double s = std::sin(0.5 * angle) / angle;
  return {std::cos(0.5 * angle), s * r[0], s * r[1], s * r[2]};
}

Quaternion Conjugate(const Quaternion& q) {
  return {q[0], -q[1], -q[2], -q[3]};
}

// q v q*, the vector v turned by the unit quaternion q.
std::array<double, 3> Rotate(const Quaternion& q, const std::array<double, 3>& v) {
  const Quaternion r = Multiply(Multiply(q, {0, v[0], v[1], v[2]}), Conjugate(q));
  return {r[1], r[2], r[3]};
}

Quaternion Normalized(const Quaternion& q) {
  const double n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  return {q[0] / n, q[1] / n, q[2] / n, q[3] / n};
}

// Roll, pitch, yaw [rad] of R = Rz(yaw) Ry(pitch) Rx(roll).
std::array<double, 3> RollPitchYaw(const Quaternion& q) {
  const double w = q[0], x = q[1], y = q[2], z = q[3];
  return {std::atan2(2 * (w * x + y * z), 1 - 2 * (x * x + y * y)),
          std::asin(std::clamp(2 * (w * y - z * x), -1.0, 1.0)),
          std::atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))};
}

// A tick longer than this [s] (the UI stalled) moves the target as if it had lasted this long: a stall must not
// make the target jump. Well above a frame on a CPU Vulkan driver (about 0.1 s), so the speed holds there too.
constexpr double kMaxTick = 0.5;
constexpr double kDegrees = 180.0 / std::numbers::pi;

}  // namespace

TeleopPanel::TeleopPanel(Viewport* viewport, QWidget* parent) : QWidget(parent), viewport_(viewport) {
  auto* layout = new QVBoxLayout(this);
  AddArmChoice(layout);
  AddSpeeds(layout);
  AddReadouts(layout);
  AddGripper(layout);
  AddDeviceList(layout);
  if (viewport_) {
    keyboard_ = new TeleopKeyboard(viewport_, this);
    connect(viewport_, &Viewport::gizmoDragged, this, &TeleopPanel::MoveTargetTo);
  }
  gamepad_ = std::make_unique<Gamepad>();
  space_mouse_ = std::make_unique<SpaceMouse>();
  ConnectControls();

  SetScene({}, {});
  timer_ = new QTimer(this);
  timer_->setInterval(16);
  connect(timer_, &QTimer::timeout, this, &TeleopPanel::Tick);
  timer_->start();
  clock_.start();
}

void TeleopPanel::AddArmChoice(QVBoxLayout* layout) {
  auto* form = new QFormLayout;
  robot_ = new QComboBox;
  robot_->setObjectName("teleop_robot");
  link_ = new QComboBox;
  link_->setObjectName("teleop_link");
  link_->setToolTip("The link whose frame follows the target (the tool, e.g. gripper_tcp)");
  form->addRow("Robot", robot_);
  form->addRow("Tool link", link_);
  layout->addLayout(form);
  note_ = new QLabel;
  note_->setObjectName("teleop_note");
  note_->setWordWrap(true);
  layout->addWidget(note_);

  auto* row = new QHBoxLayout;
  enable_ = new QCheckBox("Enable teleop");
  enable_->setObjectName("teleop_enable");
  enable_->setToolTip("The target starts at the tool link's pose now; click the viewport to drive it with the keys");
  orientation_ = new QCheckBox("orientation");
  orientation_->setObjectName("teleop_orientation");
  orientation_->setChecked(true);
  orientation_->setToolTip("Track the target's orientation too (off: position only)");
  row->addWidget(enable_);
  row->addWidget(orientation_);
  row->addStretch();
  layout->addLayout(row);
  link_arms_ = new QCheckBox("Move all arms together");
  link_arms_->setObjectName("teleop_link_arms");
  link_arms_->setToolTip(
      "The other robots follow the target too, each keeping its tool's pose relative to this robot's tool as it "
      "was when teleop started: two arms holding one rolling pin or box. The gripper buttons act on every arm.");
  layout->addWidget(link_arms_);
}

void TeleopPanel::AddSpeeds(QVBoxLayout* layout) {
  auto* speeds = new QFormLayout;
  speed_ = new QDoubleSpinBox;
  speed_->setObjectName("teleop_speed");
  speed_->setRange(0.01, 1.0);
  speed_->setSingleStep(0.01);
  speed_->setValue(0.1);
  speed_->setSuffix(" m/s");
  speed_->setToolTip("Target speed at full input (a held key, a stick pushed fully); Ctrl: ×0.2, Alt: ×3");
  turn_speed_ = new QDoubleSpinBox;
  turn_speed_->setObjectName("teleop_turn_speed");
  turn_speed_->setRange(0.05, 3.0);
  turn_speed_->setSingleStep(0.05);
  turn_speed_->setValue(0.5);
  turn_speed_->setSuffix(" rad/s");
  turn_speed_->setToolTip("Target turning rate at full input; Ctrl: ×0.2, Alt: ×3");
  speeds->addRow("Speed", speed_);
  speeds->addRow("Turn rate", turn_speed_);
  layout->addLayout(speeds);
}

void TeleopPanel::AddReadouts(QVBoxLayout* layout) {
  target_label_ = new QLabel;
  target_label_->setObjectName("teleop_target");
  target_label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  status_label_ = new QLabel;
  status_label_->setObjectName("teleop_status");
  status_label_->setWordWrap(true);
  layout->addWidget(target_label_);
  layout->addWidget(status_label_);
}

void TeleopPanel::AddGripper(QVBoxLayout* layout) {
  auto* gripper = new QGroupBox("Gripper");
  auto* grip = new QHBoxLayout(gripper);
  open_ = new QPushButton("Open");
  open_->setObjectName("gripper_open");
  close_ = new QPushButton("Close");
  close_->setObjectName("gripper_close");
  force_ = new QDoubleSpinBox;
  force_->setObjectName("gripper_force");
  force_->setRange(0, 500);
  force_->setValue(20);
  force_->setSuffix(" N");
  force_->setToolTip("Close squeezes with this force per finger; 0 closes to the closed position instead");
  gripper_label_ = new QLabel;
  gripper_label_->setObjectName("gripper_state");
  grip->addWidget(open_);
  grip->addWidget(close_);
  grip->addWidget(new QLabel("force"));
  grip->addWidget(force_);
  layout->addWidget(gripper);
  layout->addWidget(gripper_label_);
}

void TeleopPanel::AddDeviceList(QVBoxLayout* layout) {
  devices_label_ = new QLabel;
  devices_label_->setObjectName("teleop_devices");
  devices_label_->setWordWrap(true);
  layout->addWidget(devices_label_);
  layout->addStretch();
}

void TeleopPanel::ConnectControls() {
  connect(robot_, &QComboBox::currentIndexChanged, this, [this] {
    SetTeleopEnabled(false);
    gripper_closed_ = false;
    FillLinks();
  });
  connect(link_, &QComboBox::currentIndexChanged, this, [this] { SetTeleopEnabled(false); });
  connect(enable_, &QCheckBox::toggled, this, [this](bool on) { SetTeleopEnabled(on); });
  // Qt has already changed the box when it says so: linking or unlinking the arms switches teleop off.
  connect(link_arms_, &QCheckBox::toggled, this, [this] { SetTeleopEnabled(false); });
  connect(orientation_, &QCheckBox::toggled, this, [this](bool on) {
    target_.track_orientation = on;
    for (Follower& f : followers_) f.target.track_orientation = on;
    if (enabled_) PostTargets();
  });
  connect(open_, &QPushButton::clicked, this, [this] { SetGripperClosed(false); });
  connect(close_, &QPushButton::clicked, this, [this] { SetGripperClosed(true); });
}

TeleopPanel::~TeleopPanel() = default;

std::string TeleopPanel::robot() const {
  return robot_->currentText().toStdString();
}

std::string TeleopPanel::link() const {
  return link_->currentText().toStdString();
}

void TeleopPanel::SetScene(const std::vector<std::string>& robots, const std::vector<std::string>& bodies) {
  enabled_ = false;
  gripper_closed_ = false;
  tool_known_ = false;
  status_ = {};
  if (keyboard_) keyboard_->SetActive(false);
  body_names_ = bodies;
  poses_.clear();
  robots_ = robots;
  followers_.clear();
  {
    const QSignalBlocker block_robot(robot_), block_enable(enable_), block_link(link_arms_);
    robot_->clear();
    for (const std::string& r : robots) robot_->addItem(QString::fromStdString(r));
    enable_->setChecked(false);
    link_arms_->setChecked(false);
  }
  FillLinks();
  const bool any = !robots.empty();
  for (QWidget* w : std::initializer_list<QWidget*>{robot_, link_, enable_, orientation_, open_, close_, force_})
    w->setEnabled(any);
  link_arms_->setEnabled(robots.size() >= 2);
  link_arms_->setVisible(robots.size() >= 2);
  note_->setText(any ? QString() : "This scene has no robot to teleoperate.");
  note_->setVisible(!any);
  ShowTarget();
  status_label_->clear();
  gripper_label_->clear();
  devices_label_->setText(DeviceSummary());
}

void TeleopPanel::FillLinks() {
  const QSignalBlocker block(link_);
  link_->clear();
  const std::string prefix = robot() + "/";
  for (const std::string& name : body_names_) {
    if (robot().empty() || name.rfind(prefix, 0) != 0) continue;
    link_->addItem(QString::fromStdString(name.substr(prefix.size())));
  }
  link_->setCurrentIndex(link_->findText(QString::fromStdString(DefaultToolLink(robot()))));
}

std::string TeleopPanel::DefaultToolLink(const std::string& robot) const {
  const std::string prefix = robot + "/";
  std::string last;
  for (const std::string& name : body_names_) {
    if (name.rfind(prefix, 0) != 0) continue;
    last = name.substr(prefix.size());
    if (last == "gripper_tcp") return last;
  }
  return last;
}

void TeleopPanel::Update(const Snapshot& snapshot, const ControllerStatus& status) {
  const std::string name = robot() + "/" + link();
  tool_known_ = false;
  poses_.clear();
  for (const SnapshotBody& b : snapshot.bodies) {
    Pose pose;
    for (int a = 0; a < 3; ++a) pose.position[a] = b.position[a];
    for (int a = 0; a < 4; ++a) pose.quaternion[a] = b.quaternion[a];
    poses_.emplace_back(b.name, pose);
    if (b.name != name) continue;
    tool_known_ = true;
    for (int a = 0; a < 3; ++a) tool_position_[a] = b.position[a];
    for (int a = 0; a < 4; ++a) tool_quaternion_[a] = b.quaternion[a];
  }
  status_ = {};
  for (const RobotTeleopStatus& r : status.teleop)
    if (r.robot == robot()) status_ = r.status;
  if (robot().empty()) return;
  if (enabled_ && status_.active) {
    QString text = QString("IK residual %1 mm, %2°   tracking %3 mm%4")
                       .arg(1e3 * status_.ik_position, 0, 'f', 2)
                       .arg(kDegrees * status_.ik_rotation, 0, 'f', 2)
                       .arg(1e3 * status_.tracking, 0, 'f', 2)
                       .arg(status_.at_joint_limit ? "\nat a joint limit" : "");
    for (const Follower& f : followers_)
      for (const RobotTeleopStatus& r : status.teleop)
        if (r.robot == f.target.robot && r.status.active)
          text += QString("\n%1: IK %2 mm, tracking %3 mm%4")
                      .arg(QString::fromStdString(r.robot))
                      .arg(1e3 * r.status.ik_position, 0, 'f', 2)
                      .arg(1e3 * r.status.tracking, 0, 'f', 2)
                      .arg(r.status.at_joint_limit ? ", at a joint limit" : "");
    status_label_->setText(text);
  } else {
    status_label_->setText(enabled_ ? "waiting for the simulation…" : "teleoperation off");
  }
  gripper_label_->setText(status_.gripper_force > 0
                              ? QString("squeezing with %1 N per finger").arg(status_.gripper_force, 0, 'f', 1)
                              : QString("opening %1%").arg(100 * status_.gripper_opening, 0, 'f', 0));
}

void TeleopPanel::OnReset() {
  // The engine's Reset already dropped the targets and the gripper commands: nothing to post.
  enabled_ = false;
  gripper_closed_ = false;
  followers_.clear();
  if (keyboard_) keyboard_->SetActive(false);
  const QSignalBlocker block(enable_);
  enable_->setChecked(false);
  ShowTarget();
}

void TeleopPanel::ShowRefused(const Event& event) {
  note_->setText(QString::fromStdString(event.message));
  note_->setVisible(true);
  if (event.key == kTeleopKey && enabled_) {
    // Every arm stops (with linked arms, a target the engine took for another arm must not stay behind). The
    // note above stays: switching off does not touch it.
    SetTeleopEnabled(false);
  }
}

bool TeleopPanel::SetTeleopEnabled(bool on) {
  if (on == enabled_) return true;
  if (on) {
    const QString problem = robot().empty() ? "This scene has no robot to teleoperate."
                            : !tool_known_  ? QString::fromStdString("No pose of link '" + link() + "' yet.")
                                            : QString();
    if (!problem.isEmpty()) {
      note_->setText(problem);
      note_->setVisible(true);
      const QSignalBlocker block(enable_);
      enable_->setChecked(false);
      return false;
    }
    // The snapshot's quaternions are floats: made unit in double, so the conjugate is the inverse.
    const Quaternion tool_quaternion = Normalized(tool_quaternion_);
    // With linked arms, every other robot's tool; the target frame is then at the tools' centroid (turned like the
    // chosen tool), and every tool, the chosen one too, keeps its pose in that frame.
    std::vector<Follower> followers;
    if (arms_linked()) {
      for (const std::string& r : robots_) {
        if (r == robot()) continue;
        const std::string tool = DefaultToolLink(r);
        std::string link = r;
        link.append("/").append(tool);
        const auto it =
            std::find_if(poses_.begin(), poses_.end(), [&link](const auto& entry) { return entry.first == link; });
        if (tool.empty() || it == poses_.end()) {
          note_->setText(QString::fromStdString("No pose of the tool of robot '" + r + "' yet."));
          note_->setVisible(true);
          const QSignalBlocker block(enable_);
          enable_->setChecked(false);
          return false;
        }
        Follower f;
        f.target.robot = r;
        f.target.link = tool;
        f.target.track_orientation = orientation_->isChecked();
        f.relative = it->second;  // the world pose for now; made relative below
        followers.push_back(f);
      }
    }
    std::array<double, 3> centre = tool_position_;
    for (const Follower& f : followers)
      for (int a = 0; a < 3; ++a) centre[a] += f.relative.position[a];
    for (int a = 0; a < 3; ++a) centre[a] /= static_cast<double>(1 + followers.size());
    const auto relative = [&](const std::array<double, 3>& p_W) {
      return Rotate(Conjugate(tool_quaternion), {p_W[0] - centre[0], p_W[1] - centre[1], p_W[2] - centre[2]});
    };
    for (Follower& f : followers) {
      f.relative.quaternion = Multiply(Conjugate(tool_quaternion), Normalized(f.relative.quaternion));
      f.relative.position = relative(f.relative.position);
    }
    tool_offset_ = relative(tool_position_);
    followers_ = std::move(followers);
    target_ = {};
    target_.robot = robot();
    target_.link = link();
    target_.position = centre;
    target_.quaternion = tool_quaternion;
    target_.track_orientation = orientation_->isChecked();
    note_->setVisible(false);
    PostTargets();
  } else {
    Post(command::TeleopClear{target_.robot});
    for (const Follower& f : followers_) Post(command::TeleopClear{f.target.robot});
    followers_.clear();
  }
  enabled_ = on;
  if (keyboard_) keyboard_->SetActive(on);
  {
    const QSignalBlocker block(enable_);
    enable_->setChecked(on);
  }
  ShowTarget();
  return true;
}

bool TeleopPanel::arms_linked() const {
  return link_arms_->isChecked() && link_arms_->isEnabled();
}

std::vector<TeleopTarget> TeleopPanel::follower_targets() const {
  std::vector<TeleopTarget> targets;
  for (const Follower& f : followers_) {
    TeleopTarget t = f.target;
    const std::array<double, 3> offset = Rotate(target_.quaternion, f.relative.position);
    for (int a = 0; a < 3; ++a) t.position[a] = target_.position[a] + offset[a];
    t.quaternion = Normalized(Multiply(target_.quaternion, f.relative.quaternion));
    targets.push_back(t);
  }
  return targets;
}

TeleopTarget TeleopPanel::tool_target() const {
  // The target frame turns like the chosen tool, so only its position is offset.
  TeleopTarget t = target_;
  const std::array<double, 3> offset = Rotate(target_.quaternion, tool_offset_);
  for (int a = 0; a < 3; ++a) t.position[a] = target_.position[a] + offset[a];
  return t;
}

void TeleopPanel::PostTargets() {
  Post(command::Teleop{tool_target()});
  for (const TeleopTarget& t : follower_targets()) Post(command::Teleop{t});
}

void TeleopPanel::MoveTargetTo(const std::array<double, 3>& p_W) {
  if (!enabled_) return;
  target_.position = p_W;
  PostTargets();
  ShowTarget();
}

void TeleopPanel::SetGripperClosed(bool closed) {
  if (robot().empty()) return;
  std::vector<std::string> robots = {robot()};
  for (const Follower& f : followers_) robots.push_back(f.target.robot);
  for (const std::string& r : robots) {
    Post(command::Gripper{{r, closed ? 0.0 : 1.0, closed ? force_->value() : 0.0}});
  }
  gripper_closed_ = closed;
}

TeleopGizmo TeleopPanel::gizmo() const {
  TeleopGizmo g;
  g.visible = enabled_;
  for (int a = 0; a < 3; ++a) g.position[a] = static_cast<float>(target_.position[a]);
  for (int a = 0; a < 4; ++a) g.quaternion[a] = static_cast<float>(target_.quaternion[a]);
  g.tool_known = tool_known_ && followers_.empty();  // linked: the target is between the tools
  for (int a = 0; a < 3; ++a) g.tool[a] = static_cast<float>(tool_position_[a]);
  return g;
}

QString TeleopPanel::StatusLine() const {
  if (!enabled_) return {};
  return QString("teleop %1/%2%5: IK %3 mm, tracking %4 mm")
      .arg(QString::fromStdString(target_.robot), QString::fromStdString(target_.link))
      .arg(1e3 * status_.ik_position, 0, 'f', 2)
      .arg(1e3 * status_.tracking, 0, 'f', 1)
      .arg(followers_.empty() ? QString() : QString(" + %1 linked").arg(followers_.size()));
}

QString TeleopPanel::DeviceSummary() const {
  QStringList lines;
  lines << (keyboard_ ? "keyboard: in the viewport when teleop is on" : "no keyboard control (no viewport)");
  lines << QString::fromStdString(gamepad_->Describe());
  lines << QString::fromStdString(space_mouse_->Describe());
  return lines.join("\n");
}

void TeleopPanel::Post(const Command& c) {
  emit command(c);
}

void TeleopPanel::ShowTarget() {
  if (!enabled_) {
    target_label_->setText("target: —");
    return;
  }
  const std::array<double, 3> rpy = RollPitchYaw(target_.quaternion);
  target_label_->setText(QString("target  x %1  y %2  z %3 m\n        roll %4°  pitch %5°  yaw %6°")
                             .arg(target_.position[0], 0, 'f', 3)
                             .arg(target_.position[1], 0, 'f', 3)
                             .arg(target_.position[2], 0, 'f', 3)
                             .arg(kDegrees * rpy[0], 0, 'f', 1)
                             .arg(kDegrees * rpy[1], 0, 'f', 1)
                             .arg(kDegrees * rpy[2], 0, 'f', 1));
}

void TeleopPanel::Tick() {
  const double dt = std::min(kMaxTick, 1e-3 * static_cast<double>(clock_.restart()));
  std::vector<TeleopMotion> motions;
  if (keyboard_) motions.push_back(keyboard_->Poll());
  motions.push_back(gamepad_->Poll());
  motions.push_back(space_mouse_->Poll());
  devices_label_->setText(DeviceSummary());
  bool moved = false;
  int toggles = 0;
  for (const TeleopMotion& m : motions) {
    toggles += m.gripper_toggles;
    if (!enabled_ || !m.moving()) continue;
    // The motion's axes in the world.
    std::array<std::array<double, 3>, 3> axes{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
    if (m.frame == MotionFrame::kCamera && viewport_) {
      std::array<float, 3> right{}, up{}, back{};
      viewport_->CameraAxes(right, up, back);
      for (int i = 0; i < 3; ++i) {
        axes[0][i] = right[i];
        axes[1][i] = up[i];
        axes[2][i] = back[i];
      }
    }
    const double step = m.scale * speed_->value() * dt;       // [m] at full input
    const double turn = m.scale * turn_speed_->value() * dt;  // [rad] at full input
    std::array<double, 3> rotation{};
    for (int k = 0; k < 3; ++k)
      for (int i = 0; i < 3; ++i) {
        target_.position[i] += step * m.linear[k] * axes[k][i];
        rotation[i] += turn * m.angular[k] * axes[k][i];
      }
    // A turn about world axes: applied on the left of the target orientation.
    target_.quaternion = Normalized(Multiply(FromRotationVector(rotation), target_.quaternion));
    moved = true;
  }
  if (moved) {
    moved_seconds_ += dt;
    PostTargets();
    ShowTarget();
  }
  if (toggles % 2 == 1 && !robot().empty()) SetGripperClosed(!gripper_closed_);
}

}  // namespace ductile::studio
