#include "model/compile_rigid.h"

#include <cmath>
#include <map>
#include <stdexcept>

#include "ductile/multibody_desc.h"
#include "geometry/mesh_import.h"
#include "model/add_multibody.h"
#include "model/compile_parts.h"
#include "robot/self_collision.h"
#include "robot/teleop.h"
#include "scene/desc_eigen.h"

namespace ductile {
namespace {

// The visual geometries of a link, attached to body b.
void AddVisuals(const LinkDesc& link, int b, const multibody::ContactDefaults& defaults, RigidModel& rigid) {
  for (const GeometryDesc& g : link.visuals) {
    VisualGeometry v{multibody::ToCollisionGeometry(g, defaults), g.rgba};
    v.shape.body = b;
    rigid.visuals.push_back(std::move(v));
  }
}

// The one-link description of a single rigid body.
MultibodyDesc SingleBodyDesc(const RigidBodyDesc& body) {
  MultibodyDesc desc;
  desc.name = body.name;
  LinkDesc link;
  link.name = body.name;
  link.where = body.where;
  GeometryDesc g;
  g.name = body.name;
  g.shape = body.shape;
  g.rgba = body.rgba;
  g.contact.friction = body.friction;
  g.contact.stiffness = body.stiffness;
  g.contact.dissipation = body.dissipation;
  g.where = body.where;
  link.visuals.push_back(g);
  link.collisions.push_back(g);
  if (body.type == RigidBodyType::kDynamic) {
    const ShapeMassProperties props = ComputeShapeMassProperties(body.shape);
    if (!(props.volume > 0)) Fail(body.where, "rigid body '" + body.name + "': its shape has no volume");
    const double mass = body.mass > 0 ? body.mass : body.density * props.volume;
    const double density = mass / props.volume;
    const Eigen::Matrix3d I = density * props.unit_inertia;
    link.inertia.mass = mass;
    link.inertia.com = {props.center.x(), props.center.y(), props.center.z()};
    link.inertia.inertia = {I(0, 0), I(1, 1), I(2, 2), I(0, 1), I(0, 2), I(1, 2)};
  }
  desc.links.push_back(link);
  return desc;
}

// A dynamic scene body hanging on a parent by a revolute, prismatic or fixed joint (parents come earlier in the
// file, so they are in the tree already). Returns its body index.
int AddJointedBody(const RigidBodyDesc& body, const MultibodyDesc& desc, const multibody::ContactDefaults& defaults,
                   const std::map<std::string, Eigen::Isometry3d>& static_poses, RigidModel& rigid,
                   std::vector<std::pair<int, double>>& initial_q, std::vector<std::pair<int, double>>& efforts) {
  const BodyJointDesc& j = body.joint;
  multibody::Body b;
  b.name = body.name;
  b.link = body.name;
  b.joint_name = body.name + "/joint";
  b.joint = j.type;
  b.X_PJ = ToIsometry(j.origin);
  if (j.parent != "world") {
    if (const auto s = static_poses.find(j.parent); s != static_poses.end()) {
      b.X_PJ = s->second * b.X_PJ;
    } else {
      b.parent = rigid.tree.FindBody(j.parent);
      if (b.parent < 0) Fail(j.where, "rigid body '" + body.name + "': no parent body '" + j.parent + "' before it");
    }
  }
  b.axis_J = ToEigen(j.axis).normalized();
  b.lower = std::isfinite(j.lower) ? j.lower : -1e300;
  b.upper = std::isfinite(j.upper) ? j.upper : 1e300;
  b.effort = std::isfinite(j.effort) ? j.effort : 1e300;
  b.damping = j.damping;
  const InertiaDesc& inertia = desc.links.front().inertia;
  b.mass = inertia.mass;
  b.p_BCm = ToEigen(inertia.com);
  const auto& I = inertia.inertia;
  b.I_Cm_B << I[0], I[3], I[4], I[3], I[1], I[5], I[4], I[5], I[2];
  const int index = rigid.tree.AddBody(b);
  for (const GeometryDesc& g : desc.links.front().collisions) {
    geometry::CollisionGeometry cg = multibody::ToCollisionGeometry(g, defaults);
    cg.body = index;
    rigid.world.Add(std::move(cg));
  }
  // A body and the parent its joint holds it to do not collide.
  if (b.parent >= 0) rigid.world.ExcludeBodyPair(b.parent, index);
  const multibody::Body& added = rigid.tree.body(index);
  if (added.nv == 1) {
    initial_q.emplace_back(added.q_start, j.position);
    if (j.effort_applied != 0) efforts.emplace_back(added.v_start, j.effort_applied);
    if (j.kp + j.kd > 0) rigid.controllers.push_back({index, j.kp, j.kd, {j.target, 0, 0}});
  }
  return index;
}

// Records that the geometries added to the world since the last record belong to scene rigid body `body`.
void AddBodySources(int body, RigidModel& rigid) {
  while (static_cast<int>(rigid.contact_sources.size()) < rigid.world.num_geometries())
    rigid.contact_sources.push_back({body, -1, -1, -1});
}

// Records the contact properties that a robot's collision geometries declare: AddMultibody adds them link by link,
// each link's in the order of its description.
void AddRobotSources(const MultibodyDesc& desc, RigidModel& rigid) {
  for (const LinkDesc& link : desc.links)
    for (const GeometryDesc& g : link.collisions)
      rigid.contact_sources.push_back({-1, g.contact.friction, g.contact.stiffness, g.contact.dissipation});
  if (static_cast<int>(rigid.contact_sources.size()) != rigid.world.num_geometries())
    throw std::logic_error("CompileRigid: robot '" + desc.name + "' added geometries other than its links' collisions");
}

// What compiling the bodies and robots gathers for the initial state, and the static bodies' poses for the welds.
struct RigidInitial {
  std::vector<std::pair<int, Eigen::VectorXd>> initial_v;  // per dynamic body: (v_start, (ω, v))
  std::vector<std::pair<int, double>> efforts;             // (v index, feed-forward effort)
  std::map<std::string, Eigen::Isometry3d> static_poses;   // static bodies: weld partners fixed in the world
  std::vector<std::pair<int, double>> initial_q;           // (q index, value)
};

// A static body: its collision geometry fixed in the world, drawn too.
void AddStaticBody(const RigidBodyDesc& body, const MultibodyDesc& desc, const multibody::ContactDefaults& defaults,
                   RigidModel& rigid, RigidInitial& init) {
  init.static_poses[body.name] = ToIsometry(body.pose);
  for (const GeometryDesc& g : desc.links.front().collisions) {
    geometry::CollisionGeometry cg = multibody::ToCollisionGeometry(g, defaults);
    cg.X_BG = ToIsometry(body.pose) * cg.X_BG;
    rigid.visuals.push_back({cg, g.rgba});
    rigid.world.Add(std::move(cg));
  }
}

// A dynamic body: free (a floating base with its initial velocity) or on a joint; its visuals and applied wrench.
void AddDynamicBody(const RigidBodyDesc& body, const MultibodyDesc& desc, const multibody::ContactDefaults& defaults,
                    RigidModel& rigid, RigidInitial& init) {
  int b = -1;
  if (!body.has_joint) {
    b = multibody::AddMultibody(desc, body.name, ToIsometry(body.pose), true, defaults, rigid.tree, rigid.world, true);
    Eigen::VectorXd v(6);
    v << ToEigen(body.angular_velocity), ToEigen(body.velocity);
    init.initial_v.emplace_back(rigid.tree.body(b).v_start, v);
  } else {
    b = AddJointedBody(body, desc, defaults, init.static_poses, rigid, init.initial_q, init.efforts);
  }
  AddVisuals(desc.links.front(), b, defaults, rigid);
  if (ToEigen(body.force).squaredNorm() + ToEigen(body.torque).squaredNorm() > 0)
    rigid.body_wrenches.push_back({b, ToEigen(body.force), ToEigen(body.torque)});
  rigid.output_bodies.push_back(b);
}

// A kinematic body: moved along its keyframes' trajectory.
void AddKinematicBody(const RigidBodyDesc& body, const MultibodyDesc& desc, const multibody::ContactDefaults& defaults,
                      RigidModel& rigid) {
  multibody::PoseTrajectory tr;
  tr.interpolation = body.interpolation;
  for (const KeyframeDesc& k : body.keyframes) {
    const Eigen::Isometry3d X = ToIsometry(k.pose);
    tr.times.push_back(k.time);
    tr.positions.emplace_back(X.translation());
    tr.rotations.emplace_back(X.linear());
  }
  multibody::Body b;
  b.name = body.name;
  b.link = body.name;
  b.joint_name = body.name + "/motion";
  b.trajectory = rigid.tree.AddTrajectory(std::move(tr));
  const int index = rigid.tree.AddBody(b);
  for (const GeometryDesc& g : desc.links.front().collisions) {
    geometry::CollisionGeometry cg = multibody::ToCollisionGeometry(g, defaults);
    cg.body = index;
    rigid.world.Add(std::move(cg));
  }
  AddVisuals(desc.links.front(), index, defaults, rigid);
  rigid.output_bodies.push_back(index);
}

// A robot's script: the tool path as a pose trajectory and the gripper commands by time.
void AddScript(const std::string& robot, const RobotScriptDesc& desc, RigidModel& rigid) {
  RobotScript script;
  script.robot = robot;
  script.link = desc.link;
  script.tool_point = ToEigen(desc.tool_point);
  script.track_orientation = desc.track_orientation;
  // What the teleoperation needs, checked here by the teleoperation's own Configure so that the scene fails at load
  // instead of at its first step: a controlled joint between the root and the tool link, and for gripper commands
  // controlled prismatic finger joints off that chain.
  robot::ArmTeleop arm;
  if (!arm.Configure(rigid.tree, rigid.controllers, robot, desc.link).empty())
    Fail(desc.where, "script of robot '" + robot + "': no joint with a controller between the root and link '" +
                         desc.link + "' (add 'controllers' for the arm's joints)");
  std::vector<int> chain;
  for (int b = arm.link_body(); b >= 0; b = rigid.tree.body(b).parent) chain.push_back(b);
  robot::GripperTeleop gripper;
  const bool fingers = gripper.Configure(rigid.tree, rigid.controllers, robot, chain).empty();
  for (const ScriptKeyframeDesc& k : desc.keyframes)
    if (k.has_gripper && !fingers)
      Fail(k.where, "script of robot '" + robot +
                        "': a gripper command needs controlled prismatic finger joints off the arm, and the robot "
                        "has none");
  // The parser's checks again, for a SceneDesc built in code: at least one keyframe, finite, times increasing.
  if (desc.keyframes.empty()) Fail(desc.where, "script of robot '" + robot + "' has no keyframes");
  for (std::size_t i = 0; i < desc.keyframes.size(); ++i) {
    const ScriptKeyframeDesc& k = desc.keyframes[i];
    bool finite = std::isfinite(k.time) && std::isfinite(k.gripper_opening) && std::isfinite(k.gripper_force);
    for (const double c : k.pose.position) finite = finite && std::isfinite(c);
    for (const double c : k.pose.quaternion) finite = finite && std::isfinite(c);
    if (!finite) Fail(k.where, "script of robot '" + robot + "': keyframe " + std::to_string(i) + " is not finite");
    if (k.time < 0 || (i > 0 && !(k.time > desc.keyframes[i - 1].time)))
      Fail(k.where, "script of robot '" + robot + "': keyframe times must start at 0 or later and increase");
  }
  script.path.interpolation = desc.interpolation;
  for (const ScriptKeyframeDesc& k : desc.keyframes) {
    script.path.times.push_back(k.time);
    script.path.positions.push_back(ToEigen(k.pose.position));
    script.path.rotations.push_back(ToQuaternion(k.pose));
    if (k.has_gripper) script.gripper.push_back({k.time, k.gripper_opening, k.gripper_force});
  }
  rigid.scripts.push_back(std::move(script));
}

// A robot: its links as bodies, their visuals, the initial joint positions, controllers and joint efforts.
void AddRobot(const RobotDesc& robot, const multibody::ContactDefaults& defaults, RigidModel& rigid,
              RigidInitial& init) {
  const int first = multibody::AddMultibody(*robot.model, robot.name, ToIsometry(robot.pose), robot.floating_base,
                                            defaults, rigid.tree, rigid.world);
  AddRobotSources(*robot.model, rigid);
  // The body that a moving joint of the robot drives (one position coordinate, or one velocity), else a failure
  // at `where`.
  const auto moving_body = [&](const std::string& joint, bool positions, const SourceLocation& where) {
    const JointDesc* j = robot.model->FindJoint(joint);
    const int b = j ? rigid.tree.FindBody(robot.name + "/" + j->child) : -1;
    if (b < 0 || (positions ? rigid.tree.body(b).nq : rigid.tree.body(b).nv) != 1)
      Fail(where, "robot '" + robot.name + "': joint '" + joint + "' is not a moving joint");
    return b;
  };
  for (const auto& [joint, q] : robot.initial_positions)
    init.initial_q.emplace_back(rigid.tree.body(moving_body(joint, true, robot.where)).q_start, q);
  for (const JointControllerDesc& c : robot.controllers)
    rigid.controllers.push_back({moving_body(c.joint, false, c.where), c.kp, c.kd, {c.target, 0, c.feedforward}});
  for (const auto& [joint, effort] : robot.joint_efforts)
    init.efforts.emplace_back(rigid.tree.body(moving_body(joint, false, robot.where)).v_start, effort);
  for (int b = first; b < rigid.tree.num_bodies(); ++b) rigid.output_bodies.push_back(b);
  RobotModel& checked = rigid.robots.emplace_back();
  checked.name = robot.name;
  checked.first_body = first;
  checked.end_body = rigid.tree.num_bodies();
  for (const LinkDesc& link : robot.model->links) {
    const int b = rigid.tree.FindBody(robot.name + "/" + link.name);
    if (b >= 0) AddVisuals(link, b, defaults, rigid);
  }
  if (robot.script) AddScript(robot.name, *robot.script, rigid);
}

// The initial positions and velocities and the constant applied joint efforts.
void SetInitialState(const RigidInitial& init, RigidModel& rigid) {
  rigid.q0 = rigid.tree.DefaultPositions();
  rigid.v0 = Eigen::VectorXd::Zero(rigid.tree.nv());
  for (const auto& [index, q] : init.initial_q) rigid.q0[index] = q;
  for (const auto& [start, v] : init.initial_v) rigid.v0.segment<6>(start) = v;
  rigid.tau_applied = Eigen::VectorXd::Zero(rigid.tree.nv());
  for (const auto& [index, effort] : init.efforts) rigid.tau_applied[index] += effort;
}

// Welds: a static body or the world is body −1 with the weld frame expressed in the world.
void AddWelds(const SceneDesc& scene, const std::map<std::string, Eigen::Isometry3d>& static_poses, RigidModel& rigid) {
  for (const WeldDesc& w : scene.welds) {
    contact::Weld weld;
    weld.stiffness = w.stiffness;
    weld.damping = w.damping;
    const auto resolve = [&](const std::string& name, const PoseDesc& frame, int& body, Eigen::Isometry3d& X) {
      X = ToIsometry(frame);
      body = -1;
      if (name == "world") return;
      if (const auto s = static_poses.find(name); s != static_poses.end()) {
        X = s->second * X;
        return;
      }
      body = rigid.tree.FindBody(name);
      if (body < 0) Fail(w.where, "weld '" + w.name + "': no rigid body or robot link '" + name + "'");
    };
    resolve(w.body_a, w.frame_a, weld.body_a, weld.X_AF);
    resolve(w.body_b, w.frame_b, weld.body_b, weld.X_BG);
    if (weld.body_a < 0 && weld.body_b < 0) Fail(w.where, "weld '" + w.name + "' connects two bodies that cannot move");
    rigid.welds.push_back(weld);
    // Welded bodies do not collide with each other.
    if (weld.body_a >= 0 && weld.body_b >= 0) rigid.world.ExcludeBodyPair(weld.body_a, weld.body_b);
  }
}

// User-named collision filters: "world" and static bodies are the static geometry (body −1).
void AddCollisionFilters(const SceneDesc& scene, const std::map<std::string, Eigen::Isometry3d>& static_poses,
                         RigidModel& rigid) {
  for (const CollisionFilterDesc& f : scene.collision_filters) {
    const auto body = [&](const std::string& name) {
      if (name == "world" || static_poses.count(name)) return -1;
      const int b = rigid.tree.FindBody(name);
      if (b < 0) Fail(f.where, "collision filter '" + f.name + "': no rigid body or robot link '" + name + "'");
      return b;
    };
    rigid.world.ExcludeBodyPair(body(f.body_a), body(f.body_b));
  }
}

}  // namespace

void CompileRigidSettings(const SceneDesc& scene, RigidModel& rigid) {
  rigid.stiction_speed = scene.contact.stiction_speed;
  rigid.max_solver_iterations = scene.simulation.max_solver_iterations;
  rigid.mpm_stiffness = scene.contact.mpm_stiffness;
  rigid.mpm_dissipation = scene.contact.mpm_dissipation;
  rigid.contact_rel_tolerance = scene.simulation.contact_tolerance_relative;
  rigid.contact_abs_tolerance = scene.simulation.contact_tolerance_absolute;
}

void CompileGeometryContact(const SceneDesc& scene, RigidModel& rigid) {
  for (int g = 0; g < rigid.world.num_geometries(); ++g) {
    ContactSource own = rigid.contact_sources.at(static_cast<std::size_t>(g));
    if (own.scene_body >= 0) {
      const RigidBodyDesc& body = scene.rigid_bodies.at(static_cast<std::size_t>(own.scene_body));
      own = {own.scene_body, body.friction, body.stiffness, body.dissipation};
    }
    // The rule of multibody::ToCollisionGeometry: a declared value, else the `contact:` default.
    rigid.world.SetContactProperties(g, own.friction >= 0 ? own.friction : scene.contact.friction,
                                     own.stiffness > 0 ? own.stiffness : scene.contact.stiffness,
                                     own.dissipation >= 0 ? own.dissipation : scene.contact.dissipation);
  }
}

ShapeMassProperties ComputeShapeMassProperties(const ShapeDesc& shape) {
  ShapeMassProperties p;
  constexpr double kPi = 3.14159265358979323846;
  switch (shape.type) {
    case ShapeType::kBox: {
      const Eigen::Vector3d s = ToEigen(shape.size);
      p.volume = s.prod();
      const Eigen::Vector3d s2 = s.cwiseProduct(s);
      p.unit_inertia =
          (p.volume / 12 * Eigen::Vector3d(s2.y() + s2.z(), s2.x() + s2.z(), s2.x() + s2.y())).asDiagonal();
      break;
    }
    case ShapeType::kSphere: {
      const double r = shape.radius;
      p.volume = 4.0 / 3.0 * kPi * r * r * r;
      p.unit_inertia = Eigen::Matrix3d::Identity() * (0.4 * p.volume * r * r);
      break;
    }
    case ShapeType::kCylinder: {
      const double r = shape.radius, l = shape.length;
      p.volume = kPi * r * r * l;
      const double across = p.volume * (3 * r * r + l * l) / 12;
      p.unit_inertia = Eigen::Vector3d(across, across, 0.5 * p.volume * r * r).asDiagonal();
      break;
    }
    case ShapeType::kCapsule: {
      // A cylinder of length l plus two hemispheres whose centres of mass sit 3r/8 beyond its ends.
      const double r = shape.radius, l = shape.length;
      const double vc = kPi * r * r * l, vs = 4.0 / 3.0 * kPi * r * r * r;
      p.volume = vc + vs;
      const double axial = 0.5 * vc * r * r + 0.4 * vs * r * r;
      const double across = vc * (3 * r * r + l * l) / 12 + vs * (0.4 * r * r + l * l / 4 + 3 * l * r / 8);
      p.unit_inertia = Eigen::Vector3d(across, across, axial).asDiagonal();
      break;
    }
    case ShapeType::kMesh: {
      // Signed tetrahedra from the origin to every triangle: volume, first and second moments (exact for a
      // closed, consistently oriented mesh).
      geometry::TriangleMesh mesh = geometry::LoadMesh(shape.mesh_file);
      Eigen::Vector3d first = Eigen::Vector3d::Zero();
      Eigen::Matrix3d second = Eigen::Matrix3d::Zero();  // ∫ x xᵀ dV
      for (const std::array<int, 3>& t : mesh.triangles) {
        const Eigen::Vector3d a = mesh.vertices[t[0]] * shape.mesh_scale;
        const Eigen::Vector3d b = mesh.vertices[t[1]] * shape.mesh_scale;
        const Eigen::Vector3d c = mesh.vertices[t[2]] * shape.mesh_scale;
        const double v = a.dot(b.cross(c)) / 6;
        p.volume += v;
        first += v * (a + b + c) / 4;
        // ∫ over the tetrahedron (0, a, b, c) of x xᵀ = v/20 (Σ over the vertex pairs including repeats).
        const Eigen::Vector3d sum = a + b + c;
        second += v / 20 * (a * a.transpose() + b * b.transpose() + c * c.transpose() + sum * sum.transpose());
      }
      if (p.volume < 0) {  // inward-facing triangles: the same moments with the opposite sign
        p.volume = -p.volume;
        first = -first;
        second = -second;
      }
      if (p.volume > 0) {
        p.center = first / p.volume;
        const Eigen::Matrix3d about_center = second - p.volume * p.center * p.center.transpose();
        p.unit_inertia = Eigen::Matrix3d::Identity() * about_center.trace() - about_center;
      }
      break;
    }
    case ShapeType::kPlane:
    case ShapeType::kSheet:  // never a rigid body (the loader refuses it)
      break;
  }
  return p;
}

RigidModel CompileRigid(const SceneDesc& scene) {
  RigidModel rigid;
  multibody::ContactDefaults defaults;
  defaults.friction = scene.contact.friction;
  defaults.stiffness = scene.contact.stiffness;
  defaults.dissipation = scene.contact.dissipation;
  CompileRigidSettings(scene, rigid);
  RigidInitial init;
  for (std::size_t i = 0; i < scene.rigid_bodies.size(); ++i) {
    const RigidBodyDesc& body = scene.rigid_bodies[i];
    const MultibodyDesc desc = SingleBodyDesc(body);
    switch (body.type) {
      case RigidBodyType::kStatic:
        AddStaticBody(body, desc, defaults, rigid, init);
        break;
      case RigidBodyType::kDynamic:
        AddDynamicBody(body, desc, defaults, rigid, init);
        break;
      case RigidBodyType::kKinematic:
        AddKinematicBody(body, desc, defaults, rigid);
        break;
    }
    AddBodySources(static_cast<int>(i), rigid);
  }
  for (const RobotDesc& robot : scene.robots) AddRobot(robot, defaults, rigid, init);
  SetInitialState(init, rigid);
  AddWelds(scene, init.static_poses, rigid);
  AddCollisionFilters(scene, init.static_poses, rigid);
  CompileGeometryContact(scene, rigid);   // the values ToCollisionGeometry gave, from the rule live edits use
  for (RobotModel& robot : rigid.robots)  // after the filters, which may leave pairs out
    robot.self_collision_pairs =
        robot::FindSelfCollisionPairs(rigid.tree, rigid.world, robot.first_body, robot.end_body);
  CompileRobotLimits(scene, rigid);
  return rigid;
}

void CompileRobotLimits(const SceneDesc& scene, RigidModel& rigid) {
  for (std::size_t r = 0; r < rigid.robots.size(); ++r)
    rigid.robots[r].link_force_limit = scene.robots[r].link_force_limit;
}

}  // namespace ductile
