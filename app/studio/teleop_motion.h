// What a teleoperation input device asks for during one UI tick: a velocity of the target as fractions of the
// Teleop dock's speeds, and gripper toggles. The dock adds up the devices' motions and integrates them over the
// tick's wall time, so the target moves at the same speed whatever the frame rate.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>

namespace ductile::studio {

/// The frame a motion's axes are given in.
enum class MotionFrame {
  kWorld,   ///< World x, y, z.
  kCamera,  ///< The viewport camera's right, up and backwards (towards the viewer) directions.
};

struct TeleopMotion {
  MotionFrame frame = MotionFrame::kWorld;
  std::array<double, 3> linear{};   ///< Per axis in [−1, 1]: a fraction of the translation speed.
  std::array<double, 3> angular{};  ///< Per axis in [−1, 1]: a fraction of the rotation speed (right-handed).
  double scale = 1;                 ///< Speed modifier, > 0 (the keyboard's Ctrl: slow, Alt: fast).
  int gripper_toggles = 0;          ///< Times the gripper toggle was pressed since the last poll.

  bool moving() const {
    const auto nonzero = [](double x) { return x != 0; };
    return std::any_of(linear.begin(), linear.end(), nonzero) || std::any_of(angular.begin(), angular.end(), nonzero);
  }
};

/// `x` with magnitudes below `dead_zone` (in [0, 1)) set to 0 and the rest rescaled to reach ±1 at ±1, clamped.
inline double ApplyDeadZone(double x, double dead_zone) {
  const double magnitude = std::min(1.0, std::abs(x));
  if (magnitude <= dead_zone) return 0;
  const double scaled = (magnitude - dead_zone) / (1 - dead_zone);
  return x < 0 ? -scaled : scaled;
}

}  // namespace ductile::studio
