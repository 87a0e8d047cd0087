// The projective-dynamics domain's rows (engine/src/pd/, Qiao et al. 2021): its bodies (`pd_bodies`) and its solver
// and contact settings (`pd`). Materials, actuators and the solver's settings are live (ParameterDerives::kPd,
// params/model_editor.cpp); what changes the mesh, the masses or the energies' terms needs a reset.
#include "params/parameter_row.h"

namespace ductile::params::rows {

std::vector<ParameterInfo> PdBodyRows() {
  const char* const mesh = "changes the body's mesh";
  const char* const terms = "changes the body's energies";
  return {
      Number("pd_bodies.*.resolution", "tet size", "h", "m")
          .At(Entry(&SceneDesc::pd_bodies, "pd body", &PdSoftBodyDesc::resolution))
          .In(Positive())
          .Default(0.01)
          .Reset(mesh)
          .Doc("Target edge length of the tets a shape or closed OBJ mesh is cut into (the FEM domain's mesher, "
               "fem/tetrahedralise.h)."),
      Number("pd_bodies.*.youngs_modulus", "Young's modulus", "E", "Pa")
          .At(Entry(&SceneDesc::pd_bodies, "pd body", &PdSoftBodyDesc::youngs_modulus))
          .Derives(ParameterDerives::kPd)
          .In(Positive())
          .Default(1e5)
          .Doc("Young's modulus E of every tet (the corotated strain and volume energies' weights). Live: the global "
               "matrix is refactorised."),
      Number("pd_bodies.*.poisson_ratio", "Poisson's ratio", "ν", "")
          .At(Entry(&SceneDesc::pd_bodies, "pd body", &PdSoftBodyDesc::poisson_ratio))
          .Derives(ParameterDerives::kPd)
          .In({0, 0.5, false, true})
          .Default(0.3)
          .Doc("Poisson's ratio ν (projective dynamics takes no negative ν: its volume energy's weight would be "
               "negative). Live."),
      Number("pd_bodies.*.density", "density", "ρ", "kg/m³")
          .At(Entry(&SceneDesc::pd_bodies, "pd body", &PdSoftBodyDesc::density))
          .In(Positive())
          .Default(1000)
          .Reset("changes the body's mass")
          .Doc("Mass per volume, lumped onto the vertices."),
      Vector("pd_bodies.*.velocity", "initial velocity", "v₀", "m/s")
          .At(Entry(&SceneDesc::pd_bodies, "pd body", &PdSoftBodyDesc::velocity))
          .Default(Vector3{0, 0, 0})
          .Initial()
          .Doc("Initial velocity of every vertex."),
      Number("pd_bodies.*.pneumatic_ratio", "pneumatic volume ratio", "a", "")
          .At(Entry(&SceneDesc::pd_bodies, "pd body", &PdSoftBodyDesc::pneumatic_ratio))
          .Derives(ParameterDerives::kPd)
          .In(Positive())
          .Default(1)
          .Doc("The volume ratio every tet's volume energy drives it to (the body is one pneumatic chamber): above 1 "
               "it inflates, below 1 it deflates. Live."),
      Number("pd_bodies.*.muscle_stiffness", "muscle stiffness", "k_m", "Pa")
          .At(Entry(&SceneDesc::pd_bodies, "pd body", &PdSoftBodyDesc::muscle_stiffness))
          .In(NonNegative())
          .Default(0)
          .Reset(terms)
          .Doc("Stiffness of a muscle fibre in every tet along `muscle_direction`; 0: the body has no muscles."),
      Vector("pd_bodies.*.muscle_direction", "muscle direction", "d", "")
          .At(Entry(&SceneDesc::pd_bodies, "pd body", &PdSoftBodyDesc::muscle_direction))
          .Default(Vector3{1, 0, 0})
          .Reset(terms)
          .Doc("The fibres' direction in the shape's frame (not zero; normalised)."),
      Number("pd_bodies.*.muscle_activation", "muscle activation", "a_m", "")
          .At(Entry(&SceneDesc::pd_bodies, "pd body", &PdSoftBodyDesc::muscle_activation))
          .Derives(ParameterDerives::kPd)
          .In({0, 1, false, false})
          .Default(0)
          .Doc("Activation of the muscle fibres: at 1 a fibre's rest length is 1 − `pd.max_contraction` of its length. "
               "Live."),
  };
}

std::vector<ParameterInfo> PdBoneRows() {
  return {
      Vector("pd_bodies.*.skeleton.*.axis", "joint axis", "a", "")
          .At(scene::PdBone(&PdBoneDesc::axis))
          .Default(Vector3{0, 0, 1})
          .Reset("changes the body's skeleton")
          .Doc("The bone's joint axis in the world at t = 0 (not zero; normalised): the rotation axis of a `revolute` "
               "joint (positive angles turn counter-clockwise about it), the direction a `prismatic` one slides "
               "along."),
      Vector("pd_bodies.*.skeleton.*.anchor", "joint anchor", "p", "m")
          .At(scene::PdBone(&PdBoneDesc::anchor))
          .Default(Vector3{0, 0, 0})
          .Reset("changes the body's skeleton")
          .Doc("A point on a revolute joint's axis in the world at t = 0 (unused by a prismatic joint)."),
      Number("pd_bodies.*.skeleton.*.torque", "joint torque", "τ", "N·m or N")
          .At(scene::PdBone(&PdBoneDesc::torque))
          .Derives(ParameterDerives::kPd)
          .In(Finite())
          .Default(0)
          .Doc("The torque (revolute) or force (prismatic) the joint applies between the bone and its parent, "
               "about or along its axis. Live."),
  };
}

std::vector<ParameterInfo> PdRows() {
  return {
      Number("pd.tolerance", "tolerance", "ε_r", "")
          .At(Fixed([](SceneDesc& s) { return Of(s.pd.tolerance); }))
          .Derives(ParameterDerives::kPd)
          .In(Positive())
          .Default(1e-6)
          .Doc("A step stops when its force residual is below this fraction of the body's weight and inertial forces "
               "(pd/pd_solver.h, \"Stopping rule\")."),
      Integer("pd.max_iterations", "iteration limit", "n_max")
          .At(Fixed([](SceneDesc& s) { return Of(s.pd.max_iterations); }))
          .Derives(ParameterDerives::kPd)
          .In(AtLeast(1))
          .Default(200)
          .Doc("Local/global sweeps and Newton steps of a step; a step that needs more keeps its last iterate and "
               "reports `pd_converged` false."),
      Number("pd.friction", "friction", "μ", "")
          .At(Fixed([](SceneDesc& s) { return Of(s.pd.friction); }))
          .Derives(ParameterDerives::kPd)
          .In(NonNegative())
          .Default(0.5)
          .Doc("Coulomb friction coefficient μ between the bodies and every rigid geometry (the ground, rigid bodies, "
               "robot links). Live."),
      Number("pd.stick_velocity", "stick velocity", "ε_v", "m/s")
          .At(Fixed([](SceneDesc& s) { return Of(s.pd.stick_velocity); }))
          .In(Positive())
          .Default(1e-5)
          .Reset("changes the compiled bodies")
          .Doc("Slips slower than this count as sticking: the friction law is smoothed below it (pd/pd_contact.h)."),
      Number("pd.max_contraction", "maximal contraction", "κ", "")
          .At(Fixed([](SceneDesc& s) { return Of(s.pd.max_contraction); }))
          .In({0, 1, true, true})
          .Default(0.5)
          .Reset("changes the compiled bodies")
          .Doc("A fully activated muscle fibre's rest length is 1 − κ of its length."),
  };
}

}  // namespace ductile::params::rows
