// LoadUrdf: a URDF file (http://wiki.ros.org/urdf/XML) -> validated MultibodyDesc (docs/architecture.md, "Rigid bodies
// and SAP").
//
// Design note. urdfdom reads URDF into its model, but it reports problems only on the console, goes on with the
// offending part skipped for many of them, and knows nothing of lines and columns. So the text is read twice:
//   1. Check: TinyXML v1 parses the text, keeping the line and column of every element and attribute, and
//      UrdfChecker walks it: robot-level materials, then links, then joints, each in file order, then the shape
//      of the tree. Every problem (structure, names, numbers, physical ranges, mesh files, tree) is thrown here
//      as a SceneError at the element or attribute at fault. It records where each link, joint and geometry is,
//      the colours and resolved mesh paths, and the depth-first order of the tree.
//   2. Parse: urdf::parseURDF builds its model from the same text. After step 1 it can only fail on elements
//      this loader does not use (e.g. a malformed <mimic>); that is reported at the <robot> element.
//   3. Build: the urdfdom model, visited in step 1's order, becomes the MultibodyDesc.
//
// Conventions: SI units (m, rad, kg, kg·m²). An `rpy` = (r, p, y) rotates about the fixed X, then Y, then Z axes:
// R = Rz(y)·Ry(p)·Rx(r). <inertial><origin> places the inertial frame I in the link frame L, and <inertia> is
// about the centre of mass in I's axes, so in L's axes I_L = R_LI · I_I · R_LIᵀ and p_LCm = p_LI.
// A link named "world" is the world frame (the Gazebo convention): it must be empty, is not a LinkDesc, and the
// one joint from it keeps the parent name "world" (JointDesc::parent).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string_view>

#include <tinyxml.h>
#include <urdf_parser/urdf_parser.h>
#include <Eigen/Dense>

#include "ductile/multibody_desc.h"
#include "scene/reader.h"
#include "scene/suggest.h"

namespace ductile {

namespace {

using scene::DidYouMean;
using scene::FormatNumber;
using scene::JoinNames;

constexpr std::string_view kWorldLink = "world";

// Principal moments may break positive semi-definiteness or the triangle inequality by this fraction of the
// largest one: about the rounding of inertias written with 4 to 5 significant digits.
constexpr double kInertiaTolerance = 1e-4;

const std::vector<std::string> kJointTypes = {"revolute", "continuous", "prismatic", "fixed", "floating"};
const std::vector<std::string> kShapeTypes = {"box", "sphere", "cylinder", "mesh"};

// One number as urdfdom reads it (C locale, std::istream): optional leading white space and '+', then nothing
// after the number. Empty when the text is not a finite number.
std::optional<double> ParseNumber(std::string_view text) {
  const std::size_t start = text.find_first_not_of(" \t\n\r\f\v");
  if (start == std::string_view::npos) return std::nullopt;
  text.remove_prefix(start);
  if (text.size() > 1 && text[0] == '+' && text[1] != '-' && text[1] != '+') text.remove_prefix(1);
  double x = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), x);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(x)) return std::nullopt;
  return x;
}

// Numbers separated by single spaces, as urdfdom splits vectors (empty pieces between spaces are skipped).
std::optional<std::vector<double>> ParseNumbers(std::string_view text) {
  std::vector<double> numbers;
  while (!text.empty()) {
    const std::size_t space = std::min(text.find(' '), text.size());
    if (space > 0) {
      const std::optional<double> x = ParseNumber(text.substr(0, space));
      if (!x) return std::nullopt;
      numbers.push_back(*x);
    }
    text.remove_prefix(std::min(space + 1, text.size()));
  }
  return numbers;
}

const TiXmlAttribute* FindAttribute(const TiXmlElement& element, std::string_view name) {
  for (const TiXmlAttribute* a = element.FirstAttribute(); a != nullptr; a = a->Next())
    if (name == a->Name()) return a;
  return nullptr;
}

// The attribute's place when it is there, otherwise its element's.
const TiXmlBase& PlaceOf(const TiXmlElement& element, std::string_view attribute) {
  const TiXmlAttribute* a = FindAttribute(element, attribute);
  return a != nullptr ? static_cast<const TiXmlBase&>(*a) : element;
}

std::string ElementName(const TiXmlElement& element) {
  return std::string("<") + element.Value() + ">";
}

// Where one visual or collision is, and what the check resolved for it.
struct GeometryXml {
  std::string name;                           // The `name` attribute or "<link>_<visual|collision>_<i>".
  const TiXmlElement* element = nullptr;      // <visual> or <collision>.
  std::filesystem::path mesh_file;            // Mesh only: resolved absolute path.
  std::optional<std::array<double, 4>> rgba;  // Visual only: its material's colour, when that has one.
};

