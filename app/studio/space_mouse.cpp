#include "space_mouse.h"

#include <spnav.h>

namespace ductile::studio {
namespace {

// Device units at full deflection of the cap (spacenavd's default sensitivity).
constexpr double kFullDeflection = 350.0;
// Small deflections of a cap at rest.
constexpr double kDeadZone = 0.05;
// How often a missing daemon is looked for again.
constexpr std::chrono::seconds kRetry{3};

double Deflection(int value) {
  return ApplyDeadZone(static_cast<double>(value) / kFullDeflection, kDeadZone);
}

}  // namespace

SpaceMouse::SpaceMouse() {
  TryConnect();
}

SpaceMouse::~SpaceMouse() {
  if (connected_) spnav_close();
}

void SpaceMouse::TryConnect() {
  last_try_ = Clock::now();
  connected_ = spnav_open() != -1;
}

TeleopMotion SpaceMouse::Poll() {
  if (!connected_) {
    if (Clock::now() - last_try_ >= kRetry) TryConnect();
    if (!connected_) return {};
  }
  TeleopMotion m;
  m.frame = MotionFrame::kCamera;
  spnav_event event;
  int type = 0;
  while ((type = spnav_poll_event(&event)) != 0) {
    if (type == SPNAV_EVENT_MOTION) {
      // spacenavd's axes: x right, y up, z towards the user; rotations about the same axes.
      last_.linear = {Deflection(event.motion.x), Deflection(event.motion.y), Deflection(event.motion.z)};
      last_.angular = {Deflection(event.motion.rx), Deflection(event.motion.ry), Deflection(event.motion.rz)};
      last_motion_ = Clock::now();
    } else if (type == SPNAV_EVENT_BUTTON && event.button.press && event.button.bnum == 0) {
      ++m.gripper_toggles;
    }
  }
  if (Clock::now() - last_motion_ < std::chrono::milliseconds(250)) {
    m.linear = last_.linear;
    m.angular = last_.angular;
  }
  return m;
}

std::string SpaceMouse::Describe() const {
  return connected_ ? "SpaceMouse (spacenavd)" : "no SpaceMouse (spacenavd not running)";
}

}  // namespace ductile::studio
