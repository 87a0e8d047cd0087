// The Workspace's list of deformable domains, built from the registry (state/domain_registry.h): which kinds a model
// has, in the registry's order, each on its part of the State; each kind's word on whether a live edit changes its
// structure (Simulator::UpdateModel asks every kind), and what it refuses to run.
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "ductile/model.h"
#include "ductile/scene.h"
#include "ductile/simulator.h"
#include "fem/fem_domain.h"
#include "state/domain_registry.h"
#include "state/state_data.h"
#include "state/state_format.h"
#include "step/workspace.h"

namespace ductile {
namespace {

constexpr const char* kMpmScene = R"(
simulation: {dt: 1.0e-3, substeps: 4}
grid: {h: 0.02, domain: {min: [-0.2, -0.2, 0.0], max: [0.2, 0.2, 0.3]}}
materials:
  rubber: {model: fixed_corotated, density: 500, youngs_modulus: 2.0e4, poisson_ratio: 0.3}
objects:
  cube: {material: rubber, shape: {type: box, size: [0.08, 0.08, 0.08]}, pose: {position: [0, 0, 0.06]}}
rigid_bodies:
  ground: {type: static, shape: {type: plane}}
)";

// The same with a soft body of the FEM–IPC domain beside the MPM cube.
std::string WithSoftBody(const std::string& resolution = "0.02") {
  return std::string(kMpmScene) + R"(
soft_bodies:
  block:
    shape: {type: box, size: [0.04, 0.04, 0.04]}
    resolution: )" +
         resolution + R"(
    youngs_modulus: 1.0e5
    poisson_ratio: 0.3
    density: 1000
    pose: {position: [0.12, 0, 0.05]}
)";
}

Model Compile(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
  std::vector<Override> parsed;
  for (const std::string& o : overrides) parsed.push_back(ParseOverride(o));
  return CompileModel(LoadSceneFromString(yaml, "domains.yaml", parsed));
}

std::vector<std::string> Names(const Workspace& workspace) {
  std::vector<std::string> names;
  for (const std::unique_ptr<DeformableDomain>& d : workspace.domains) names.push_back(d->name());
  return names;
}

TEST(DomainRegistry, ListsEachKindOnceWithItsName) {
  std::vector<std::string> names;
  for (const DomainKind& kind : DomainKinds()) names.push_back(kind.name);
  EXPECT_EQ(names, (std::vector<std::string>{"mpm", "fem", "pd"}));
}

TEST(DomainRegistry, TheWorkspaceListsTheDomainsTheModelHasInTheRegistrysOrder) {
  const Model mpm_only = Compile(kMpmScene);
  State::Data a;
  const Workspace just_mpm(mpm_only, a, 1);
  EXPECT_EQ(Names(just_mpm), (std::vector<std::string>{"mpm"}));
  EXPECT_EQ(just_mpm.Find<fem::FemDomain>(), nullptr);

  const Model both = Compile(WithSoftBody());
  State::Data b;
  const Workspace with_fem(both, b, 1);
  EXPECT_EQ(Names(with_fem), (std::vector<std::string>{"mpm", "fem"}));
  ASSERT_NE(with_fem.Find<fem::FemDomain>(), nullptr);
  // Each works on its part of the State, reset to the model's initial state.
  EXPECT_EQ(b.mpm.particles.size(), static_cast<std::size_t>(both.num_particles));
  EXPECT_EQ(b.fem.x.size(), with_fem.Find<fem::FemDomain>()->system().soft_vertex_masses().size());
  EXPECT_FALSE(b.fem.x.empty());
}

// Every kind is asked about every edit, whether or not either model has its domain.
TEST(DomainRegistry, EachKindSaysWhenAnEditChangesItsStructure) {
  const Model base = Compile(WithSoftBody());
  const auto changed = [&](const Model& after) {
    std::vector<std::string> out;
    for (const DomainKind& kind : DomainKinds()) out.push_back(kind.structure_changed(base, after));
    return out;
  };
  EXPECT_EQ(changed(Compile(WithSoftBody(), {"materials.rubber.youngs_modulus=4e4"})),
            (std::vector<std::string>{"", "", ""}))
      << "a live parameter keeps every structure";
  const std::vector<std::string> bigger_cube =
      changed(Compile(WithSoftBody(), {"objects.cube.shape.size=[0.1, 0.1, 0.1]"}));
  EXPECT_NE(bigger_cube[0].find("particles changed"), std::string::npos) << bigger_cube[0];
  EXPECT_EQ(bigger_cube[1], "");
  const std::vector<std::string> finer_block = changed(Compile(WithSoftBody("0.01")));
  EXPECT_EQ(finer_block[0], "");
  EXPECT_EQ(finer_block[1], "the soft or affine bodies changed: reset to apply");
  const std::vector<std::string> no_block = changed(Compile(kMpmScene));
  EXPECT_EQ(no_block[1], "the soft or affine bodies changed: reset to apply") << "the FEM domain would go";

  // UpdateModel asks them, and names the changed parameter after the domain's words: the state stays as it was.
  Simulator sim(std::make_shared<const Model>(base));
  sim.Step();
  const std::uint64_t before = sim.StateHash();
  EXPECT_EQ(sim.UpdateModel(std::make_shared<const Model>(Compile(WithSoftBody("0.01")))),
            "the soft or affine bodies changed: reset to apply (changed: soft_bodies.block.resolution)");
  EXPECT_EQ(sim.StateHash(), before);
}

