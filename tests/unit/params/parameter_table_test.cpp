// The parameter table (ductile/parameters.h): every row is complete and has a place in a SceneDesc, its defaults are
// the loader's (ductile/scene.h), keys match rows, and values are checked with the loader's messages.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ductile/parameters.h"
#include "params/model_editor.h"
#include "scene/schema.h"

namespace ductile {
namespace {

// A scene with an entry of every kind that has parameters, giving only the keys it must (required keys, and what
// makes an entry take its keys: a joint, keyframes, controllers), so that every other key keeps its default.
constexpr const char* kEveryKind = R"(
materials:
  rubber: {model: fixed_corotated, density: 1000, youngs_modulus: 1e5, poisson_ratio: 0.3}
  dough: {model: linear_corotated, density: 1000, youngs_modulus: 2e4, poisson_ratio: 0.4}
  clay: {model: stvk_hencky, density: 1800, youngs_modulus: 5e5, poisson_ratio: 0.35}
  sand: {model: drucker_prager, density: 1600, youngs_modulus: 3.5e5, poisson_ratio: 0.3}
  water: {model: fluid, density: 1000, bulk_modulus: 1e5}
  cotton: {model: cloth, density: 1500, youngs_modulus: 1e5, poisson_ratio: 0.3}
objects:
  cube: {material: rubber, shape: {type: box, size: [0.1, 0.1, 0.1]}, pose: {position: [0, 0, 0.5]}}
colliders:
  ground: {shape: {type: plane}}
rigid_bodies:
  crate: {shape: {type: box, size: [0.1, 0.1, 0.1]}, mass: 2, pose: {position: [0.3, 0, 0.2]}}
  pin: {shape: {type: sphere, radius: 0.02}, density: 800, joint: {parent: crate, kp: 10}}
  pusher: {type: kinematic, shape: {type: sphere, radius: 0.05}, keyframes: [{time: 0}]}
robots:
  arm:
    urdf: ../../../assets/robots/iiwa7/iiwa7.urdf
    initial_positions: {iiwa_joint_2: -0.5}
    controllers: {iiwa_joint_1: {kd: 20}}
    joint_efforts: {iiwa_joint_6: 1}
welds:
  hold: {body_a: world, body_b: crate}
cameras:
  side: {eye: [0, -1, 0.1]}
soft_bodies:
  toy: {shape: {type: sheet, width: 0.1, length: 0.1, vertices: 5}, pose: {position: [-0.3, 0.3, 0.5]}}
affine_bodies:
  block: {shape: {type: box, size: [0.05, 0.05, 0.05]}, pose: {position: [-0.3, -0.3, 0.5]}}
ipc: {}
pd_bodies:
  jelly: {shape: {type: box, size: [0.05, 0.05, 0.05]}, pose: {position: [0.3, 0.3, 0.5]},
          skeleton: {tab: {joint: prismatic, box: {min: [0.32, 0.28, 0.48], max: [0.33, 0.32, 0.52]}}}}
pd: {}
)";

// The keys kEveryKind gives (they do not have their defaults).
const std::set<std::string> kGiven{"materials.rubber.density",
                                   "materials.rubber.youngs_modulus",
                                   "materials.rubber.poisson_ratio",
                                   "materials.dough.density",
                                   "materials.dough.youngs_modulus",
                                   "materials.dough.poisson_ratio",
                                   "materials.clay.density",
                                   "materials.clay.youngs_modulus",
                                   "materials.clay.poisson_ratio",
                                   "materials.sand.density",
                                   "materials.sand.youngs_modulus",
                                   "materials.sand.poisson_ratio",
                                   "materials.water.density",
                                   "materials.water.bulk_modulus",
                                   "materials.cotton.density",
                                   "materials.cotton.youngs_modulus",
                                   "materials.cotton.poisson_ratio",
                                   "rigid_bodies.crate.mass",
                                   "rigid_bodies.pin.density",
                                   "rigid_bodies.pin.joint.kp",
                                   "rigid_bodies.pusher.keyframes.0.time",
                                   "robots.arm.initial_positions.iiwa_joint_2",
                                   "robots.arm.controllers.iiwa_joint_1.kd",
                                   "robots.arm.joint_efforts.iiwa_joint_6"};

SceneDesc EveryKind() {
  return LoadSceneFromString(kEveryKind, std::filesystem::path(DUCTILE_TEST_DATA_DIR) / "scenes" / "every_kind.yaml");
}

TEST(ParameterTable, RowsAreCompleteAndUnique) {
  std::set<std::string> keys;
  for (const ParameterInfo& row : ParameterTable()) {
    SCOPED_TRACE(row.key);
    EXPECT_TRUE(keys.insert(row.key).second) << "twice in the table";
    EXPECT_FALSE(row.name.empty());
    EXPECT_FALSE(row.symbol.empty());
    EXPECT_FALSE(row.doc.empty());
    EXPECT_EQ(row.apply == ParameterApply::kLive, row.reason.empty()) << "a row that needs a reset says why";
    EXPECT_EQ(row.apply == ParameterApply::kLive, params::DerivesLive(row)) << "live rows, and only they, are edited";
    EXPECT_EQ(row.apply == ParameterApply::kLive, row.derives != ParameterDerives::kNone)
        << "a live row says what an edit recomputes";
    EXPECT_NE(row.binding, nullptr) << "every row has its field in a SceneDesc";
    EXPECT_EQ(row.key.rfind("materials.*.", 0) == 0, !row.models.empty()) << "material keys name their models";
    if (row.required) {
      EXPECT_EQ(row.default_note, "*required*");
    }
    if (row.type == ParameterType::kInteger) {
      EXPECT_FALSE(row.range.min_open);
    }
  }
  EXPECT_GE(ParameterTable().size(), 50u);
}

// One row per parameter (issue 46): the sections are read through their rows (the fixed sections by ReadRows, a named
// entry by ReadEntryRows, a joint, a controller, a keyframe and a boundary through a scene of their own), listed in
// the schema and bound to their SceneDesc fields by the rows. What this checks is that no parser quotes a row's key
// and the engine spells an `ipc` key only in its row (messages that name it to the user aside, which do not quote
// it). A value read by hand under another spelling passes it: a robot's `initial_positions` and `joint_efforts`
// (maps of joint name to number, checked against the URDF's limits in parse_robots.cpp) are still read so.
TEST(ParameterTable, NoParserQuotesARowsKey) {
  std::vector<std::string> sources;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(std::filesystem::path(DUCTILE_SOURCE_DIR) / "engine")) {
    if (!entry.is_regular_file()) continue;
    const std::string ext = entry.path().extension().string();
    if (ext != ".h" && ext != ".cpp") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    sources.push_back(entry.path().string() + "\n" + text.str());
  }
  ASSERT_GT(sources.size(), 100u);
  int parsers = 0;
  for (const std::string& file : sources) {
    const std::string path = file.substr(0, file.find('\n'));
    const bool parser = path.find("scene/parse_") != std::string::npos;
    parsers += parser ? 1 : 0;
    for (const ParameterInfo& row : ParameterTable()) {
      const std::string quoted = '"' + row.key + '"';
      if (parser) {
        EXPECT_EQ(file.find(quoted), std::string::npos) << row.key << " spelled in the parser " << path;
      }
      // The rows: parameter_table.cpp, parameter_rows_*.cpp.
      if (row.key.rfind("ipc.", 0) == 0 && path.find("params/parameter_") == std::string::npos) {
        EXPECT_EQ(file.find(quoted), std::string::npos) << row.key << " spelled in " << path;
      }
    }
  }
  EXPECT_GE(parsers, 10);  // parse_context.cpp, parse_materials.cpp, ...
}

