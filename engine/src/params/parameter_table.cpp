// The rows of the parameter table (ductile/parameters.h), section by section in the order of
// docs/scene-format.md: each with its binding to the SceneDesc field (`At`, scene/scene_binding.h) and, when a
// running simulation takes it, what an edit recomputes (`Derives`, params/model_editor.cpp). A row's default must equal
// the matching default of ductile/scene.h and its range, default and unit the row of the docs' table (tests/unit/params
// check both).
#include <cmath>
#include <sstream>
#include <utility>

#include "ductile/parameters.h"
#include "scene/scene_binding.h"
#include "scene/schema.h"

namespace ductile {

namespace {

using scene::AnyBody;
using scene::Body;
using scene::Controller;
using scene::Entry;
using scene::Fixed;
using scene::IsDynamic;
using scene::Joint;
using scene::KeyframeTime;
using scene::MapValue;
using scene::Material;
using scene::Named;
using scene::Names;
using scene::NoEntry;
using scene::Of;
using scene::RobotJoint;
using scene::Slot;

constexpr double kInfinity = std::numeric_limits<double>::infinity();

ParameterRange Positive() {
  return {0, kInfinity, true, true};
}
ParameterRange NonNegative() {
  return {0, kInfinity, false, true};
}
ParameterRange AtLeast(double min) {
  return {min, kInfinity, false, true};
}
ParameterRange Finite() {
  return {};
}

const std::vector<MaterialModelDesc> kAllModels{MaterialModelDesc::kFixedCorotated, MaterialModelDesc::kLinearCorotated,
                                                MaterialModelDesc::kStvkHencky,     MaterialModelDesc::kDruckerPrager,
                                                MaterialModelDesc::kFluid,          MaterialModelDesc::kCloth};
// The models with a Young's modulus and a Poisson's ratio (cloth: in its plane).
const std::vector<MaterialModelDesc> kSolids{MaterialModelDesc::kFixedCorotated, MaterialModelDesc::kLinearCorotated,
                                             MaterialModelDesc::kStvkHencky, MaterialModelDesc::kDruckerPrager,
                                             MaterialModelDesc::kCloth};
const std::vector<MaterialModelDesc> kPlastic{MaterialModelDesc::kLinearCorotated, MaterialModelDesc::kStvkHencky};

// Builds one row: the constructor takes what every row has, the setters the rest.
class Row {
 public:
  Row(ParameterType type, std::string key, std::string name, std::string symbol, std::string unit) {
    p_.type = type;
    p_.key = std::move(key);
    p_.name = std::move(name);
    p_.symbol = std::move(symbol);
    p_.unit = std::move(unit);
    if (type == ParameterType::kVector) p_.range = Finite();
  }
  Row& In(const ParameterRange& range) {
    p_.range = range;
    return *this;
  }
  Row& Choices(const std::vector<std::pair<std::string, int>>& names) {
    for (const auto& [name, index] : names)
      if (index == static_cast<int>(p_.choices.size())) p_.choices.push_back(name);
    p_.range = {0, static_cast<double>(p_.choices.size()) - 1, false, false};
    for (std::size_t i = 0; i < p_.choices.size(); ++i)
      p_.range_note += (i == 0 ? "" : i + 1 == p_.choices.size() ? " or " : ", ") + ("`" + p_.choices[i] + "`");
    return *this;
  }
  Row& Within(std::string note) {  // the valid values depend on other keys
    p_.range_note = std::move(note);
    return *this;
  }
  Row& Default(double value) {
    p_.default_value = value;
    return *this;
  }
  Row& Default(const Vector3& value) {
    p_.default_vector = value;
    return *this;
  }
  Row& DefaultNote(std::string note) {
    p_.default_note = std::move(note);
    return *this;
  }
  Row& Required() {
    p_.required = true;
    return DefaultNote("*required*");
  }
  Row& Models(const std::vector<MaterialModelDesc>& models) {
    p_.models = models;
    return *this;
  }
  Row& Reset(std::string reason) {
    p_.apply = ParameterApply::kReset;
    p_.reason = std::move(reason);
    return *this;
  }
  Row& Reload(std::string reason) {
    p_.apply = ParameterApply::kReload;
    p_.reason = std::move(reason);
    return *this;
  }
  Row& Doc(std::string doc) {
    p_.doc = std::move(doc);
    return *this;
  }
  Row& At(scene::Accessor slot) {  // where the value lives in a SceneDesc
    p_.binding = std::make_shared<const ParameterBinding>(ParameterBinding{std::move(slot)});
    return *this;
  }
  Row& Derives(ParameterDerives derives) {  // what a live edit recomputes
    p_.derives = derives;
    return *this;
  }
  operator ParameterInfo() const { return p_; }  // implicit: the table lists rows as they are built