// The Simulator lists every domain's bodies, each summarised by its own domain: the MPM cube (its particles' mass is
// the object's), then the soft block (its lumped vertex masses sum to ρV).
TEST(DomainRegistry, TheSimulatorListsEveryDomainsBodies) {
  Simulator sim(std::make_shared<const Model>(Compile(WithSoftBody())));
  ASSERT_EQ(sim.num_bodies(), 2);
  const BodySummary cube = sim.SummarizeBody(0), block = sim.SummarizeBody(1);
  EXPECT_EQ(cube.name, "cube");
  EXPECT_EQ(cube.kind, DomainBodyKind::kObject);
  EXPECT_NEAR(cube.mass, sim.model().objects[0].mass, 1e-6 * cube.mass);  // float particle masses
  EXPECT_EQ(cube.center_of_mass, sim.SummarizeObject(0).center_of_mass);
  EXPECT_EQ(block.name, "block");
  EXPECT_EQ(block.kind, DomainBodyKind::kSoftBody);
  EXPECT_NEAR(block.mass, 1000 * 0.04 * 0.04 * 0.04, 1e-9);
  EXPECT_NEAR(block.center_of_mass[0], 0.12, 1e-9);
  EXPECT_EQ(block.center_of_mass, sim.SummarizeIpcBody(0).position);
  EXPECT_LE(block.bounds_min[2], 0.03 + 1e-12);
  EXPECT_GE(block.bounds_max[2], 0.07 - 1e-12);
  EXPECT_THROW(sim.SummarizeBody(2), std::out_of_range);
}

// A Workspace bound to another State works on it: every domain steps the new State's part, and a copy of a State
// steps on as the original does, bitwise.
TEST(DomainRegistry, EveryDomainWorksOnTheBoundState) {
  const Model model = Compile(WithSoftBody());
  State::Data first;
  Workspace workspace(model, first, 1);
  const auto advance = [&](Workspace& w, State::Data& state) {
    CouplingStep coupled = w.Coupled();
    w.coupling->Advance(model, state, coupled);
  };
  for (int i = 0; i < 5; ++i) advance(workspace, first);
  State::Data copy;
  Workspace other(model, copy, 1);  // on its own initial state
  copy = first;
  other.Bind(model, copy);
  for (int i = 0; i < 5; ++i) {
    advance(workspace, first);
    advance(other, copy);
  }
  EXPECT_EQ(first.fem.x, copy.fem.x);
  ASSERT_EQ(first.mpm.particles.size(), copy.mpm.particles.size());
  for (std::size_t p = 0; p < first.mpm.particles.size(); ++p)
    for (int a = 0; a < 3; ++a) EXPECT_EQ(first.mpm.particles.x[p][a], copy.mpm.particles.x[p][a]);
}

