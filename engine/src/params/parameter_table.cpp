// The rows of the parameter table (ductile/parameters.h), section by section in the order of
// docs/scene-format.md: each with its binding to the SceneDesc field (`At`, scene/scene_binding.h) and, when a
// running simulation takes it, what an edit recomputes (`Derives`, params/model_editor.cpp). A row's default must equal
// the matching default of ductile/scene.h and its range, default and unit the row of the docs' table (tests/unit/params
// check both).
#include <cmath>
#include <sstream>
#include <utility>

#include "ductile/parameters.h"
#include "params/parameter_row.h"

namespace ductile {

namespace {

using namespace params::rows;  // the row builder's vocabulary (parameter_row.h)
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
  };
}

// The coupling scheme, the backend and their solvers' settings; the seed and the threads.
std::vector<ParameterInfo> SchemeRows() {
  return {
      Choice("simulation.coupling", "coupling scheme", CouplingChoices())
          .At(Fixed([](SceneDesc& s) { return Of(s.simulation.coupling); }))
          .Derives(ParameterDerives::kTiming)
          .Default(0)
          .Doc("How MPM and the rigid bodies advance together: `weak`, substeps against frozen rigid geometry, then "
               "the rigid step (Yu et al. 2025); `strong`, one implicit MPM step per `dt` solved with the rigid step "
               "in one convex contact problem (Zong et al. 2024; no substeps, stable at `dt` = 10 ms whatever the "
               "stiffness; not for `drucker_prager`, `cloth`, colliders, affine bodies or more than one soft body)."),
      Choice("simulation.backend", "backend", BackendChoices())
          .At(Fixed([](SceneDesc& s) { return Of(s.simulation.backend); }))
          .Derives(ParameterDerives::kTiming)
          .Default(0)
          .Doc("Where the MPM domain runs (docs/architecture.md, \"The device backend\"): `cpu`, the reference; "
               "`cuda`, the device backend on a CUDA GPU, refused with the reason where there is none or the scene has "
               "the strong coupling; `auto`, `cuda` when it can run, else `cpu`; `emulated`, the device backend's code "
               "on the CPU (tests and `bench/gpu-check`). Live: a switch carries the state over at the next step. "
               "`ductile-cli --backend` sets it."),
      Number("simulation.strong_tolerance", "joint solve tolerance", "ε_s", "")
          .At(Fixed([](SceneDesc& s) { return Of(s.simulation.strong_tolerance); }))
          .Derives(ParameterDerives::kTiming)
          .In(Positive())
          .Default(1e-6)
          .Doc("Relative tolerance ε_r of the strong coupling's joint SAP solve."),
      Integer("simulation.strong_dense_limit", "dense joint solve up to", "n_S")
          .At(Fixed([](SceneDesc& s) { return Of(s.simulation.strong_dense_limit); }))
          .Derives(ParameterDerives::kTiming)
          .In(AtLeast(0))
          .Default(1500)
          .Doc("Per domain, the most dofs its contacts may touch (for MPM the velocity components of their particles' "
               "stencil nodes, for a soft body its touching vertices') for the strong coupling's joint solve to be "
               "reduced onto them by a dense Schur complement; above it the domain joins whole and the joint solve "
               "stays sparse (CHOLMOD), cheaper when a body rests on a wall or table."),
      Number("simulation.implicit_tolerance", "implicit CG tolerance", "ε_cg", "")
          .At(Fixed([](SceneDesc& s) { return Of(s.simulation.implicit_tolerance); }))
          .Derives(ParameterDerives::kTiming)
          .In(Positive())
          .Default(1e-8)
          .Doc("Relative residual of the strong coupling's conjugate gradients in a step without contacts."),
      Integer("simulation.seed", "sampling seed", "seed")
          .At(Fixed([](SceneDesc& s) { return Of(s.simulation.seed); }))
          .In(AtLeast(0))
          .Default(0)
          .Reset("changes the particles")
          .Doc("Seed of the particle sampling: `0` samples each object as its `particles_per_cell` says; another value "
               "samples the same shapes again, each lattice point moved to a uniformly random place in its sub-cell "
               "(jittered sampling) or, for a non-cube count, other random points. The particle count of a shape "
               "aligned with the cells and the masses stay; `ductile-cli sweep --seeds N` runs seeds 0 to N−1."),
      Integer("simulation.threads", "threads", "threads")
          .At(Fixed([](SceneDesc& s) { return Of(s.simulation.threads); }))
          .In(AtLeast(0))
          .Default(0)
          .Reload("sets the worker threads when the simulator starts")
          .Doc("Worker threads; `0` uses all cores."),
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
          .Doc("Coulomb friction coefficient μ. Accepted with every type, used only by `friction`."),
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
          .Doc("Hunt-Crossley dissipation d: the normal force is multiplied by (1 + d·v), v the speed at which the "
               "bodies approach (negative while they separate), so a bounce loses energy."),
      Number("contact.stiction_speed", "stiction speed", "v_s", "m/s")
          .At(Fixed([](SceneDesc& s) { return Of(s.contact.stiction_speed); }))
          .Derives(ParameterDerives::kSolverSettings)
          .In(Positive())
          .Default(1e-4)
          .Doc("Slip speed v_s of the regularised friction: below it, friction acts like viscous damping instead of "
               "sticking exactly."),
      Number("contact.mpm_stiffness", "stiffness (MPM)", "k_p", "N/m")
          .At(Fixed([](SceneDesc& s) { return Of(s.contact.mpm_stiffness); }))
          .Derives(ParameterDerives::kSolverSettings)
          .In(NonNegative())
          .Default(0)
          .Doc("How one MPM particle's contact with rigid geometry pushes back. `0` (the default): near-rigid, SAP's "
               "regularised friction cone per contact, its normal compliance chosen as the stiffest spring the substep "
               "resolves on the contact's effective mass 1/w (w = Σᵢ w_i²/m_i over its grid nodes), w/(4π²), and "
               "friction bounded by the current normal impulse: a particle sinks by about g Δt²/(4π²) under its weight "
               "(nanometres), sliding follows Coulomb's law (an elastic ball, a cloth sheet and an elastic box on "
               "inclines within 0.1%), a sticking contact slips by 1% of the velocity change its friction makes in a "
               "substep (hundredths of a millimetre a second on an incline), and particles within 5% of `grid.h` "
               "outside the geometry are contacts that act only when they approach (docs/architecture.md, \"MPM-rigid "
               "contact\"). `> 0`: the lagged Hunt-Crossley model, each particle inside a rigid body pushed out with "
               "this many newtons per metre of penetration (the default before issue 45; its friction bound comes from "
               "the starting penetration, which under-counts friction on light material: a cloth sheet slid as if μ "
               "were 0.73 of its value at 1e4). A particle of a round elastic object — sphere, capsule or cylinder "
               "without plasticity — touches on the surface it carries from that shape under either model. Friction: "
               "the geometry's μ, combined with the material's [`friction`](#materials) when that is set."),
      Number("contact.mpm_dissipation", "dissipation (MPM)", "d_p", "s/m")
          .At(Fixed([](SceneDesc& s) { return Of(s.contact.mpm_dissipation); }))
          .Derives(ParameterDerives::kSolverSettings)
          .In(NonNegative())
          .Default(10)
          .Doc("Hunt-Crossley dissipation of those particle contacts (with `mpm_stiffness` > 0)."),
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
          .Doc("Particles seeded per grid cell: a cube number k³ gives a regular k×k×k lattice in each cell, any other "
               "count that many uniformly random points per cell from a fixed-seed generator (the same scene always "
               "gives the same particles; `simulation.seed` picks another sampling). Each particle has volume h³/ppc."),
      Vector("objects.*.velocity", "initial velocity", "v₀", "m/s")
          .At(Entry(&SceneDesc::objects, "object", &MpmObjectDesc::velocity))
          .Default(Vector3{0, 0, 0})
          .Initial()
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
          .Doc("Coulomb friction coefficient μ. Accepted with every type, used only by `friction`."),
  };
}

std::vector<ParameterInfo> BuildTable() {
  std::vector<ParameterInfo> table;
  for (const auto& rows : {SimulationRows(), SchemeRows(), GridAndContactRows(), MaterialRows(), ClothMaterialRows(),
                           ObjectRows(), RigidBodyRows(), BodyJointRows(), RobotWeldCameraRows(),
                           SoftAndAffineBodyRows(), IpcRows(), PdBodyRows(), PdBoneRows(), PdRows()})
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