 private:
  ParameterInfo p_;
};

Row Number(std::string key, std::string name, std::string symbol, std::string unit) {
  return {ParameterType::kNumber, std::move(key), std::move(name), std::move(symbol), std::move(unit)};
}
Row Integer(std::string key, std::string name, std::string symbol) {
  return {ParameterType::kInteger, std::move(key), std::move(name), std::move(symbol), ""};
}
Row Choice(std::string key, std::string name, const std::vector<std::pair<std::string, int>>& names) {
  Row row(ParameterType::kChoice, std::move(key), std::move(name), "scheme", "");
  return row.Choices(names);
}
Row Vector(std::string key, std::string name, std::string symbol, std::string unit) {
  return {ParameterType::kVector, std::move(key), std::move(name), std::move(symbol), std::move(unit)};
}

// simulation.coupling's names with their CouplingKind values (the scene format's, scene/schema.h).
std::vector<std::pair<std::string, int>> CouplingChoices() {
  std::vector<std::pair<std::string, int>> out;
  for (const auto& [name, kind] : scene::CouplingKindNames()) out.emplace_back(name, static_cast<int>(kind));
  return out;
}

// simulation.backend's names with their BackendKind values.
std::vector<std::pair<std::string, int>> BackendChoices() {
  std::vector<std::pair<std::string, int>> out;
  for (const auto& [name, kind] : scene::BackendKindNames()) out.emplace_back(name, static_cast<int>(kind));
  return out;
}

const char* const kInitial = "is an initial condition";
const char* const kRigidStructure = "changes the rigid bodies' joints and controllers";

std::vector<ParameterInfo> SimulationRows() {
  return {
      Number("simulation.dt", "time step", "Δt", "s")
          .At(Fixed([](SceneDesc& s) { return Of(s.simulation.dt); }))
          .Derives(ParameterDerives::kTiming)
          .In(Positive())
          .Default(1e-3)
          .Doc("Rigid (outer) time step Δt."),
      Integer("simulation.substeps", "MPM substeps", "N")
          .At(Fixed([](SceneDesc& s) { return Of(s.simulation.substeps); }))
          .Derives(ParameterDerives::kTiming)
          .In(AtLeast(1))
          .Default(1)
          .Doc("MPM substeps N per Δt; the MPM step is Δt/N."),
      Number("simulation.duration", "duration", "T", "s")
          .At(Fixed([](SceneDesc& s) { return Of(s.simulation.duration); }))
          .Derives(ParameterDerives::kTiming)
          .In(Positive())
          .Default(1.0)
          .Doc("Default length of a run."),
      Vector("simulation.gravity", "gravity", "g", "m/s²")
          .At(Fixed([](SceneDesc& s) { return Of(s.simulation.gravity); }))
          .Derives(ParameterDerives::kTiming)
          .Default(Vector3{0, 0, -9.81})
          .Doc("Gravitational acceleration."),
      Number("simulation.output_rate", "output rate", "f_out", "Hz")
          .At(Fixed([](SceneDesc& s) { return Of(s.simulation.output_rate); }))
          .Derives(ParameterDerives::kTiming)
          .In(Positive())
          .Default(60)
          .Doc("Output frames (trajectory, probes) per simulated second."),
      Number("simulation.contact_tolerance_relative", "contact tolerance (relative)", "ε_r", "")
          .At(Fixed([](SceneDesc& s) { return Of(s.simulation.contact_tolerance_relative); }))
          .Derives(ParameterDerives::kSolverSettings)
          .In(Positive())
          .Default(5e-2)
          .Doc("ε_r of the contact solvers' stopping rule."),
      Number("simulation.contact_tolerance_absolute", "contact tolerance (absolute)", "ε_a", "")
          .At(Fixed([](SceneDesc& s) { return Of(s.simulation.contact_tolerance_absolute); }))
          .Derives(ParameterDerives::kSolverSettings)
          .In(NonNegative())
          .Default(1e-6)
          .Doc("ε_a of the contact solvers' stopping rule."),
      Integer("simulation.max_solver_iterations", "solver iterations", "n_max")
          .At(Fixed([](SceneDesc& s) { return Of(s.simulation.max_solver_iterations); }))
          .Derives(ParameterDerives::kSolverSettings)
          .In(AtLeast(1))
          .Default(100)
          .Doc("Iteration limit of the contact solvers."),
      Number("simulation.cfl", "CFL number", "CFL", "")
          .At(Fixed([](SceneDesc& s) { return Of(s.simulation.cfl); }))
          .Derives(ParameterDerives::kTiming)
          .In({0, 1, true, false})
          .Default(0.4)
          .Doc("Largest fraction of a cell a wave or particle may cross in one substep."),
      Choice("simulation.coupling", "coupling scheme", CouplingChoices())
          .At(Fixed([](SceneDesc& s) { return Of(s.simulation.coupling); }))
          .Derives(ParameterDerives::kTiming)
          .Default(0)
          .Doc("How MPM and the rigid bodies advance together: weak (substeps against frozen rigid geometry, Yu et "
               "al. 2025) or strong (one implicit step and one convex contact problem per Δt, Zong et al. 2024)."),
      Choice("simulation.backend", "backend", BackendChoices())
          .At(Fixed([](SceneDesc& s) { return Of(s.simulation.backend); }))
          .Derives(ParameterDerives::kTiming)
          .Default(0)
          .Doc("Where the MPM domain runs: cpu (the reference), cuda (the device backend on a GPU; refused without "
               "one), auto (cuda when a device is present and runs the whole scene, else cpu) or emulated (the "
               "device backend's code on the CPU, for tests). A live switch carries the state over at the next "
               "step."),
      Number("simulation.strong_tolerance", "joint solve tolerance", "ε_s", "")
          .At(Fixed([](SceneDesc& s) { return Of(s.simulation.strong_tolerance); }))
          .Derives(ParameterDerives::kTiming)
          .In(Positive())
          .Default(1e-6)
          .Doc("ε_r of the strong coupling's joint SAP solve over the rigid and grid velocities."),
      Integer("simulation.strong_dense_limit", "dense joint solve up to", "n_S")
          .At(Fixed([](SceneDesc& s) { return Of(s.simulation.strong_dense_limit); }))
          .Derives(ParameterDerives::kTiming)
          .In(AtLeast(0))
          .Default(1500)
          .Doc("The most grid dofs the contacts may touch for the strong coupling's joint solve to be reduced onto "
               "them (a dense Schur complement); above it the solve stays sparse over every grid dof."),
      Number("simulation.implicit_tolerance", "implicit CG tolerance", "ε_cg", "")
          .At(Fixed([](SceneDesc& s) { return Of(s.simulation.implicit_tolerance); }))
          .Derives(ParameterDerives::kTiming)
          .In(Positive())
          .Default(1e-8)
          .Doc("Relative residual of the strong coupling's conjugate gradients when no contact acts."),
      Integer("simulation.seed", "sampling seed", "seed")
          .At(Fixed([](SceneDesc& s) { return Of(s.simulation.seed); }))
          .In(AtLeast(0))
          .Default(0)
          .Reset("changes the particles")
          .Doc("Seed of the particle sampling: 0 samples each object as its particles_per_cell says (a k×k×k "
               "lattice per cell, or a fixed random stream); another value samples the same shapes again, each "
               "lattice point moved to a uniformly random place in its sub-cell (jittered sampling) or other random "
               "points, to see how much a result owes to the sampling."),
      Integer("simulation.threads", "threads", "threads")
          .At(Fixed([](SceneDesc& s) { return Of(s.simulation.threads); }))
          .In(AtLeast(0))
          .Default(0)
          .Reload("sets the worker threads when the simulator starts")
          .Doc("Worker threads; 0 uses all cores."),
  };
}

std::vector<ParameterInfo> GridAndContactRows() {
  return {
      Number("grid.h", "grid spacing", "h", "m")
          .At(Fixed([](SceneDesc& s) { return Of(s.grid.h); }))
          .In(Positive())
          .Default(0.01)
          .Reset("changes the grid and the particles")
          .Doc("Grid spacing."),
      Number("grid.boundary.friction", "wall friction", "μ", "")
          .At(Fixed([](SceneDesc& s) { return Of(s.walls.friction); }))
          .Derives(ParameterDerives::kWalls)
          .In(NonNegative())
          .Default(0)
          .Doc("Coulomb friction coefficient μ of the domain walls (used by type friction)."),
      Number("contact.friction", "friction (rigid)", "μ", "")
          .At(Fixed([](SceneDesc& s) { return Of(s.contact.friction); }))
          .Derives(ParameterDerives::kGeometryContact)
          .In(NonNegative())
          .Default(0.5)
          .Doc("Coulomb friction coefficient μ of rigid geometry that sets none."),
      Number("contact.stiffness", "stiffness (rigid)", "k", "N/m")
          .At(Fixed([](SceneDesc& s) { return Of(s.contact.stiffness); }))
          .Derives(ParameterDerives::kGeometryContact)
          .In(Positive())
          .Default(1e6)
          .Doc("Point-contact stiffness k: the normal force per metre of penetration."),
      Number("contact.dissipation", "dissipation (rigid)", "d", "s/m")
          .At(Fixed([](SceneDesc& s) { return Of(s.contact.dissipation); }))
          .Derives(ParameterDerives::kGeometryContact)
          .In(NonNegative())
          .Default(10)
          .Doc("Hunt-Crossley dissipation d: the normal force is multiplied by (1 + d·v)."),
      Number("contact.stiction_speed", "stiction speed", "v_s", "m/s")
          .At(Fixed([](SceneDesc& s) { return Of(s.contact.stiction_speed); }))
          .Derives(ParameterDerives::kSolverSettings)
          .In(Positive())
          .Default(1e-4)
          .Doc("Slip speed v_s of the regularised friction."),
      Number("contact.mpm_stiffness", "stiffness (MPM)", "k_p", "N/m")
          .At(Fixed([](SceneDesc& s) { return Of(s.contact.mpm_stiffness); }))
          .Derives(ParameterDerives::kSolverSettings)
          .In(NonNegative())
          .Default(0)
          .Doc("Stiffness of one MPM particle's contact with rigid geometry; 0 (default): near-rigid (SAP's friction "
               "cone, its compliance from each contact's mass and the substep); > 0: the lagged Hunt-Crossley model."),
      Number("contact.mpm_dissipation", "dissipation (MPM)", "d_p", "s/m")
          .At(Fixed([](SceneDesc& s) { return Of(s.contact.mpm_dissipation); }))
          .Derives(ParameterDerives::kSolverSettings)
          .In(NonNegative())
          .Default(10)
          .Doc("Hunt-Crossley dissipation of the MPM particles' contacts (with a stiffness > 0)."),
  };
}

std::vector<ParameterInfo> MaterialRows() {
  return {
      Number("materials.*.density", "density", "ρ", "kg/m³")
          .At(Material(&MaterialDesc::density, "density"))
          .Derives(ParameterDerives::kMaterial)
          .In(Positive())
          .Required()
          .Models(kAllModels)
          .Doc("Rest density; the particles' masses follow it."),
      Number("materials.*.friction", "friction against rigid geometry", "μ", "")
          .At(Material(&MaterialDesc::friction, "friction"))
          .Derives(ParameterDerives::kMaterial)
          .In(NonNegative())
          .DefaultNote("not set")
          .Models(kAllModels)
          .Doc("Coulomb μ against rigid geometry, combined with the geometry's μ; not set: the geometry's alone."),
      Number("materials.*.youngs_modulus", "Young's modulus", "E", "Pa")
          .At(Material(&MaterialDesc::youngs_modulus, "youngs_modulus"))
          .Derives(ParameterDerives::kMaterial)
          .In(Positive())
          .Required()
          .Models(kSolids)
          .Doc("Young's modulus E; with ν it gives the Lamé parameters μ and λ."),
      Number("materials.*.poisson_ratio", "Poisson's ratio", "ν", "")
          .At(Material(&MaterialDesc::poisson_ratio, "poisson_ratio"))
          .Derives(ParameterDerives::kMaterial)
          .In({-1, 0.5, true, true})
          .Required()
          .Models(kSolids)
          .Doc("Poisson's ratio ν; 0.5 (incompressible) has no finite λ."),
      Number("materials.*.yield_stress", "yield stress", "η", "Pa")
          .At(Material(&MaterialDesc::yield_stress, "yield_stress"))
          .Derives(ParameterDerives::kMaterial)
          .In(NonNegative())
          .Default(0)
          .Models(kPlastic)
          .Doc("Von Mises bound on the Frobenius norm of the deviatoric stress; 0: no plasticity."),
      Number("materials.*.friction_angle", "friction angle", "φ", "deg")
          .At(Material(&MaterialDesc::friction_angle_deg, "friction_angle"))
          .Derives(ParameterDerives::kMaterial)
          .In({0, 90, false, true})
          .Default(30)
          .Models({MaterialModelDesc::kDruckerPrager})
          .Doc("Internal friction angle of sand; it gives the Drucker-Prager cone's α."),
      Number("materials.*.cohesion", "cohesion", "c", "")
          .At(Material(&MaterialDesc::cohesion, "cohesion"))
          .Derives(ParameterDerives::kMaterial)
          .In(NonNegative())
          .Default(0)
          .Models({MaterialModelDesc::kDruckerPrager})
          .Doc("Volumetric Hencky-strain shift of the cone's tip; 0: dry sand."),
      Number("materials.*.bulk_modulus", "bulk modulus", "κ", "Pa")
          .At(Material(&MaterialDesc::bulk_modulus, "bulk_modulus"))
          .Derives(ParameterDerives::kMaterial)
          .In(Positive())
          .Required()
          .Models({MaterialModelDesc::kFluid})
          .Doc("Bulk modulus κ of the Tait equation of state p = κ(J^−γ − 1)."),
      Number("materials.*.gamma", "Tait exponent", "γ", "")
          .At(Material(&MaterialDesc::gamma, "gamma"))
          .Derives(ParameterDerives::kMaterial)
          .In(AtLeast(1))
          .Default(7)
          .Models({MaterialModelDesc::kFluid})
          .Doc("Exponent γ of the Tait equation of state."),
      Number("materials.*.viscosity", "viscosity", "μ_v", "Pa·s")
          .At(Material(&MaterialDesc::viscosity, "viscosity"))
          .Derives(ParameterDerives::kMaterial)
          .In(NonNegative())
          .Default(0)
          .Models({MaterialModelDesc::kFluid})
          .Doc("Dynamic viscosity of the fluid."),
  };
}

std::vector<ParameterInfo> ClothMaterialRows() {
  return {
      Number("materials.*.thickness", "thickness", "t", "m")
          .At(Material(&MaterialDesc::thickness, "thickness"))
          .In(Positive())
          .Default(1e-3)
          .Models({MaterialModelDesc::kCloth})
          .Reset("changes the cloth's masses")
          .Doc("Thickness of the cloth: a triangle's volume is its area times t, its vertices' mass ρ times that."),
      Number("materials.*.normal_stiffness", "normal stiffness", "k", "Pa")
          .At(Material(&MaterialDesc::normal_stiffness, "normal_stiffness"))
          .Derives(ParameterDerives::kMaterial)
          .In(Positive())
          .DefaultNote("from `youngs_modulus`")
          .Models({MaterialModelDesc::kCloth})
          .Doc("Resistance k/3 (1 − r₃₃)³ to compression through the cloth, which also presses layers apart."),
      Number("materials.*.shear_stiffness", "transverse shear stiffness", "γ", "Pa")
          .At(Material(&MaterialDesc::shear_stiffness, "shear_stiffness"))
          .Derives(ParameterDerives::kMaterial)
          .In(NonNegative())
          .DefaultNote("from `youngs_modulus`")
          .Models({MaterialModelDesc::kCloth})
          .Doc("Resistance γ/2 (r₁₃² + r₂₃²) to shearing across the cloth; with c_F it sets friction between layers."),
      Number("materials.*.layer_friction", "friction between layers", "c_F", "")
          .At(Material(&MaterialDesc::layer_friction, "layer_friction"))
          .Derives(ParameterDerives::kMaterial)
          .In(NonNegative())
          .Default(0.3)
          .Models({MaterialModelDesc::kCloth})
          .Doc("Coulomb coefficient between layers of cloth: the shear stress is capped by c_F times the pressure."),
      Number("materials.*.implicit_in_plane", "implicit in-plane weight", "θ", "")
          .At(Material(&MaterialDesc::implicit_in_plane, "implicit_in_plane"))
          .Derives(ParameterDerives::kMaterial)
          .In({0, 1, false, false})
          .Default(0)
          .Models({MaterialModelDesc::kCloth})
          .Doc("Weight θ of the in-plane elastic force taken at the substep's end (one Newton step of the θ-method "
               "on the mesh): 0 explicit, 1 backward Euler. From 0.5 on the in-plane wave no longer limits the "
               "substep; above it, in-plane waves faster than a cell per substep are damped."),
  };
}

std::vector<ParameterInfo> ObjectRows() {
  return {
      Integer("objects.*.particles_per_cell", "particles per cell", "ppc")
          .At(Entry(&SceneDesc::objects, "object", &MpmObjectDesc::particles_per_cell))
          .In(AtLeast(1))
          .Default(8)
          .Reset("changes the particles")
          .Doc("Particles seeded per grid cell: k³ gives a k×k×k lattice, other counts random points."),
      Vector("objects.*.velocity", "initial velocity", "v₀", "m/s")
          .At(Entry(&SceneDesc::objects, "object", &MpmObjectDesc::velocity))
          .Default(Vector3{0, 0, 0})
          .Reset(kInitial)
          .Doc("Initial velocity of every particle."),
      Number("colliders.*.boundary.friction", "collider friction", "μ", "")
          .At([](SceneDesc& scene, const Names& names, std::string& why) {
            ColliderDesc* collider = Named(scene.colliders, names[0]);
            if (collider == nullptr) why = NoEntry(scene.colliders, "collider", names[0]);
            return collider ? Of(collider->boundary.friction) : Slot{};
          })
          .Derives(ParameterDerives::kCollider)
          .In(NonNegative())
          .Default(0)
          .Doc("Coulomb friction coefficient μ of the collider (used by type friction)."),
  };
}

std::vector<ParameterInfo> RigidBodyRows() {
  return {
      Number("rigid_bodies.*.mass", "mass", "m", "kg")
          .At(Body([](RigidBodyDesc& b) { return &b.mass; }, IsDynamic, "mass", "only IsDynamic bodies have a mass"))
          .In(Positive())
          .DefaultNote("–")
          .Reset("changes the body's mass properties")
          .Doc("The dynamic body's mass."),
      Number("rigid_bodies.*.density", "density", "ρ", "kg/m³")
          .At(Body([](RigidBodyDesc& b) { return &b.density; }, IsDynamic, "density",
                   "only IsDynamic bodies have a mass"))
          .In(Positive())
          .DefaultNote("–")
          .Reset("changes the body's mass properties")
          .Doc("The dynamic body's mass per volume of its shape, instead of its mass."),
      Number("rigid_bodies.*.friction", "friction", "μ", "")
          .At(Body([](RigidBodyDesc& b) { return &b.friction; }, AnyBody, "friction", ""))
          .Derives(ParameterDerives::kGeometryContact)
          .In(NonNegative())
          .DefaultNote("from `contact`")
          .Doc("Coulomb friction coefficient μ of this body; not set: contact.friction."),
      Number("rigid_bodies.*.stiffness", "contact stiffness", "k", "N/m")
          .At(Body([](RigidBodyDesc& b) { return &b.stiffness; }, AnyBody, "stiffness", ""))
          .Derives(ParameterDerives::kGeometryContact)
          .In(Positive())
          .DefaultNote("from `contact`")
          .Doc("Contact stiffness k of this body; not set: contact.stiffness."),
      Number("rigid_bodies.*.dissipation", "contact dissipation", "d", "s/m")
          .At(Body([](RigidBodyDesc& b) { return &b.dissipation; }, AnyBody, "dissipation", ""))
          .Derives(ParameterDerives::kGeometryContact)
          .In(NonNegative())
          .DefaultNote("from `contact`")
          .Doc("Hunt-Crossley dissipation d of this body; not set: contact.dissipation."),
      Number("rigid_bodies.*.keyframes.*.time", "keyframe time", "t", "s")
          .At(KeyframeTime)
          .In(NonNegative())
          .Within("≥ 0, greater than the previous keyframe's")
          .Required()
          .Reset("changes the body's motion")
          .Doc("When the kinematic body is at this keyframe's pose."),
  };
}

std::vector<ParameterInfo> BodyJointRows() {
  const std::string in_limits = "within [`lower`, `upper`]";
  return {
      Number("rigid_bodies.*.joint.position", "initial joint position", "q₀", "rad or m")
          .At(Joint(&BodyJointDesc::position, "position"))
          .Within(in_limits)
          .Default(0)
          .Reset(kInitial)
          .Doc("Joint position q at t = 0."),
      Number("rigid_bodies.*.joint.lower", "lower limit", "q_min", "rad or m")
          .At(Joint(&BodyJointDesc::lower, "lower"))
          .Within("finite, ≤ `upper`")
          .DefaultNote("unbounded (−∞)")
          .Reset(kRigidStructure)
          .Doc("Lower joint limit."),
      Number("rigid_bodies.*.joint.upper", "upper limit", "q_max", "rad or m")
          .At(Joint(&BodyJointDesc::upper, "upper"))
          .Within("finite, ≥ `lower`")
          .DefaultNote("unbounded (+∞)")
          .Reset(kRigidStructure)
          .Doc("Upper joint limit."),
      Number("rigid_bodies.*.joint.damping", "joint damping", "b", "N·m·s/rad or N·s/m")
          .At(Joint(&BodyJointDesc::damping, "damping"))
          .In(NonNegative())
          .Default(0)
          .Reset(kRigidStructure)
          .Doc("Viscous joint damping: a joint force −b·q̇."),
      Number("rigid_bodies.*.joint.effort", "effort limit", "u_max", "N·m or N")
          .At(Joint(&BodyJointDesc::effort, "effort"))
          .In(Positive())
          .DefaultNote("unbounded")
          .Reset(kRigidStructure)
          .Doc("The controller's force is limited to ±u_max."),
      Number("rigid_bodies.*.joint.effort_applied", "applied effort", "u", "N·m or N")
          .At(Joint(&BodyJointDesc::effort_applied, "effort_applied"))
          .Within("\\|value\\| ≤ `effort`")
          .Default(0)
          .Reset(kRigidStructure)
          .Doc("Constant feed-forward joint force applied during the whole run."),
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
          .Doc("Derivative gain of the joint's PD controller."),
      Number("rigid_bodies.*.joint.target", "target position", "q_d", "rad or m")
          .At(Joint(&BodyJointDesc::target, "target"))
          .Within(in_limits)
          .Default(0)
          .Reset(kRigidStructure)
          .Doc("Target position of the joint's PD controller."),
  };
}

std::vector<ParameterInfo> RobotWeldCameraRows() {
  const std::string in_limits = "within the joint's limits";
  return {
      Number("robots.*.initial_positions.*", "initial joint position", "q₀", "rad or m")
          .At(RobotJoint("initial position",
                         [](RobotDesc& r, const std::string& j) { return MapValue(r.initial_positions, j); }))
          .Within(in_limits)
          .DefaultNote("every joint at 0")
          .Reset(kInitial)
          .Doc("Joint position at t = 0."),
      Number("robots.*.controllers.*.kp", "proportional gain", "K_p", "N·m/rad or N/m")
          .At(RobotJoint("controller",
                         [](RobotDesc& r, const std::string& j) { return Controller(r, j, &JointControllerDesc::kp); }))
          .In(NonNegative())
          .Default(0)
          .Reset(kRigidStructure)
          .Doc("Proportional gain of the joint's PD controller."),
      Number("robots.*.controllers.*.kd", "derivative gain", "K_d", "N·m·s/rad or N·s/m")
          .At(RobotJoint("controller",
                         [](RobotDesc& r, const std::string& j) { return Controller(r, j, &JointControllerDesc::kd); }))
          .In(NonNegative())
          .Default(0)
          .Reset(kRigidStructure)
          .Doc("Derivative gain of the joint's PD controller."),
      Number("robots.*.controllers.*.target", "target position", "q_d", "rad or m")
          .At(RobotJoint(
              "controller",
              [](RobotDesc& r, const std::string& j) { return Controller(r, j, &JointControllerDesc::target); }))
          .Within(in_limits)
          .Default(0)
          .Reset(kRigidStructure)
          .Doc("Target position q_d of the controller."),
      Number("robots.*.controllers.*.feedforward", "feed-forward force", "u_ff", "N·m or N")
          .At(RobotJoint(
              "controller",
              [](RobotDesc& r, const std::string& j) { return Controller(r, j, &JointControllerDesc::feedforward); }))
          .Default(0)
          .Reset(kRigidStructure)
          .Doc("Constant force added to the PD term."),
      Number("robots.*.joint_efforts.*", "joint effort", "u", "N·m or N")
          .At(RobotJoint("joint effort",
                         [](RobotDesc& r, const std::string& j) { return MapValue(r.joint_efforts, j); }))
          .Within("\\|value\\| ≤ the joint's URDF `effort` limit")
          .DefaultNote("none (0)")
          .Reset(kRigidStructure)
          .Doc("Constant feed-forward joint force applied during the whole run."),
      Number("robots.*.link_force_limit", "link force limit", "F_max", "N")
          .At(Entry(&SceneDesc::robots, "robot", &RobotDesc::link_force_limit))
          .Derives(ParameterDerives::kRobotLimits)
          .In(Positive())
          .Default(kDefaultLinkForceLimit)
          .Doc("The contact force one of the robot's links may carry: a larger one is reported as a warning, as is "
               "any contact between two of its links. The default is four times the weight of the 7 kg rated "
               "payload of the KUKA LBR iiwa 7 R800."),
      Number("welds.*.stiffness", "weld stiffness", "k", "N/m")
          .At(Entry(&SceneDesc::welds, "weld", &WeldDesc::stiffness))
          .In(NonNegative())
          .Default(0)
          .Reset("changes the welds")
          .Doc("0: near-rigid; > 0: a spring pulling the frames together."),
      Number("welds.*.damping", "weld damping", "d", "N·s/m")
          .At(Entry(&SceneDesc::welds, "weld", &WeldDesc::damping))
          .In(NonNegative())
          .Within("≥ 0; `0` when `stiffness` is `0`")
          .Default(0)
          .Reset("changes the welds")
          .Doc("Damper of the weld's spring."),
      Number("cameras.*.fov_deg", "field of view", "fov", "deg")
          .At(Entry(&SceneDesc::cameras, "camera", &CameraDesc::fov_deg))
          .In({0, 180, true, true})
          .Default(40)
          .Reload("is read when the scene is opened")
          .Doc("Vertical field of view of the camera preset."),
  };
}

// The FEM–IPC domain (fem/ipc_system.h): soft bodies, affine bodies and the `ipc` settings.
std::vector<ParameterInfo> FemRows() {
  const char* const mesh = "changes the body's mesh";
  const char* const mass = "changes the body's mass";
  return {
      Number("soft_bodies.*.resolution", "tet size", "h", "m")
          .At(Entry(&SceneDesc::soft_bodies, "soft body", &SoftBodyDesc::resolution))
          .In(Positive())
          .Default(0.01)
          .Reset(mesh)
          .Doc("Target edge length of the tets a shape or closed OBJ mesh is cut into (not a `.msh` mesh, not a "
               "sheet)."),
      Number("soft_bodies.*.thickness", "sheet thickness", "t", "m")
          .At(Entry(&SceneDesc::soft_bodies, "soft body", &SoftBodyDesc::thickness))
          .In(Positive())
          .Default(0.005)
          .Reset(mesh)
          .Doc("A sheet's thickness: one layer of tets."),
      Number("soft_bodies.*.youngs_modulus", "Young's modulus", "E", "Pa")
          .At(Entry(&SceneDesc::soft_bodies, "soft body", &SoftBodyDesc::youngs_modulus))
          .Derives(ParameterDerives::kFem)
          .In(Positive())
          .Default(1e5)
          .Doc("Stiffness of the soft body's material."),
      Number("soft_bodies.*.poisson_ratio", "Poisson's ratio", "ν", "")
          .At(Entry(&SceneDesc::soft_bodies, "soft body", &SoftBodyDesc::poisson_ratio))
          .Derives(ParameterDerives::kFem)
          .In({-1, 0.5, true, true})
          .Default(0.4)
          .Doc("Lateral contraction; near 0.5 nearly incompressible."),
      Number("soft_bodies.*.density", "density", "ρ", "kg/m³")
          .At(Entry(&SceneDesc::soft_bodies, "soft body", &SoftBodyDesc::density))
          .In(Positive())
          .Default(1000)
          .Reset(mass)
          .Doc("Mass per volume; lumped onto the vertices."),
      Vector("soft_bodies.*.velocity", "initial velocity", "v₀", "m/s")
          .At(Entry(&SceneDesc::soft_bodies, "soft body", &SoftBodyDesc::velocity))
          .Default(Vector3{0, 0, 0})
          .Reset(kInitial)
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
          .Doc("Mass per volume of the body's shape."),
      Number("affine_bodies.*.stiffness", "orthogonality stiffness", "κ_A", "Pa")
          .At(Entry(&SceneDesc::affine_bodies, "affine body", &AffineBodyDesc::stiffness))
          .Derives(ParameterDerives::kFem)
          .In(Positive())
          .Default(1e8)
          .Doc("Stiffness of the potential κ_A V ‖AAᵀ − I‖² that keeps the affine body rigid."),
      Vector("affine_bodies.*.velocity", "initial velocity", "v₀", "m/s")
          .At(Entry(&SceneDesc::affine_bodies, "affine body", &AffineBodyDesc::velocity))
          .Default(Vector3{0, 0, 0})
          .Reset(kInitial)
          .Doc("Initial velocity of the shape frame's origin."),
      Vector("affine_bodies.*.angular_velocity", "initial angular velocity", "ω₀", "rad/s")
          .At(Entry(&SceneDesc::affine_bodies, "affine body", &AffineBodyDesc::angular_velocity))
          .Default(Vector3{0, 0, 0})
          .Reset(kInitial)
          .Doc("Initial angular velocity, world frame."),
      Number("ipc.dhat", "barrier distance", "d̂", "m")
          .At(Fixed([](SceneDesc& s) { return Of(s.ipc.dhat); }))
          .Derives(ParameterDerives::kFem)
          .In(Positive())
          .Default(1e-3)
          .Doc("Distance below which the contact barrier acts: bodies rest about this far apart."),
      Number("ipc.barrier_stiffness", "barrier stiffness", "κ", "J/(m⁴ s²)")
          .At(Fixed([](SceneDesc& s) { return Of(s.ipc.barrier_stiffness); }))
          .Derives(ParameterDerives::kFem)
          .In(NonNegative())
          .Default(0)
          .Doc("Barrier stiffness κ on squared distances (the potential holds κ Δt² b); 0: adaptive, elastic floor."),
      Number("ipc.friction", "friction", "μ", "")
          .At(Fixed([](SceneDesc& s) { return Of(s.ipc.friction); }))
          .Derives(ParameterDerives::kFem)
          .In(NonNegative())
          .Default(0.5)
          .Doc("Coulomb friction coefficient between every pair of IPC surfaces."),
      Number("ipc.friction_velocity", "friction smoothing speed", "ε_v", "m/s")
          .At(Fixed([](SceneDesc& s) { return Of(s.ipc.friction_velocity); }))
          .Derives(ParameterDerives::kFem)
          .In(Positive())
          .Default(1e-3)
          .Doc("Tangential speeds below ε_v are treated as sticking (smoothed static friction)."),
      Number("ipc.newton_tolerance", "Newton tolerance", "ε_d", "m/s")
          .At(Fixed([](SceneDesc& s) { return Of(s.ipc.newton_tolerance); }))
          .Derives(ParameterDerives::kFem)
          .In(Positive())
          .Default(1e-3)
          .Doc("Newton stops after the first step whose largest vertex increment divided by Δt is below ε_d."),
      Integer("ipc.max_newton_iterations", "Newton iteration limit", "n_max")
          .At(Fixed([](SceneDesc& s) { return Of(s.ipc.max_newton_iterations); }))
          .Derives(ParameterDerives::kFem)
          .In(AtLeast(1))
          .Default(200)
          .Doc("A step that needs more keeps its last iterate and says so in its telemetry."),
  };
}

std::vector<ParameterInfo> BuildTable() {
  std::vector<ParameterInfo> table;
  for (const auto& rows : {SimulationRows(), GridAndContactRows(), MaterialRows(), ClothMaterialRows(), ObjectRows(),
                           RigidBodyRows(), BodyJointRows(), RobotWeldCameraRows(), FemRows()})
    table.insert(table.end(), rows.begin(), rows.end());
  return table;
}

// Shortest text for a number: "0.5", "1e+05"; `minus` spells the sign of a negative number.
std::string Format(double x, const char* minus = "-") {
  std::ostringstream text;
  text << std::abs(x);
  return (x < 0 ? minus : "") + text.str();
}

}  // namespace

bool ParameterRange::Contains(double x) const {
  const bool above = min_open ? x > min : x >= min;
  const bool below = max_open ? x < max : x <= max;
  return above && below;
}

std::string ParameterRange::Describe() const {
  if (std::isinf(min) && std::isinf(max)) return "finite";
  if (std::isinf(max)) return (min_open ? "> " : ">= ") + Format(min);
  if (std::isinf(min)) return (max_open ? "< " : "<= ") + Format(max);
  return std::string("in ") + (min_open ? "(" : "[") + Format(min) + ", " + Format(max) + (max_open ? ")" : "]");
}

std::string ParameterRange::Notation() const {
  const char* minus = "−";
  if (std::isinf(min) && std::isinf(max)) return "finite";
  if (std::isinf(max)) return (min_open ? "> " : "≥ ") + Format(min, minus);
  if (std::isinf(min)) return (max_open ? "< " : "≤ ") + Format(max, minus);
  return std::string(min_open ? "(" : "[") + Format(min, minus) + ", " + Format(max, minus) + (max_open ? ")" : "]");
}

const std::vector<ParameterInfo>& ParameterTable() {
  static const std::vector<ParameterInfo> table = BuildTable();
  return table;
}

const ParameterInfo* FindParameter(const std::string& pattern) {
  for (const ParameterInfo& p : ParameterTable())
    if (p.key == pattern) return &p;
  return nullptr;
}

}  // namespace ductile