// A state file's fingerprint, a State's memory and the scene's summary in messages loop over the kinds: the FEM–IPC
// domain's bodies count in each.
TEST(DomainRegistry, EachKindAddsItsPartToTheStateFilesFingerprintMemoryAndSummary) {
  const Model mpm_only = Compile(kMpmScene);
  const Model with_soft = Compile(WithSoftBody());
  EXPECT_EQ(DescribeModel(mpm_only).rfind(std::to_string(mpm_only.num_particles) + " particles in 1 object, 0 rigid "
                                                                                   "positions",
                                          0),
            0U)
      << DescribeModel(mpm_only);
  EXPECT_NE(DescribeModel(with_soft).find(", 1 soft and 0 affine bodies, 0 rigid positions"), std::string::npos)
      << DescribeModel(with_soft);
  EXPECT_NE(ModelFingerprint(mpm_only), ModelFingerprint(with_soft));
  EXPECT_EQ(ModelFingerprint(with_soft),
            ModelFingerprint(Compile(WithSoftBody(), {"soft_bodies.block.youngs_modulus=2e5"})));
  EXPECT_NE(ModelFingerprint(with_soft), ModelFingerprint(Compile(WithSoftBody("0.01"))));  // another mesh
  const Simulator plain(std::make_shared<const Model>(mpm_only)), soft(std::make_shared<const Model>(with_soft));
  const std::size_t fem_bytes = soft.state().MemoryBytes() - plain.state().MemoryBytes();
  std::size_t vertices = 0;
  for (const DomainKind& kind : DomainKinds())
    if (std::string(kind.name) == "fem") vertices = kind.memory_bytes(soft.state().data());
  EXPECT_GT(vertices, 0U);
  EXPECT_GE(fem_bytes, vertices);  // the FEM part is counted (the MPM parts are the same scene's)
}

// Each kind declares what it refuses (its capabilities): the MPM domain colliders, sand and cloth under the strong
// scheme and a device backend that cannot run the scene; the FEM–IPC domain affine bodies and a second soft body
// under it, and the live switch from strong back to weak with soft bodies. The Simulator refuses at its start (with
// the key's place in the scene) and at an edit; CompileModel leaves it to the Simulator.
TEST(DomainRegistry, EachKindDeclaresWhatItRefuses) {
  const std::string collider = std::string(kMpmScene) + R"(
colliders:
  wall: {shape: {type: box, size: [0.02, 0.2, 0.2]}, pose: {position: [0.15, 0, 0.1]}}
)";
  const Model colliders = Compile(collider, {"simulation.coupling=strong"});  // compiles: the Simulator refuses
  const DomainRefusal mpm = ModelRefusal(colliders);
  EXPECT_EQ(mpm.key, "simulation.coupling");
  EXPECT_EQ(mpm.value, "strong");
  EXPECT_NE(mpm.why.find("takes no colliders (collider 'wall')"), std::string::npos) << mpm.why;
  EXPECT_FALSE(mpm.reset);
  try {
    CheckModel(colliders);
    ADD_FAILURE() << "a strong scene with a collider passed";
  } catch (const SceneError& e) {
    EXPECT_EQ(e.file(), "domains.yaml");  // the override's place: the key is set by it
    EXPECT_EQ(e.message().rfind("simulation.coupling: strong: the strong coupling takes no colliders", 0), 0U)
        << e.message();
  }
  EXPECT_THROW(Simulator(std::make_shared<const Model>(colliders)), SceneError);

  const Model emulated = Compile(kMpmScene, {"simulation.coupling=strong", "simulation.backend=emulated"});
  EXPECT_EQ(Describe(ModelRefusal(emulated)),
            "simulation.backend: emulated: the strong coupling (simulation.coupling: strong) runs on the CPU backend "
            "only");

  const Model two_soft = Compile(WithSoftBody() + R"(
  other:
    shape: {type: box, size: [0.04, 0.04, 0.04]}
    resolution: 0.02
    youngs_modulus: 1.0e5
    poisson_ratio: 0.3
    density: 1000
    pose: {position: [-0.12, 0, 0.05]}
)",
                                 {"simulation.coupling=strong"});
  EXPECT_NE(ModelRefusal(two_soft).why.find("takes one soft body"), std::string::npos);
  EXPECT_FALSE(ModelRefusal(Compile(WithSoftBody(), {"simulation.coupling=strong"})));  // one soft body: runs

  // The switch back to weak with a soft body: the state cannot take it live, a reset can.
  const Model strong = Compile(WithSoftBody(), {"simulation.coupling=strong"});
  const Model weak = Compile(WithSoftBody());
  const DomainRefusal back = EditRefusal(strong, weak);
  EXPECT_TRUE(back.reset);
  EXPECT_NE(Describe(back).find("goes back to the weak coupling at a reset"), std::string::npos);
  EXPECT_EQ(Describe(back).substr(Describe(back).size() - 16), ": reset to apply");
  EXPECT_FALSE(EditRefusal(weak, strong));
  // An edit (a scene compiled again) the domains refuse leaves the simulation as it was.
  Simulator sim(std::make_shared<const Model>(Compile(kMpmScene)));
  EXPECT_EQ(sim.UpdateModel(std::make_shared<const Model>(emulated)), Describe(ModelRefusal(emulated)));
  EXPECT_EQ(sim.model().coupling, CouplingKind::kWeak);
}

}  // namespace
}  // namespace ductile