struct LinkXml {
  std::string name;
  const TiXmlElement* element = nullptr;
  std::vector<GeometryXml> visuals;
  std::vector<GeometryXml> collisions;
  int parent_joint = -1;          // Index in UrdfIndex::joints; −1 for a root.
  std::vector<int> child_joints;  // Indices in UrdfIndex::joints, in file order.
};

struct JointXml {
  std::string name;
  const TiXmlElement* element = nullptr;
  JointType type = JointType::kFixed;
  bool continuous = false;  // URDF "continuous": a revolute joint without position limits.
  int parent = -1;          // Index in UrdfIndex::links.
  int child = -1;
};

// What the check found: elements in file order and the depth-first order of the tree.
struct UrdfIndex {
  const TiXmlElement* robot = nullptr;
  std::vector<LinkXml> links;    // File order.
  std::vector<JointXml> joints;  // File order.
  std::vector<int> link_order;   // Depth-first from the root, parents before children; without "world".
  std::vector<int> joint_order;  // The parent joints of the links in link_order that have one, same order.
};

// A material as urdfdom resolves it: robot-level ones first, then the first definition inside a visual.
struct MaterialXml {
  const TiXmlElement* element = nullptr;
  std::optional<std::array<double, 4>> rgba;  // Empty for a texture-only material.
};

// Step 1: walks the TinyXML document and throws the first problem as a SceneError. One use; not thread-safe.
class UrdfChecker {
 public:
  explicit UrdfChecker(const std::filesystem::path& file)
      : file_(file.string()), folder_(std::filesystem::absolute(file).parent_path()) {}

  UrdfIndex Check(const TiXmlDocument& document) {
    const TiXmlElement* robot = document.RootElement();
    if (robot == nullptr) Fail(1, 1, "the file holds no XML element; a URDF file holds one <robot> element");
    if (std::string_view(robot->Value()) != "robot")
      Fail(*robot, "the top-level element must be <robot>, got " + ElementName(*robot));
    if (const TiXmlElement* extra = robot->NextSiblingElement())
      Fail(*extra, "a URDF file holds one top-level element <robot>; found another element " + ElementName(*extra));
    index_.robot = robot;
    RequiredAttribute(*robot, "name", "");
    if (const char* version = robot->Attribute("version"); version != nullptr && std::string_view(version) != "1.0")
      Fail(PlaceOf(*robot, "version"), "URDF version '" + std::string(version) + "' is not supported (only 1.0)");

    for (const TiXmlElement* e = robot->FirstChildElement("material"); e; e = e->NextSiblingElement("material"))
      CheckRobotMaterial(*e);
    for (const TiXmlElement* e = robot->FirstChildElement("link"); e; e = e->NextSiblingElement("link")) CheckLink(*e);
    if (index_.links.empty()) Fail(*robot, "the robot has no <link>");
    for (const TiXmlElement* e = robot->FirstChildElement("joint"); e; e = e->NextSiblingElement("joint"))
      CheckJoint(*e);
    CheckTree();
    return std::move(index_);
  }

 private:
  [[noreturn]] void Fail(int line, int column, const std::string& message) const {
    throw SceneError(file_, line, column, message);
  }
  [[noreturn]] void Fail(const TiXmlBase& at, const std::string& message) const {
    Fail(at.Row(), at.Column(), message);
  }

  static std::string LineOf(const TiXmlBase& at) { return "line " + std::to_string(at.Row()); }

  // "<mass> of link 'arm'", or "<link>" without an owner.
  static std::string Context(const TiXmlElement& element, const std::string& owner) {
    return ElementName(element) + (owner.empty() ? "" : " of " + owner);
  }

  std::string RequiredAttribute(const TiXmlElement& element, const char* name, const std::string& owner) const {
    const char* value = element.Attribute(name);
    if (value == nullptr) Fail(element, "missing '" + std::string(name) + "' attribute in " + Context(element, owner));
    if (*value == '\0')
      Fail(PlaceOf(element, name), "empty '" + std::string(name) + "' attribute in " + Context(element, owner));
    return value;
  }

  // `context` names `element` in the message, e.g. "joint 'elbow'".
  const TiXmlElement& RequiredChild(const TiXmlElement& element, const char* name, const std::string& context) const {
    const TiXmlElement* child = element.FirstChildElement(name);
    if (child == nullptr) Fail(element, "missing <" + std::string(name) + "> in " + context);
    return *child;
  }