TEST(ParameterTable, EveryRowHasAPlaceInTheSceneAndItsDefaultIsTheLoaders) {
  const SceneDesc scene = EveryKind();
  std::set<std::string> listed;
  for (const SceneParameter& p : ListParameters(scene)) {
    SCOPED_TRACE(p.key);
    listed.insert(p.info->key);
    if (kGiven.count(p.key) || !p.info->default_note.empty()) continue;
    if (p.info->type == ParameterType::kVector) {
      const Vector3& d = p.info->default_vector;
      std::ostringstream text;
      text << '[' << d[0] << ", " << d[1] << ", " << d[2] << ']';
      EXPECT_EQ(p.value, text.str());
    } else if (p.info->type == ParameterType::kChoice) {
      EXPECT_EQ(p.value, p.info->choices.at(static_cast<std::size_t>(p.info->default_value)));
    } else {
      EXPECT_EQ(std::stod(p.value), p.info->default_value);
    }
  }
  for (const ParameterInfo& row : ParameterTable()) {
    EXPECT_TRUE(listed.count(row.key)) << row.key << " not listed";
  }
}

TEST(ParameterTable, UnsetValuesAreListedEmptyAndOthersAsGiven) {
  const SceneDesc scene = EveryKind();
  for (const SceneParameter& p : ListParameters(scene)) {
    if (p.key == "robots.arm.initial_positions.iiwa_joint_2") {
      EXPECT_EQ(p.value, "-0.5");
    }
    if (p.key == "rigid_bodies.pin.density") {
      EXPECT_EQ(p.value, "800");
    }
    if (p.key == "simulation.gravity") {
      EXPECT_EQ(p.value, "[0, 0, -9.81]");
    }
    if (p.key == "materials.rubber.friction" || p.key == "rigid_bodies.crate.stiffness" ||
        p.key == "rigid_bodies.pin.joint.lower" || p.key == "rigid_bodies.pin.joint.effort") {
      EXPECT_EQ(p.value, "") << p.key;
    }
    // A dynamic body lists the one of mass and density it gives.
    EXPECT_NE(p.key, "rigid_bodies.crate.density");
    EXPECT_NE(p.key, "rigid_bodies.pin.mass");
  }
}

