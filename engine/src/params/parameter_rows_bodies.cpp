// The rows of the rigid bodies, joints, robots, welds, cameras and FEM–IPC bodies (parameter_row.h).
#include <string>
#include <vector>

#include "params/parameter_row.h"

namespace ductile::params::rows {

std::vector<ParameterInfo> RigidBodyRows() {
  return {
      Number("rigid_bodies.*.mass", "mass", "m", "kg")
          .At(Body([](RigidBodyDesc& b) { return &b.mass; }, IsDynamic, "mass", "only dynamic bodies have a mass"))
          .In(Positive())
          .DefaultNote("–")
          .Reset("changes the body's mass properties")
          .Doc("The body's mass."),
      Number("rigid_bodies.*.density", "density", "ρ", "kg/m³")
          .At(Body([](RigidBodyDesc& b) { return &b.density; }, IsDynamic, "density",
                   "only dynamic bodies have a mass"))
          .In(Positive())
          .DefaultNote("–")
          .Reset("changes the body's mass properties")
          .Doc("The mass per volume of the shape, instead of `mass`."),
      Number("rigid_bodies.*.friction", "friction", "μ", "")
          .At(Body([](RigidBodyDesc& b) { return &b.friction; }, AnyBody, "friction", ""))
          .Derives(ParameterDerives::kGeometryContact)
          .In(NonNegative())
          .DefaultNote("from `contact`")
          .Doc("Coulomb friction coefficient μ of this body."),
      Number("rigid_bodies.*.stiffness", "contact stiffness", "k", "N/m")
          .At(Body([](RigidBodyDesc& b) { return &b.stiffness; }, AnyBody, "stiffness", ""))
          .Derives(ParameterDerives::kGeometryContact)
          .In(Positive())
          .DefaultNote("from `contact`")
          .Doc("Contact stiffness k of this body."),
      Number("rigid_bodies.*.dissipation", "contact dissipation", "d", "s/m")
          .At(Body([](RigidBodyDesc& b) { return &b.dissipation; }, AnyBody, "dissipation", ""))
          .Derives(ParameterDerives::kGeometryContact)
          .In(NonNegative())
          .DefaultNote("from `contact`")
          .Doc("Hunt-Crossley dissipation d of this body."),
      Number("rigid_bodies.*.keyframes.*.time", "keyframe time", "t", "s")
          .At(KeyframeTime)
          .In(NonNegative())
          .Within("≥ 0, greater than the previous keyframe's")
          .Required()
          .Reset("changes the body's motion")
          .Doc("When the body is at this pose."),
  };
}

std::vector<ParameterInfo> BodyJointRows() {
  const std::string in_limits = "within [`lower`, `upper`]";
  return {
      Number("rigid_bodies.*.joint.position", "initial joint position", "q₀", "rad or m")
          .At(Joint(&BodyJointDesc::position, "position"))
          .Within(in_limits)
          .Default(0)
          .Initial()
          .Doc("Initial joint position q at t = 0 (required when 0 is outside the limits)."),
      Number("rigid_bodies.*.joint.lower", "lower limit", "q_min", "rad or m")
          .At(Joint(&BodyJointDesc::lower, "lower"))
          .Within("finite, ≤ `upper`")
          .DefaultNote("unbounded (−∞)")
          .Reset(kRigidStructure)
          .Doc("Lower joint limit; omitted: no lower limit."),
      Number("rigid_bodies.*.joint.upper", "upper limit", "q_max", "rad or m")
          .At(Joint(&BodyJointDesc::upper, "upper"))
          .Within("finite, ≥ `lower`")
          .DefaultNote("unbounded (+∞)")
          .Reset(kRigidStructure)
          .Doc("Upper joint limit; omitted: no upper limit."),
      Number("rigid_bodies.*.joint.damping", "joint damping", "b", "N·m·s/rad or N·s/m")
          .At(Joint(&BodyJointDesc::damping, "damping"))
          .In(NonNegative())
          .Default(0)
          .Reset(kRigidStructure)
          .Doc("Viscous joint damping: a joint force −`damping`·q̇."),
      Number("rigid_bodies.*.joint.effort", "effort limit", "u_max", "N·m or N")
          .At(Joint(&BodyJointDesc::effort, "effort"))
          .In(Positive())
          .DefaultNote("unbounded")
          .Reset(kRigidStructure)
          .Doc("Effort limit: the controller's force is limited to ±`effort`."),
      Number("rigid_bodies.*.joint.effort_applied", "applied effort", "u", "N·m or N")
          .At(Joint(&BodyJointDesc::effort_applied, "effort_applied"))
          .Within("\\|value\\| ≤ `effort`")
          .Default(0)
          .Reset(kRigidStructure)
          .Doc("Constant feed-forward joint force (torque for a revolute joint) applied during the whole run."),
      Number("rigid_bodies.*.joint.kp", "proportional gain", "K_p", "N·m/rad or N/m")
          .At(Joint(&BodyJointDesc::kp, "kp"))
          .In(NonNegative())
          .Default(0)
          .Reset(kRigidStructure)
          .Doc("Proportional gain of the joint's PD controller."),
      Number("rigid_bodies.*.joint.kd", "derivative gain", "K_d", "N·m·s/rad or N·s/m")
          .At(Joint(&BodyJointDesc::kd, "kd"))
          .In(NonNegative())
          .Default(0)
          .Reset(kRigidStructure)
          .Doc("Derivative gain. `kp` = `kd` = 0: no controller."),
      Number("rigid_bodies.*.joint.target", "target position", "q_d", "rad or m")
          .At(Joint(&BodyJointDesc::target, "target"))
          .Within(in_limits)
          .Default(0)
          .Reset(kRigidStructure)
          .Doc("Target position q_d of the controller (required with a controller when 0 is outside the limits)."),
  };
}

std::vector<ParameterInfo> RobotWeldCameraRows() {
  const std::string in_limits = "within the joint's limits";
  return {
      Number("robots.*.initial_positions.*", "initial joint position", "q₀", "rad or m")
          .At(RobotJoint("initial position",
                         [](RobotDesc& r, const std::string& j) { return MapValue(r.initial_positions, j); }))
          .Type("map JOINT -> number")
          .Within(in_limits)
          .DefaultNote("every joint at 0")
          .Initial()
          .Doc("Joint positions at t = 0."),
      Number("robots.*.controllers.*.kp", "proportional gain", "K_p", "N·m/rad or N/m")
          .At(RobotJoint("controller",
                         [](RobotDesc& r, const std::string& j) { return Controller(r, j, &JointControllerDesc::kp); }))
          .In(NonNegative())
          .Default(0)
          .Reset(kRigidStructure)
          .Doc("Proportional gain."),
      Number("robots.*.controllers.*.kd", "derivative gain", "K_d", "N·m·s/rad or N·s/m")
          .At(RobotJoint("controller",
                         [](RobotDesc& r, const std::string& j) { return Controller(r, j, &JointControllerDesc::kd); }))
          .In(NonNegative())
          .Default(0)
          .Reset(kRigidStructure)
          .Doc("Derivative gain; `kp + kd` must be > 0."),
      Number("robots.*.controllers.*.target", "target position", "q_d", "rad or m")
          .At(RobotJoint(
              "controller",
              [](RobotDesc& r, const std::string& j) { return Controller(r, j, &JointControllerDesc::target); }))
          .Within(in_limits)
          .Default(0)
          .Reset(kRigidStructure)
          .Doc("Target position q_d (required when 0 is outside the limits)."),
      Number("robots.*.controllers.*.feedforward", "feed-forward force", "u_ff", "N·m or N")
          .At(RobotJoint(
              "controller",
              [](RobotDesc& r, const std::string& j) { return Controller(r, j, &JointControllerDesc::feedforward); }))
          .Default(0)
          .Reset(kRigidStructure)
          .Doc("Constant force u_ff added to the PD term."),
      Number("robots.*.joint_efforts.*", "joint effort", "u", "N·m or N")
          .At(RobotJoint("joint effort",
                         [](RobotDesc& r, const std::string& j) { return MapValue(r.joint_efforts, j); }))
          .Type("map JOINT -> number")
          .Within("\\|value\\| ≤ the joint's URDF `effort` limit")
          .DefaultNote("none (0)")
          .Reset(kRigidStructure)
          .Doc("Constant feed-forward joint force (torque for a revolute joint) applied during the whole run."),
      Number("robots.*.link_force_limit", "link force limit", "F_max", "N")
          .At(Entry(&SceneDesc::robots, "robot", &RobotDesc::link_force_limit))
          .Derives(ParameterDerives::kRobotLimits)
          .In(Positive())
          .Default(kDefaultLinkForceLimit)
          .Doc("The contact force one of the robot's links may carry: a larger one, and any contact between two of its "
               "links, is reported after the step as a warning (docs/architecture.md, \"Robot contact checks\"). The "
               "default, 4 · 7 kg · 9.81 m/s², is four times the weight of the 7 kg rated payload of the KUKA LBR iiwa "
               "7 R800, the shipped robots' arm; set it for another arm (a few times its payload's weight)."),
      Number("welds.*.stiffness", "weld stiffness", "k", "N/m")
          .At(Entry(&SceneDesc::welds, "weld", &WeldDesc::stiffness))
          .In(NonNegative())
          .Default(0)
          .Reset("changes the welds")
          .Doc("`0`: near-rigid, F and G stay together. > 0: a spring pulling G to F with `stiffness` N/m per metre of "
               "position error and `stiffness`·1 m² N·m/rad per radian of rotation error."),
      Number("welds.*.damping", "weld damping", "d", "N·s/m")
          .At(Entry(&SceneDesc::welds, "weld", &WeldDesc::damping))
          .In(NonNegative())
          .Within("≥ 0; `0` when `stiffness` is `0`")
          .Default(0)
          .Reset("changes the welds")
          .Doc("Damper of the spring: N·s/m on the relative velocity of the frames, `damping`·1 m² N·m·s/rad on their "
               "relative angular velocity."),
      Number("cameras.*.fov_deg", "field of view", "fov", "deg")
          .At(Entry(&SceneDesc::cameras, "camera", &CameraDesc::fov_deg))
          .In({0, 180, true, true})
          .Default(40)
          .Reload("is read when the scene is opened")
          .Doc("Vertical field of view."),
  };
}

// The FEM–IPC domain (fem/ipc_system.h): soft bodies, affine bodies and the `ipc` settings.
std::vector<ParameterInfo> SoftAndAffineBodyRows() {
  const char* const mesh = "changes the body's mesh";
  const char* const mass = "changes the body's mass";
  return {
      Number("soft_bodies.*.resolution", "tet size", "h", "m")
          .At(Entry(&SceneDesc::soft_bodies, "soft body", &SoftBodyDesc::resolution))
          .In(Positive())
          .Default(0.01)
          .Reset(mesh)
          .Doc("Target edge length of the tets a shape or closed OBJ mesh is cut into (our own mesher, "
               "fem/tetrahedralise.h; round surfaces are approximated within about h)."),
      Number("soft_bodies.*.thickness", "sheet thickness", "t", "m")
          .At(Entry(&SceneDesc::soft_bodies, "soft body", &SoftBodyDesc::thickness))
          .In(Positive())
          .Default(0.005)
          .Reset(mesh)
          .Doc("A sheet's thickness (sheets only): one layer of tets."),
      Number("soft_bodies.*.youngs_modulus", "Young's modulus", "E", "Pa")
          .At(Entry(&SceneDesc::soft_bodies, "soft body", &SoftBodyDesc::youngs_modulus))
          .Derives(ParameterDerives::kFem)
          .In(Positive())
          .Default(1e5)
          .Doc("Young's modulus E. Live."),
      Number("soft_bodies.*.poisson_ratio", "Poisson's ratio", "ν", "")
          .At(Entry(&SceneDesc::soft_bodies, "soft body", &SoftBodyDesc::poisson_ratio))
          .Derives(ParameterDerives::kFem)
          .In({-1, 0.5, true, true})
          .Default(0.4)
          .Doc("Poisson's ratio ν. Live."),
      Number("soft_bodies.*.density", "density", "ρ", "kg/m³")
          .At(Entry(&SceneDesc::soft_bodies, "soft body", &SoftBodyDesc::density))
          .In(Positive())
          .Default(1000)
          .Reset(mass)
          .Doc("Mass per volume, lumped onto the vertices."),
      Vector("soft_bodies.*.velocity", "initial velocity", "v₀", "m/s")
          .At(Entry(&SceneDesc::soft_bodies, "soft body", &SoftBodyDesc::velocity))
          .Default(Vector3{0, 0, 0})
          .Initial()
          .Doc("Initial velocity of every vertex."),
      Number("affine_bodies.*.resolution", "surface resolution", "h", "m")
          .At(Entry(&SceneDesc::affine_bodies, "affine body", &AffineBodyDesc::resolution))
          .In(Positive())
          .Default(0.01)
          .Reset(mesh)
          .Doc("Edge length of the surface of a sphere, cylinder or capsule."),
      Number("affine_bodies.*.density", "density", "ρ", "kg/m³")
          .At(Entry(&SceneDesc::affine_bodies, "affine body", &AffineBodyDesc::density))
          .In(Positive())
          .Default(1000)
          .Reset(mass)
          .Doc("Mass per volume of the shape (its mass and second moments are exact for the shape)."),
      Number("affine_bodies.*.stiffness", "orthogonality stiffness", "κ_A", "Pa")
          .At(Entry(&SceneDesc::affine_bodies, "affine body", &AffineBodyDesc::stiffness))
          .Derives(ParameterDerives::kFem)
          .In(Positive())
          .Default(1e8)
          .Doc("Orthogonality stiffness κ_A of the potential κ_A V ‖AAᵀ − I‖² that keeps the body rigid. Live."),
      Vector("affine_bodies.*.velocity", "initial velocity", "v₀", "m/s")
          .At(Entry(&SceneDesc::affine_bodies, "affine body", &AffineBodyDesc::velocity))
          .Default(Vector3{0, 0, 0})
          .Initial()
          .Doc("Initial velocity of the shape frame's origin."),
      Vector("affine_bodies.*.angular_velocity", "initial angular velocity", "ω₀", "rad/s")
          .At(Entry(&SceneDesc::affine_bodies, "affine body", &AffineBodyDesc::angular_velocity))
          .Default(Vector3{0, 0, 0})
          .Initial()
          .Doc("Initial angular velocity, world frame."),
  };
}

std::vector<ParameterInfo> IpcRows() {
  return {
      Number("ipc.dhat", "barrier distance", "d̂", "m")
          .At(Fixed([](SceneDesc& s) { return Of(s.ipc.dhat); }))
          .Derives(ParameterDerives::kFem)
          .In(Positive())
          .Default(1e-3)
          .Doc("Barrier activation distance d̂: surfaces closer than d̂ repel, so bodies rest a fraction of d̂ apart."),
      Number("ipc.barrier_stiffness", "barrier stiffness", "κ", "J/(m⁴ s²)")
          .At(Fixed([](SceneDesc& s) { return Of(s.ipc.barrier_stiffness); }))
          .Derives(ParameterDerives::kFem)
          .In(NonNegative())
          .Default(0)
          .Doc("Barrier stiffness κ on squared distances (the incremental potential holds κ Δt² b); `0`: adaptive (Li "
               "et al. 2020, Sec. 4.3), at least stiff enough that a contact at d̂/10 is as stiff as one element of the "
               "stiffest soft body."),
      Number("ipc.friction", "friction", "μ", "")
          .At(Fixed([](SceneDesc& s) { return Of(s.ipc.friction); }))
          .Derives(ParameterDerives::kFem)
          .In(NonNegative())
          .Default(0.5)
          .Doc("Coulomb friction coefficient μ between every pair of surfaces (lagged, smoothed friction)."),
      Number("ipc.friction_velocity", "friction smoothing speed", "ε_v", "m/s")
          .At(Fixed([](SceneDesc& s) { return Of(s.ipc.friction_velocity); }))
          .Derives(ParameterDerives::kFem)
          .In(Positive())
          .Default(1e-3)
          .Doc("Smoothing speed ε_v: slower tangential motion is treated as sticking."),
      Number("ipc.newton_tolerance", "Newton tolerance", "ε_d", "m/s")
          .At(Fixed([](SceneDesc& s) { return Of(s.ipc.newton_tolerance); }))
          .Derives(ParameterDerives::kFem)
          .In(Positive())
          .Default(1e-3)
          .Doc("Newton stops after the first step whose largest vertex increment divided by Δt is below this (that "
               "step is taken too)."),
      Integer("ipc.max_newton_iterations", "Newton iteration limit", "n_max")
          .At(Fixed([](SceneDesc& s) { return Of(s.ipc.max_newton_iterations); }))
          .Derives(ParameterDerives::kFem)
          .In(AtLeast(1))
          .Default(200)
          .Doc("A step that needs more keeps its last iterate (which is still intersection-free) and reports it."),
  };
}

}  // namespace ductile::params::rows