  // `count` numbers from an attribute; empty when the attribute is absent.
  std::optional<std::vector<double>> OptionalNumbers(const TiXmlElement& element, const char* name, std::size_t count,
                                                     const std::string& owner) const {
    const char* text = element.Attribute(name);
    if (text == nullptr) return std::nullopt;
    std::optional<std::vector<double>> numbers = ParseNumbers(text);
    if (!numbers || numbers->size() != count) {
      const std::string what =
          count == 1 ? "a finite number" : std::to_string(count) + " finite numbers separated by spaces";
      Fail(PlaceOf(element, name),
           "'" + std::string(name) + "' in " + Context(element, owner) + " must be " + what + ", got '" + text + "'");
    }
    return numbers;
  }
  std::optional<double> OptionalNumber(const TiXmlElement& element, const char* name, const std::string& owner) const {
    const auto numbers = OptionalNumbers(element, name, 1, owner);
    return numbers ? std::optional<double>(numbers->front()) : std::nullopt;
  }
  double RequiredNumber(const TiXmlElement& element, const char* name, const std::string& owner) const {
    RequiredAttribute(element, name, owner);
    return *OptionalNumber(element, name, owner);
  }
  // A number that must be > 0 (or ≥ 0 when `zero_ok`).
  double PositiveNumber(const TiXmlElement& element, const char* name, const std::string& what, bool zero_ok,
                        const std::string& owner) const {
    const double x = RequiredNumber(element, name, owner);
    if (x < 0 || (x == 0 && !zero_ok))
      Fail(PlaceOf(element, name),
           what + " of " + owner + " must be " + (zero_ok ? ">= 0" : "> 0") + ", got " + FormatNumber(x));
    return x;
  }

  void CheckOrigin(const TiXmlElement& parent, const std::string& owner) const {
    if (const TiXmlElement* origin = parent.FirstChildElement("origin")) {
      OptionalNumbers(*origin, "xyz", 3, owner);
      OptionalNumbers(*origin, "rpy", 3, owner);
    }
  }

  std::array<double, 4> Rgba(const TiXmlElement& color, const std::string& owner) const {
    const std::vector<double> rgba = *OptionalNumbers(color, "rgba", 4, owner);
    for (const double c : rgba) {
      if (c < 0 || c > 1)
        Fail(PlaceOf(color, "rgba"),
             "'rgba' in <color> of " + owner + " must be 4 numbers in [0, 1], got '" + color.Attribute("rgba") + "'");
    }
    return {rgba[0], rgba[1], rgba[2], rgba[3]};
  }

  // A material's own definition: a colour, a texture, or both. False when it has neither (a reference by name).
  bool ReadMaterialDefinition(const TiXmlElement& material, const std::string& owner, MaterialXml& definition) const {
    const TiXmlElement* color = material.FirstChildElement("color");
    const TiXmlElement* texture = material.FirstChildElement("texture");
    if (color != nullptr) {
      RequiredAttribute(*color, "rgba", owner);
      definition.rgba = Rgba(*color, owner);
    }
    if (texture != nullptr) RequiredAttribute(*texture, "filename", owner);
    definition.element = &material;
    return color != nullptr || texture != nullptr;
  }

  void CheckRobotMaterial(const TiXmlElement& element) {
    const std::string name = RequiredAttribute(element, "name", "");
    const std::string owner = "material '" + name + "'";
    if (const auto first = materials_.find(name); first != materials_.end())
      Fail(element, "duplicate material name '" + name + "' (first at " + LineOf(*first->second.element) + ")");
    MaterialXml definition;
    if (!ReadMaterialDefinition(element, owner, definition))
      Fail(element, "material '" + name + R"(' needs a <color rgba="..."/> or a <texture filename="..."/>)");
    materials_[name] = definition;
  }

  void CheckLink(const TiXmlElement& element) {
    LinkXml link;
    link.element = &element;
    link.name = RequiredAttribute(element, "name", "");
    if (const auto first = link_index_.find(link.name); first != link_index_.end())
      Fail(element,
           "duplicate link name '" + link.name + "' (first at " + LineOf(*index_.links[first->second].element) + ")");
    const std::string owner = "link '" + link.name + "'";
    if (link.name == kWorldLink) {
      for (const char* part : {"inertial", "visual", "collision"}) {
        if (const TiXmlElement* child = element.FirstChildElement(part))
          Fail(*child, "link 'world' is the world frame and cannot have " + ElementName(*child));
      }
    }
    if (const TiXmlElement* inertial = element.FirstChildElement("inertial")) CheckInertial(*inertial, owner);
    for (const TiXmlElement* e = element.FirstChildElement("visual"); e; e = e->NextSiblingElement("visual"))
      link.visuals.push_back(CheckGeometry(*e, link.name, link.visuals.size()));
    for (const TiXmlElement* e = element.FirstChildElement("collision"); e; e = e->NextSiblingElement("collision"))
      link.collisions.push_back(CheckGeometry(*e, link.name, link.collisions.size()));
    link_index_[link.name] = static_cast<int>(index_.links.size());
    index_.links.push_back(std::move(link));
  }