TEST(ParameterTable, MaterialKeysFollowTheModelsOfTheRows) {
  using scene::MaterialKeys;
  EXPECT_EQ(MaterialKeys(MaterialModelDesc::kFixedCorotated),
            (std::vector<std::string>{"model", "density", "friction", "youngs_modulus", "poisson_ratio"}));
  EXPECT_EQ(
      MaterialKeys(MaterialModelDesc::kStvkHencky),
      (std::vector<std::string>{"model", "density", "friction", "youngs_modulus", "poisson_ratio", "yield_stress"}));
  EXPECT_EQ(MaterialKeys(MaterialModelDesc::kDruckerPrager),
            (std::vector<std::string>{"model", "density", "friction", "youngs_modulus", "poisson_ratio",
                                      "friction_angle", "cohesion"}));
  EXPECT_EQ(MaterialKeys(MaterialModelDesc::kFluid),
            (std::vector<std::string>{"model", "density", "friction", "bulk_modulus", "gamma", "viscosity"}));
}

TEST(ParameterTable, KeysMatchTheirRows) {
  const std::optional<ParameterKey> e = MatchParameter("materials.dough.youngs_modulus");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->info->key, "materials.*.youngs_modulus");
  EXPECT_EQ(e->names, std::vector<std::string>{"dough"});
  EXPECT_EQ(e->element, -1);
  const std::optional<ParameterKey> g = MatchParameter("simulation.gravity.2");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->info->key, "simulation.gravity");
  EXPECT_EQ(g->element, 2);
  const std::optional<ParameterKey> kp = MatchParameter("robots.arm.controllers.iiwa_joint_1.kp");
  ASSERT_TRUE(kp);
  EXPECT_EQ(kp->names, (std::vector<std::string>{"arm", "iiwa_joint_1"}));
  for (const char* unknown : {"simulation.dtt", "simulation.dt.0", "simulation.gravity.3", "materials..density",
                              "materials.dough", "grid.domain.min"})
    EXPECT_FALSE(MatchParameter(unknown)) << unknown;
}