  void CheckInertial(const TiXmlElement& inertial, const std::string& owner) const {
    CheckOrigin(inertial, owner);
    const std::string context = Context(inertial, owner);
    const TiXmlElement& mass = RequiredChild(inertial, "mass", context);
    PositiveNumber(mass, "value", "mass", true, owner);
    const TiXmlElement& inertia = RequiredChild(inertial, "inertia", context);
    std::map<std::string, double> moments;
    for (const char* name : {"ixx", "iyy", "izz", "ixy", "ixz", "iyz"})
      moments[name] = RequiredNumber(inertia, name, owner);
    Eigen::Matrix3d I;
    I << moments["ixx"], moments["ixy"], moments["ixz"],  //
        moments["ixy"], moments["iyy"], moments["iyz"],   //
        moments["ixz"], moments["iyz"], moments["izz"];
    CheckPrincipalMoments(I, inertia, owner);
  }

  // A physical rotational inertia has principal moments λ₀ ≤ λ₁ ≤ λ₂ with λ₀ ≥ 0 and λ₀ + λ₁ ≥ λ₂ (the triangle
  // inequality, which then holds for every pair and for the diagonal in any axes).
  void CheckPrincipalMoments(const Eigen::Matrix3d& I, const TiXmlElement& inertia, const std::string& owner) const {
    const Eigen::Vector3d lambda =
        Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(I, Eigen::EigenvaluesOnly).eigenvalues();
    const double tolerance = kInertiaTolerance * lambda.cwiseAbs().maxCoeff();
    const std::string moments =
        FormatNumber(lambda[0]) + ", " + FormatNumber(lambda[1]) + ", " + FormatNumber(lambda[2]);
    if (lambda[0] < -tolerance)
      Fail(inertia, "inertia of " + owner + " is not positive semi-definite: its principal moments are " + moments);
    if (lambda[0] + lambda[1] < lambda[2] - tolerance)
      Fail(inertia, "inertia of " + owner + " violates the triangle inequality: its principal moments " + moments +
                        " do not satisfy " + FormatNumber(lambda[0]) + " + " + FormatNumber(lambda[1]) +
                        " >= " + FormatNumber(lambda[2]));
  }

  GeometryXml CheckGeometry(const TiXmlElement& element, const std::string& link, std::size_t number) {
    const bool visual = std::string_view(element.Value()) == "visual";
    GeometryXml geometry;
    geometry.element = &element;
    const char* name = element.Attribute("name");
    geometry.name = name != nullptr && *name != '\0' ? std::string(name)
                                                     : link + "_" + element.Value() + "_" + std::to_string(number);
    const std::string owner = std::string(element.Value()) + " '" + geometry.name + "' of link '" + link + "'";
    CheckOrigin(element, owner);

    const TiXmlElement& shapes = RequiredChild(element, "geometry", owner);
    const TiXmlElement* shape = shapes.FirstChildElement();
    if (shape == nullptr) Fail(shapes, "<geometry> of " + owner + " needs a shape: " + JoinNames(kShapeTypes));
    if (const TiXmlElement* second = shape->NextSiblingElement())
      Fail(*second, "<geometry> of " + owner + " holds more than one shape");
    const std::string type = shape->Value();
    if (type == "box") {
      RequiredAttribute(*shape, "size", owner);
      const std::vector<double> size = *OptionalNumbers(*shape, "size", 3, owner);
      if (*std::min_element(size.begin(), size.end()) <= 0)
        Fail(PlaceOf(*shape, "size"),
             "box size of " + owner + " must be > 0 on every axis, got '" + shape->Attribute("size") + "'");
    } else if (type == "sphere") {
      PositiveNumber(*shape, "radius", "sphere radius", false, owner);
    } else if (type == "cylinder") {
      PositiveNumber(*shape, "radius", "cylinder radius", false, owner);
      PositiveNumber(*shape, "length", "cylinder length", false, owner);
    } else if (type == "mesh") {
      geometry.mesh_file = ResolveMesh(*shape, owner);
      if (const auto scale = OptionalNumbers(*shape, "scale", 3, owner)) {
        const std::vector<double>& s = *scale;
        if (s[0] != s[1] || s[0] != s[2])
          Fail(PlaceOf(*shape, "scale"), "mesh scale of " + owner + " must be uniform (the same on every axis), got '" +
                                             shape->Attribute("scale") + "'");
        if (s[0] <= 0)
          Fail(PlaceOf(*shape, "scale"), "mesh scale of " + owner + " must be > 0, got " + FormatNumber(s[0]));
      }
    } else {
      Fail(*shape, "unknown geometry type " + ElementName(*shape) + " in " + owner + DidYouMean(type, kShapeTypes) +
                       " (one of: " + JoinNames(kShapeTypes) + ")");
    }
    if (visual) geometry.rgba = CheckVisualMaterial(element, owner);
    return geometry;
  }

  // The colour of a visual's <material>, resolved as urdfdom does: a robot-level material of that name wins,
  // then the first definition inside a visual; a name alone must refer to one of those.
  std::optional<std::array<double, 4>> CheckVisualMaterial(const TiXmlElement& visual, const std::string& owner) {
    const TiXmlElement* material = visual.FirstChildElement("material");
    if (material == nullptr) return std::nullopt;
    const std::string name = RequiredAttribute(*material, "name", owner);
    MaterialXml definition;
    const bool defines = ReadMaterialDefinition(*material, owner, definition);
    if (const auto known = materials_.find(name); known != materials_.end()) return known->second.rgba;
    if (!defines) {
      std::vector<std::string> names;
      for (const auto& known : materials_) names.push_back(known.first);
      Fail(PlaceOf(*material, "name"),
           owner + " uses material '" + name + "', which is not defined" + DidYouMean(name, names));
    }
    materials_[name] = definition;
    return definition.rgba;
  }

  // The file a mesh's `filename` names: a path relative to the URDF's folder, an absolute path, file://PATH, or
  // package://NAME/REST, where NAME is the first folder of that name found in the URDF's folder or one above it.
  std::filesystem::path ResolveMesh(const TiXmlElement& mesh, const std::string& owner) const {
    const std::string filename = RequiredAttribute(mesh, "filename", owner);
    const TiXmlBase& place = PlaceOf(mesh, "filename");
    const std::string quoted = "mesh file '" + filename + "' of " + owner;
    constexpr std::string_view kPackage = "package://", kFile = "file://";
    std::filesystem::path path;
    if (filename.starts_with(kPackage)) {
      const std::string rest = filename.substr(kPackage.size());
      const std::string package = rest.substr(0, rest.find('/'));
      if (package.empty() || package.size() == rest.size())
        Fail(place, quoted + " must have the form package://NAME/PATH");
      for (std::filesystem::path folder = folder_;; folder = folder.parent_path()) {
        if (std::filesystem::is_directory(folder / package)) {
          path = folder / package / rest.substr(package.size() + 1);
          break;
        }
        if (folder == folder.parent_path())
          Fail(place,  // NOLINTNEXTLINE(performance-inefficient-string-concatenation): once, for the error
               quoted + ": no folder named '" + package + "' in '" + folder_.string() + "' or a folder above it");
      }
    } else if (filename.starts_with(kFile)) {
      path = filename.substr(kFile.size());
    } else if (const std::size_t scheme = filename.find("://"); scheme != std::string::npos) {
      Fail(place, quoted + " uses the unsupported URI scheme '" + filename.substr(0, scheme) +
                      "' (use a path, file:// or package://)");
    } else {
      path = filename;
    }
    path = (folder_ / path).lexically_normal();  // An absolute `path` replaces the folder.
    if (!std::filesystem::is_regular_file(path))
      Fail(place, quoted + " not found (looked for '" + path.string() + "')");
    return path;
  }

  void CheckJoint(const TiXmlElement& element) {
    JointXml joint;
    joint.element = &element;
    joint.name = RequiredAttribute(element, "name", "");
    const int index = static_cast<int>(index_.joints.size());
    if (const auto first = joint_index_.find(joint.name); first != joint_index_.end())
      Fail(element, "duplicate joint name '" + joint.name + "' (first at " +
                        LineOf(*index_.joints[first->second].element) + ")");
    const std::string owner = "joint '" + joint.name + "'";

    const char* type_text = element.Attribute("type");
    if (type_text == nullptr)
      Fail(element, owner + " needs a 'type' attribute (one of: " + JoinNames(kJointTypes) + ")");
    const std::string type = type_text;
    if (type == "planar")
      Fail(PlaceOf(element, "type"),
           owner + " has type 'planar', which is not supported (supported: " + JoinNames(kJointTypes) + ")");
    if (std::find(kJointTypes.begin(), kJointTypes.end(), type) == kJointTypes.end())
      Fail(PlaceOf(element, "type"), owner + " has unknown type '" + type + "'" + DidYouMean(type, kJointTypes) +
                                         " (one of: " + JoinNames(kJointTypes) + ")");
    joint.continuous = type == "continuous";
    joint.type = type == "prismatic"                          ? JointType::kPrismatic
                 : type == "floating"                         ? JointType::kFloating
                 : type == "revolute" || type == "continuous" ? JointType::kRevolute
                                                              : JointType::kFixed;
    const bool moves_along_axis = joint.type == JointType::kRevolute || joint.type == JointType::kPrismatic;
    const bool position_limited = moves_along_axis && !joint.continuous;

    const TiXmlElement& parent = RequiredChild(element, "parent", owner);
    const TiXmlElement& child = RequiredChild(element, "child", owner);
    joint.parent = LinkReference(parent, owner);
    joint.child = LinkReference(child, owner);
    CheckOrigin(element, owner);

    if (const TiXmlElement* axis = element.FirstChildElement("axis")) {
      RequiredAttribute(*axis, "xyz", owner);
      const std::vector<double> xyz = *OptionalNumbers(*axis, "xyz", 3, owner);
      if (moves_along_axis && xyz[0] == 0 && xyz[1] == 0 && xyz[2] == 0)
        Fail(PlaceOf(*axis, "xyz"), "axis of " + owner + " must not be zero");
    }

    const TiXmlElement* limit = element.FirstChildElement("limit");
    if (limit == nullptr && position_limited)
      Fail(element, type + " " + owner + " needs a <limit> element with 'effort' and 'velocity'" +
                        (type == "revolute" ? " (a joint without position limits has type 'continuous')" : ""));
    if (limit != nullptr) {
      // urdfdom reads every <limit>: lower and upper default to 0, effort and velocity are required.
      const double lower = OptionalNumber(*limit, "lower", owner).value_or(0);
      const double upper = OptionalNumber(*limit, "upper", owner).value_or(0);
      RequiredNumber(*limit, "effort", owner);
      RequiredNumber(*limit, "velocity", owner);
      if (position_limited && lower > upper)
        Fail(*limit, owner + " has lower limit " + FormatNumber(lower) + " > upper limit " + FormatNumber(upper));
      if (moves_along_axis) {
        PositiveNumber(*limit, "effort", "effort limit", false, owner);
        PositiveNumber(*limit, "velocity", "velocity limit", false, owner);
      }
    }

    if (const TiXmlElement* dynamics = element.FirstChildElement("dynamics")) {
      // urdfdom refuses a <dynamics> without either attribute.
      if (dynamics->Attribute("damping") == nullptr && dynamics->Attribute("friction") == nullptr)
        Fail(*dynamics, "<dynamics> of " + owner + " needs a 'damping' or a 'friction' attribute");
      OptionalNumber(*dynamics, "friction", owner);
      if (dynamics->Attribute("damping") != nullptr) PositiveNumber(*dynamics, "damping", "damping", true, owner);
    }

    CheckJointInTree(joint, parent, child, owner, index);
    joint_index_[joint.name] = index;
    index_.joints.push_back(std::move(joint));
  }