TEST(ParameterTable, ValuesAreCheckedWithTheLoadersWords) {
  const SceneDesc scene = EveryKind();
  const auto check = [&](const std::string& key, const std::string& value) {
    return CheckParameter(scene, key, value);
  };
  EXPECT_EQ(check("materials.rubber.youngs_modulus", "3e5"), "");
  EXPECT_EQ(check("simulation.gravity", "[0, 0, -1.62]"), "");
  EXPECT_EQ(check("simulation.gravity.2", "-1.62"), "");
  EXPECT_EQ(check("materials.rubber.poisson_ratio", "0.5"),
            "materials.rubber.poisson_ratio = 0.5: 'poisson_ratio' must be in (-1, 0.5), got 0.5");
  EXPECT_EQ(check("materials.rubber.youngs_modulus", "-2e4"),
            "materials.rubber.youngs_modulus = -2e4: 'youngs_modulus' must be > 0, got -2e4");
  EXPECT_EQ(check("simulation.dt", "fast"), "simulation.dt = fast: 'dt' must be a number, got 'fast'");
  EXPECT_EQ(check("simulation.duration", ".nan"), "simulation.duration = .nan: 'duration' must be finite, got .nan");
  EXPECT_EQ(check("simulation.substeps", "2.5"), "simulation.substeps = 2.5: 'substeps' must be an integer, got '2.5'");
  EXPECT_EQ(check("simulation.substeps", "0"), "simulation.substeps = 0: 'substeps' must be >= 1, got 0");
  EXPECT_EQ(check("simulation.cfl", "1.5"), "simulation.cfl = 1.5: 'cfl' must be in (0, 1], got 1.5");
  EXPECT_EQ(check("simulation.gravity", "[0, 1]"),
            "simulation.gravity = [0, 1]: 'gravity' must be a list of 3 numbers, got a list of 2");
  EXPECT_EQ(check("simulation.gravity.2", "-.inf"),
            "simulation.gravity.2 = -.inf: 'gravity[2]' must be finite, got -.inf");
  EXPECT_EQ(check("materials.rubber.yield_stress", "10"),
            "materials.rubber.yield_stress = 10: 'yield_stress' does not apply to model fixed_corotated");
  EXPECT_EQ(check("materials.rubbr.density", "900"),
            "materials.rubbr.density = 900: no material 'rubbr' in the scene; did you mean 'rubber'? (defined: "
            "rubber, dough, clay, sand, water, cotton)");
  EXPECT_EQ(check("simulation.dtt", "1e-3"),
            "simulation.dtt = 1e-3: unknown parameter 'simulation.dtt'; did you "
            "mean 'simulation.dt'?");
  EXPECT_NE(check("rigid_bodies.pusher.mass", "1").find("does not apply to kinematic rigid body 'pusher'"),
            std::string::npos);
  EXPECT_NE(check("rigid_bodies.crate.joint.kp", "1").find("only a dynamic body on a revolute or prismatic joint"),
            std::string::npos);
  EXPECT_NE(check("rigid_bodies.pusher.keyframes.1.time", "1").find("no keyframe '1'"), std::string::npos);
  EXPECT_NE(check("robots.arm.controllers.iiwa_joint_3.kp", "1").find("no controller 'iiwa_joint_3'"),
            std::string::npos);
}

TEST(ParameterTable, RangesSayThemselvesForMessagesAndDocs) {
  const ParameterRange poisson = FindParameter("materials.*.poisson_ratio")->range;
  EXPECT_EQ(poisson.Describe(), "in (-1, 0.5)");
  EXPECT_EQ(poisson.Notation(), "(−1, 0.5)");
  EXPECT_FALSE(poisson.Contains(0.5));
  EXPECT_FALSE(poisson.Contains(-1));
  EXPECT_TRUE(poisson.Contains(0.49));
  EXPECT_EQ(FindParameter("contact.dissipation")->range.Describe(), ">= 0");
  EXPECT_EQ(FindParameter("contact.dissipation")->range.Notation(), "≥ 0");
  EXPECT_EQ(FindParameter("simulation.gravity")->range.Notation(), "finite");
  EXPECT_EQ(FindParameter("materials.*.friction_angle")->range.Notation(), "[0, 90)");
}

TEST(ParameterTable, NeedsResetMessagesSayWhy) {
  EXPECT_EQ(NeedsResetMessage(*MatchParameter("grid.h")), "grid.h changes the grid and the particles: reset to apply");
  EXPECT_EQ(NeedsResetMessage(*MatchParameter("simulation.threads")),
            "simulation.threads sets the worker threads when the simulator starts: load the scene again to apply");
}

}  // namespace
}  // namespace ductile