  // The index of the link that <parent> or <child> names.
  int LinkReference(const TiXmlElement& reference, const std::string& owner) const {
    const std::string name = RequiredAttribute(reference, "link", owner);
    const auto found = link_index_.find(name);
    if (found == link_index_.end()) {
      std::vector<std::string> names;
      for (const LinkXml& link : index_.links) names.push_back(link.name);
      Fail(PlaceOf(reference, "link"), owner + " names " + reference.Value() + " link '" + name +
                                           "', which is not defined" + DidYouMean(name, names));
    }
    return found->second;
  }

  // Links each joint in as it comes: a link has at most one parent joint, never itself or the world as child.
  void CheckJointInTree(const JointXml& joint, const TiXmlElement& parent, const TiXmlElement& child,
                        const std::string& owner, int index) {
    LinkXml& child_link = index_.links[joint.child];
    const TiXmlBase& child_place = PlaceOf(child, "link");
    if (joint.parent == joint.child) Fail(child_place, owner + " connects link '" + child_link.name + "' to itself");
    if (child_link.name == kWorldLink)
      Fail(child_place, "link 'world' is the world frame and cannot be the child of " + owner);
    if (child_link.parent_joint >= 0) {
      const JointXml& first = index_.joints[child_link.parent_joint];
      Fail(child_place, "link '" + child_link.name + "' has two parent joints: '" + first.name + "' (" +
                            LineOf(*first.element) + ") and '" + joint.name + "'");
    }
    if (joint.type == JointType::kFloating && index_.links[joint.parent].name != kWorldLink)
      Fail(PlaceOf(parent, "link"),
           "floating " + owner + " must have the parent link 'world': only a root link can float");
    child_link.parent_joint = index;
    index_.links[joint.parent].child_joints.push_back(index);
  }

  // Exactly one root, no cycle; then the depth-first order. Each link has at most one parent joint here, so a
  // link that no root reaches lies on (or hangs below) a cycle of parent joints.
  void CheckTree() {
    std::vector<int> roots;
    for (int i = 0; i < static_cast<int>(index_.links.size()); ++i)
      if (index_.links[i].parent_joint < 0) roots.push_back(i);

    std::vector<bool> reached(index_.links.size(), false);
    std::vector<int> order;
    for (const int root : roots) {
      std::vector<int> stack = {root};
      while (!stack.empty()) {
        const int link = stack.back();
        stack.pop_back();
        reached[link] = true;
        order.push_back(link);
        const std::vector<int>& children = index_.links[link].child_joints;
        for (auto joint = children.rbegin(); joint != children.rend(); ++joint)
          stack.push_back(index_.joints[*joint].child);
      }
    }
    const auto unreached = std::find(reached.begin(), reached.end(), false);
    if (unreached != reached.end()) FailCycle(static_cast<int>(unreached - reached.begin()), roots.empty());

    if (roots.size() > 1) {
      std::string listed;
      for (const int root : roots)
        listed += (listed.empty() ? "'" : ", '") + index_.links[root].name + "' (" +
                  LineOf(*index_.links[root].element) + ")";
      Fail(*index_.links[roots[1]].element,
           "several root links (links that are not the child of any joint): " + listed + "; a URDF describes one tree");
    }
    const LinkXml& root = index_.links[roots.front()];
    if (root.name == kWorldLink) {
      if (root.child_joints.empty()) Fail(*root.element, "the robot has no link besides 'world'");
      if (root.child_joints.size() > 1) {
        const JointXml& first = index_.joints[root.child_joints[0]];
        const JointXml& second = index_.joints[root.child_joints[1]];
        Fail(*second.element, "link 'world' has more than one child joint ('" + first.name + "' (" +
                                  LineOf(*first.element) + "), '" + second.name +
                                  "'); a robot is attached to the world by one joint");
      }
      order.erase(order.begin());
    }
    index_.link_order = order;
    for (const int link : order)
      if (index_.links[link].parent_joint >= 0) index_.joint_order.push_back(index_.links[link].parent_joint);
  }

  // Reports the cycle above `link`: following parent joints up from it must come back to a link already seen.
  [[noreturn]] void FailCycle(int link, bool no_root) const {
    std::vector<int> walk;  // Child to parent.
    while (std::find(walk.begin(), walk.end(), link) == walk.end()) {
      walk.push_back(link);
      link = index_.joints[index_.links[link].parent_joint].parent;
    }
    const std::vector<int> cycle(std::find(walk.begin(), walk.end(), link), walk.end());
    // Parent to child: `link`'s parent is the last link of the walk.
    std::string path = "'" + index_.links[link].name + "'";
    int last_joint = -1;  // The cycle's joint that comes last in the file: the one that closes it.
    for (auto l = cycle.rbegin(); l != cycle.rend(); ++l) {
      path += " -> '" + index_.links[*l].name + "'";
      last_joint = std::max(last_joint, index_.links[*l].parent_joint);
    }
    Fail(*index_.joints[last_joint].element,
         std::string(no_root ? "no root link: every link is the child of a joint, so " : "") +
             "the joints form a cycle: " + path);
  }

  std::string file_;
  std::filesystem::path folder_;  // Absolute folder of the URDF file.
  UrdfIndex index_;
  std::map<std::string, int> link_index_;   // Link name -> index in index_.links.
  std::map<std::string, int> joint_index_;  // Joint name -> index in index_.joints.
  std::map<std::string, MaterialXml> materials_;
};

// ---- Step 3: build the description from urdfdom's model. ----

SourceLocation Where(const std::string& file, const TiXmlElement& element) {
  return {file, element.Row(), element.Column()};
}

PoseDesc ToPose(const urdf::Pose& pose) {
  PoseDesc desc;
  desc.position = {pose.position.x, pose.position.y, pose.position.z};
  desc.quaternion = {pose.rotation.w, pose.rotation.x, pose.rotation.y, pose.rotation.z};
  return desc;
}

InertiaDesc ToInertia(const urdf::Inertial& inertial) {
  InertiaDesc desc;
  desc.mass = inertial.mass;
  desc.com = {inertial.origin.position.x, inertial.origin.position.y, inertial.origin.position.z};
  const urdf::Rotation& q = inertial.origin.rotation;
  const Eigen::Matrix3d R_LI = Eigen::Quaterniond(q.w, q.x, q.y, q.z).toRotationMatrix();
  Eigen::Matrix3d I_I;
  I_I << inertial.ixx, inertial.ixy, inertial.ixz,  //
      inertial.ixy, inertial.iyy, inertial.iyz,     //
      inertial.ixz, inertial.iyz, inertial.izz;
  const Eigen::Matrix3d I_L = R_LI * I_I * R_LI.transpose();
  desc.inertia = {I_L(0, 0), I_L(1, 1), I_L(2, 2), I_L(0, 1), I_L(0, 2), I_L(1, 2)};
  return desc;
}

ShapeDesc ToShape(const urdf::Geometry& geometry, const GeometryXml& xml) {
  ShapeDesc shape;
  switch (geometry.type) {
    case urdf::Geometry::BOX: {
      const urdf::Vector3& size = static_cast<const urdf::Box&>(geometry).dim;
      shape.type = ShapeType::kBox;
      shape.size = {size.x, size.y, size.z};
      break;
    }
    case urdf::Geometry::SPHERE:
      shape.type = ShapeType::kSphere;
      shape.radius = static_cast<const urdf::Sphere&>(geometry).radius;
      break;
    case urdf::Geometry::CYLINDER:
      shape.type = ShapeType::kCylinder;
      shape.radius = static_cast<const urdf::Cylinder&>(geometry).radius;
      shape.length = static_cast<const urdf::Cylinder&>(geometry).length;
      break;
    case urdf::Geometry::MESH:
      shape.type = ShapeType::kMesh;
      shape.mesh_file = xml.mesh_file;
      shape.mesh_scale = static_cast<const urdf::Mesh&>(geometry).scale.x;  // Checked uniform.
      break;
  }
  return shape;
}

GeometryDesc ToGeometry(const urdf::Geometry& geometry, const urdf::Pose& origin, const GeometryXml& xml,
                        const std::string& file) {
  GeometryDesc desc;
  desc.name = xml.name;
  desc.shape = ToShape(geometry, xml);
  desc.pose = ToPose(origin);
  if (xml.rgba) desc.rgba = *xml.rgba;
  desc.where = Where(file, *xml.element);
  return desc;
}

// urdfdom skips parts it cannot read without saying so to the caller; after the check it must have read all.
void ExpectCount(std::size_t read, std::size_t written, const char* what, const LinkXml& link,
                 const std::string& file) {
  if (read != written)
    throw SceneError(file, link.element->Row(), link.element->Column(),
                     "urdfdom read " + std::to_string(read) + " " + what + " element(s) of link '" + link.name +
                         "' where the file has " + std::to_string(written));
}

LinkDesc ToLink(const urdf::Link& link, const LinkXml& xml, const std::string& file) {
  LinkDesc desc;
  desc.name = xml.name;
  if (link.inertial) desc.inertia = ToInertia(*link.inertial);
  ExpectCount(link.visual_array.size(), xml.visuals.size(), "<visual>", xml, file);
  ExpectCount(link.collision_array.size(), xml.collisions.size(), "<collision>", xml, file);
  for (std::size_t i = 0; i < xml.visuals.size(); ++i) {
    const urdf::Visual& visual = *link.visual_array[i];
    desc.visuals.push_back(ToGeometry(*visual.geometry, visual.origin, xml.visuals[i], file));
  }
  for (std::size_t i = 0; i < xml.collisions.size(); ++i) {
    const urdf::Collision& collision = *link.collision_array[i];
    desc.collisions.push_back(ToGeometry(*collision.geometry, collision.origin, xml.collisions[i], file));
  }
  desc.where = Where(file, *xml.element);
  return desc;
}

JointDesc ToJoint(const urdf::Joint& joint, const JointXml& xml, const std::string& file) {
  JointDesc desc;
  desc.name = xml.name;
  desc.type = xml.type;
  desc.parent = joint.parent_link_name;
  desc.child = joint.child_link_name;
  desc.origin = ToPose(joint.parent_to_joint_origin_transform);
  const bool moves_along_axis = xml.type == JointType::kRevolute || xml.type == JointType::kPrismatic;
  if (moves_along_axis) {
    const Eigen::Vector3d axis = Eigen::Vector3d(joint.axis.x, joint.axis.y, joint.axis.z).normalized();
    desc.axis = {axis.x(), axis.y(), axis.z()};
    if (joint.limits) {
      desc.effort = joint.limits->effort;
      desc.velocity = joint.limits->velocity;
      if (!xml.continuous) {
        desc.lower = joint.limits->lower;
        desc.upper = joint.limits->upper;
      }
    }
  }
  if (xml.type != JointType::kFixed && joint.dynamics) desc.damping = joint.dynamics->damping;
  desc.where = Where(file, *xml.element);
  return desc;
}

std::string ReadFile(const std::filesystem::path& file) {
  const std::string name = file.string();
  std::error_code error;
  if (!std::filesystem::exists(file, error)) throw SceneError(name, 0, 0, "URDF file not found");
  if (std::filesystem::is_directory(file, error))
    throw SceneError(name, 0, 0, "cannot read the URDF file: it is a folder");
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) throw SceneError(name, 0, 0, "cannot read the URDF file");
  return text.str();
}

}  // namespace

MultibodyDesc LoadUrdf(const std::filesystem::path& file) {
  const std::string name = file.string();
  const std::string text = ReadFile(file);

  // Step 1: check, with lines and columns. A tab counts as one column, as in the scene loader's messages.
  TiXmlDocument document;
  document.SetTabSize(1);
  document.Parse(text.c_str(), nullptr, TIXML_ENCODING_UTF8);
  if (document.Error() && document.ErrorId() != TiXmlBase::TIXML_ERROR_DOCUMENT_EMPTY)
    throw SceneError(name, document.ErrorRow(), document.ErrorCol(),
                     std::string("malformed XML: ") + document.ErrorDesc());
  const UrdfIndex index = UrdfChecker(file).Check(document);

  // Step 2: urdfdom's model.
  const urdf::ModelInterfaceSharedPtr model = urdf::parseURDF(text);
  if (!model)
    throw SceneError(name, index.robot->Row(), index.robot->Column(),
                     "urdfdom could not read the robot description (it printed the reason on the console)");

  // Step 3: build, parents before children.
  MultibodyDesc desc;
  desc.name = model->getName();
  desc.source = file;
  for (const int link : index.link_order)
    desc.links.push_back(ToLink(*model->getLink(index.links[link].name), index.links[link], name));
  for (const int joint : index.joint_order)
    desc.joints.push_back(ToJoint(*model->getJoint(index.joints[joint].name), index.joints[joint], name));
  return desc;
}

}  // namespace ductile
