#include "fem/tet_mesh.h"

#include "geometry/triangle_mesh.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <utility>

#include <Eigen/Geometry>

namespace ductile::fem {
namespace {

// The outward faces of a positive tet (file comment of tet_mesh.h), as corner positions 0-3.
constexpr std::array<std::array<int, 3>, 4> kOutwardFaces = {{{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}}};

// One tet's face: its corners sorted (`key`), as the tet sees it from outside (`face`), whether sorting `face` into
// `key` takes an odd permutation, and the tet.
struct FaceRecord {
  std::array<int, 3> key;
  std::array<int, 3> face;
  bool odd = false;
  int tet = 0;
};

// Every face of every tet, sorted by key so that the tets sharing a face are adjacent.
std::vector<FaceRecord> SortedFaces(const TetMesh& mesh) {
  std::vector<FaceRecord> faces;
  faces.reserve(4 * mesh.tets.size());
  for (std::size_t t = 0; t < mesh.tets.size(); ++t) {
    for (const std::array<int, 3>& local : kOutwardFaces) {
      FaceRecord r;
      r.face = {mesh.tets[t][local[0]], mesh.tets[t][local[1]], mesh.tets[t][local[2]]};
      r.key = r.face;
      // Bubble sort of three, counting swaps for the parity.
      for (const auto& [i, j] : {std::pair{0, 1}, std::pair{1, 2}, std::pair{0, 1}}) {
        if (r.key[i] > r.key[j]) {
          std::swap(r.key[i], r.key[j]);
          r.odd = !r.odd;
        }
      }
      r.tet = static_cast<int>(t);
      faces.push_back(r);
    }
  }
  std::sort(faces.begin(), faces.end(),
            [](const FaceRecord& x, const FaceRecord& y) { return x.key != y.key ? x.key < y.key : x.tet < y.tet; });
  return faces;
}

// "(a, b, c, d)", for messages.
std::string Corners(const std::array<int, 4>& tet) {
  return "(" + std::to_string(tet[0]) + ", " + std::to_string(tet[1]) + ", " + std::to_string(tet[2]) + ", " +
         std::to_string(tet[3]) + ")";
}

// CheckAndOrient's index checks: corners in range and distinct, vertices finite. Empty when fine.
std::string CheckIndices(const TetMesh& mesh) {
  const int n = static_cast<int>(mesh.vertices.size());
  for (int v = 0; v < n; ++v)
    if (!mesh.vertices[v].allFinite()) return "vertex " + std::to_string(v) + " has a non-finite coordinate";
  for (std::size_t t = 0; t < mesh.tets.size(); ++t) {
    const std::array<int, 4>& tet = mesh.tets[t];
    for (int k = 0; k < 4; ++k) {
      if (tet[k] < 0 || tet[k] >= n)
        return "tet " + std::to_string(t) + " " + Corners(tet) + " refers to vertex " + std::to_string(tet[k]) +
               ", but the mesh has " + std::to_string(n) + " vertices";
      for (int j = 0; j < k; ++j)
        if (tet[j] == tet[k]) return "tet " + std::to_string(t) + " " + Corners(tet) + " repeats a vertex";
    }
  }
  return "";
}

// CheckAndOrient's face check: no face on more than two tets, nor on two tets on the same side. Empty when fine.
std::string CheckFaces(const TetMesh& mesh) {
  const std::vector<FaceRecord> faces = SortedFaces(mesh);
  for (std::size_t begin = 0, end = 0; begin < faces.size(); begin = end) {
    while (end < faces.size() && faces[end].key == faces[begin].key) ++end;
    const std::array<int, 3>& k = faces[begin].key;
    const std::string name =
        "face (" + std::to_string(k[0]) + ", " + std::to_string(k[1]) + ", " + std::to_string(k[2]) + ")";
    if (end - begin > 2)
      return name + " is shared by " + std::to_string(end - begin) + " tets (" + std::to_string(faces[begin].tet) +
             ", " + std::to_string(faces[begin + 1].tet) + ", " + std::to_string(faces[begin + 2].tet) +
             (end - begin > 3 ? ", ..." : "") + "): the mesh is not manifold";
    if (end - begin == 2 && faces[begin].odd == faces[begin + 1].odd)
      return name + " has tets " + std::to_string(faces[begin].tet) + " and " + std::to_string(faces[begin + 1].tet) +
             " on the same side: they overlap";
  }
  return "";
}

}  // namespace

double SignedVolume(const Eigen::Vector3d& a, const Eigen::Vector3d& b, const Eigen::Vector3d& c,
                    const Eigen::Vector3d& d) {
  return (b - a).dot((c - a).cross(d - a)) / 6.0;
}

double TetVolume(const TetMesh& mesh, int t) {
  const std::array<int, 4>& tet = mesh.tets[t];
  return SignedVolume(mesh.vertices[tet[0]], mesh.vertices[tet[1]], mesh.vertices[tet[2]], mesh.vertices[tet[3]]);
}

double TotalVolume(const TetMesh& mesh) {
  double sum = 0;
  for (std::size_t t = 0; t < mesh.tets.size(); ++t) sum += TetVolume(mesh, static_cast<int>(t));
  return sum;
}

double TetQuality(const Eigen::Vector3d& a, const Eigen::Vector3d& b, const Eigen::Vector3d& c,
                  const Eigen::Vector3d& d) {
  const double sum_squared = (b - a).squaredNorm() + (c - a).squaredNorm() + (d - a).squaredNorm() +
                             (c - b).squaredNorm() + (d - b).squaredNorm() + (d - c).squaredNorm();
  const double rms = std::sqrt(sum_squared / 6.0);
  if (!(rms > 0)) return 0;
  return 6.0 * std::sqrt(2.0) * SignedVolume(a, b, c, d) / (rms * rms * rms);
}

TetMeshCheck CheckAndOrient(TetMesh& mesh) {
  TetMeshCheck check;
  if (mesh.tets.empty()) {
    check.error = "the mesh has no tets";
    return check;
  }
  check.error = CheckIndices(mesh);
  if (!check.error.empty()) return check;

  // Bounding box of the referenced vertices, for the degeneracy threshold 1e-12·D³.
  std::vector<char> used(mesh.vertices.size(), 0);
  Eigen::Vector3d low = Eigen::Vector3d::Constant(std::numeric_limits<double>::infinity());
  Eigen::Vector3d high = -low;
  for (const std::array<int, 4>& tet : mesh.tets) {
    for (const int v : tet) {
      used[v] = 1;
      low = low.cwiseMin(mesh.vertices[v]);
      high = high.cwiseMax(mesh.vertices[v]);
    }
  }
  const double diagonal = (high - low).norm();
  const double min_volume = 1e-12 * diagonal * diagonal * diagonal;
  for (std::size_t t = 0; t < mesh.tets.size(); ++t) {
    const double volume = TetVolume(mesh, static_cast<int>(t));
    if (!(std::abs(volume) >= min_volume) || volume == 0) {
      std::ostringstream message;
      message << "tet " << t << " " << Corners(mesh.tets[t]) << " is degenerate: |volume| " << std::abs(volume)
              << " m^3 is below 1e-12 times the bounding-box diagonal cubed (" << min_volume << " m^3)";
      check.error = message.str();
      return check;
    }
    if (volume < 0) {
      std::swap(mesh.tets[t][2], mesh.tets[t][3]);
      ++check.reoriented_tets;
    }
  }
  check.error = CheckFaces(mesh);
  check.unreferenced_vertices = static_cast<int>(std::count(used.begin(), used.end(), 0));
  return check;
}

TetSurface BuildSurface(const TetMesh& mesh) {
  TetSurface surface;
  const std::vector<FaceRecord> faces = SortedFaces(mesh);
  for (std::size_t begin = 0, end = 0; begin < faces.size(); begin = end) {
    while (end < faces.size() && faces[end].key == faces[begin].key) ++end;
    if (end - begin == 1) surface.triangles.push_back(faces[begin].face);
  }
  for (const std::array<int, 3>& f : surface.triangles) {
    for (int k = 0; k < 3; ++k) {
      const int a = f[k], b = f[(k + 1) % 3];
      surface.edges.push_back({std::min(a, b), std::max(a, b)});
      surface.vertices.push_back(a);
    }
  }
  std::sort(surface.edges.begin(), surface.edges.end());
  surface.edges.erase(std::unique(surface.edges.begin(), surface.edges.end()), surface.edges.end());
  std::sort(surface.vertices.begin(), surface.vertices.end());
  surface.vertices.erase(std::unique(surface.vertices.begin(), surface.vertices.end()), surface.vertices.end());
  return surface;
}

void RemoveUnreferencedVertices(TetMesh& mesh) {
  geometry::RemoveUnusedVertices(mesh.vertices, mesh.tets);
}

// ---------------------------------------------------------------------------------------------------------------
// Gmsh MSH 4 ASCII reader.

namespace {

// A parse failure; the message names the file and line.
struct MshError {
  std::string message;
};

// The lines of a .msh file, with the number of the current one for messages.
class MshLines {
 public:
  MshLines(std::istream& in, std::string name) : in_(in), name_(std::move(name)) {}

  // Moves to the next line that is not blank, without its trailing carriage return; false at the end of the file.
  bool Next() {
    while (std::getline(in_, text_)) {
      ++line_;
      if (!text_.empty() && text_.back() == '\r') text_.pop_back();
      if (text_.find_first_not_of(" \t") != std::string::npos) return true;
    }
    return false;
  }

  // Next(), failing at the end of the file with what was `expected` there.
  void Require(const std::string& expected) {
    if (!Next()) Fail("unexpected end of file, expected " + expected);
  }

  [[noreturn]] void Fail(const std::string& problem) const {
    throw MshError{name_ + (line_ > 0 ? ":" + std::to_string(line_) : std::string()) + ": " + problem};
  }

  const std::string& text() const { return text_; }

  // The whitespace-separated fields of the current line.
  std::vector<std::string_view> Fields() const {
    std::vector<std::string_view> fields;
    const std::string_view s = text_;
    std::size_t i = 0;
    while (true) {
      i = s.find_first_not_of(" \t", i);
      if (i == std::string_view::npos) break;
      const std::size_t j = std::min(s.find_first_of(" \t", i), s.size());
      fields.push_back(s.substr(i, j - i));
      i = j;
    }
    return fields;
  }

  // Require(), then the fields of the line, failing when there are fewer than `count`.
  std::vector<std::string_view> RequireFields(std::size_t count, const std::string& expected) {
    Require(expected);
    std::vector<std::string_view> fields = Fields();
    if (fields.size() < count) Fail("expected " + expected + ", got '" + text_ + "'");
    return fields;
  }

  long long Integer(std::string_view field, const std::string& what) const {
    long long value = 0;
    const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value);
    if (error != std::errc() || end != field.data() + field.size())
      Fail("expected " + what + " (an integer), got '" + std::string(field) + "'");
    return value;
  }

  // An integer in [0, 2³¹): a count or an index.
  int Count(std::string_view field, const std::string& what) const {
    const long long value = Integer(field, what);
    if (value < 0 || value > std::numeric_limits<int>::max())
      Fail("expected " + what + " between 0 and 2^31 - 1, got " + std::to_string(value));
    return static_cast<int>(value);
  }

  double Real(std::string_view field, const std::string& what) const {
    double value = 0;
    const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value);
    if (error != std::errc() || end != field.data() + field.size() || !std::isfinite(value))
      Fail("expected " + what + " (a finite number), got '" + std::string(field) + "'");
    return value;
  }

 private:
  std::istream& in_;
  std::string name_;
  std::string text_;
  int line_ = 0;
};

// What the sections read so far have produced.
struct MshContent {
  int minor_version = 1;  // 4.0 or 4.1
  bool have_nodes = false;
  bool have_elements = false;
  std::unordered_map<long long, int> node_index;  // node tag -> vertex index
  TetMesh mesh;
};

void RequireEnd(MshLines& lines, const std::string& end) {
  lines.Require(end);
  if (lines.Fields().size() != 1 || lines.Fields()[0] != end)
    lines.Fail("expected " + end + ", got '" + lines.text() + "'");
}

// $MeshFormat: "version file-type data-size", version 4.x and file-type 0 (ASCII).
void ReadMeshFormat(MshLines& lines, MshContent& content) {
  const std::vector<std::string_view> f = lines.RequireFields(3, "'version file-type data-size'");
  const std::string version(f[0]);
  if (version != "4" && version != "4.0" && version != "4.1")
    lines.Fail("MSH version " + version + " is not supported, save as MSH 4.1 ASCII");
  content.minor_version = version == "4.1" ? 1 : 0;
  const long long file_type = lines.Integer(f[1], "the file type");
  if (file_type == 1) lines.Fail("binary .msh is not supported, save as ASCII");
  if (file_type != 0) lines.Fail("expected file type 0 (ASCII), got " + std::to_string(file_type));
  RequireEnd(lines, "$EndMeshFormat");
}

// Adds a node with tag `tag` at the coordinates in fields 0-2 of `f`.
void AddNode(MshLines& lines, MshContent& content, long long tag, const std::vector<std::string_view>& f) {
  const Eigen::Vector3d x(lines.Real(f[0], "the x coordinate"), lines.Real(f[1], "the y coordinate"),
                          lines.Real(f[2], "the z coordinate"));
  if (!content.node_index.try_emplace(tag, static_cast<int>(content.mesh.vertices.size())).second)
    lines.Fail("node tag " + std::to_string(tag) + " is defined twice");
  content.mesh.vertices.push_back(x);
}

// One entity block of $Nodes: 4.1 lists the block's node tags, then one line of coordinates per node (x y z, then
// the parametric ones, ignored); 4.0 lists "tag x y z [parametric]" per node.
void ReadNodeBlock(MshLines& lines, MshContent& content) {
  const std::vector<std::string_view> f =
      lines.RequireFields(4, "a node block header 'entityDim entityTag parametric numNodesInBlock'");
  const int count = lines.Count(f[3], "the number of nodes in the block");
  if (content.minor_version == 0) {
    for (int i = 0; i < count; ++i) {
      const std::vector<std::string_view> g = lines.RequireFields(4, "'nodeTag x y z'");
      AddNode(lines, content, lines.Integer(g[0], "a node tag"), {g.begin() + 1, g.end()});
    }
    return;
  }
  std::vector<long long> tags;
  while (static_cast<int>(tags.size()) < count) {
    const std::vector<std::string_view> g = lines.RequireFields(1, "a node tag");
    if (tags.size() + g.size() > static_cast<std::size_t>(count))
      lines.Fail("expected " + std::to_string(count - static_cast<int>(tags.size())) + " more node tag(s), got " +
                 std::to_string(g.size()));
    for (const std::string_view field : g) tags.push_back(lines.Integer(field, "a node tag"));
  }
  for (const long long tag : tags) AddNode(lines, content, tag, lines.RequireFields(3, "3 node coordinates 'x y z'"));
}

// $Nodes: "numEntityBlocks numNodes [minNodeTag maxNodeTag]", then the blocks.
void ReadNodes(MshLines& lines, MshContent& content) {
  if (content.have_nodes) lines.Fail("a second $Nodes section");
  content.have_nodes = true;
  const std::vector<std::string_view> f = lines.RequireFields(2, "'numEntityBlocks numNodes ...'");
  const int blocks = lines.Count(f[0], "the number of entity blocks");
  const int nodes = lines.Count(f[1], "the number of nodes");
  for (int b = 0; b < blocks; ++b) ReadNodeBlock(lines, content);
  RequireEnd(lines, "$EndNodes");
  if (static_cast<int>(content.mesh.vertices.size()) != nodes)
    lines.Fail("$Nodes announces " + std::to_string(nodes) + " nodes, its blocks hold " +
               std::to_string(content.mesh.vertices.size()));
}

// One entity block of $Elements: "entityDim entityTag elementType numElementsInBlock" (4.0: entityTag first), then
// one line per element, "elementTag nodeTag...". Keeps type 4 (4-node tetrahedron) and skips the others.
int ReadElementBlock(MshLines& lines, MshContent& content) {
  constexpr int kTetrahedron = 4;
  const std::vector<std::string_view> f =
      lines.RequireFields(4, "an element block header 'entityDim entityTag elementType numElementsInBlock'");
  const long long type = lines.Integer(f[2], "the element type");
  const int count = lines.Count(f[3], "the number of elements in the block");
  for (int i = 0; i < count; ++i) {
    const std::vector<std::string_view> g = lines.RequireFields(1, "an element 'elementTag nodeTag...'");
    if (type != kTetrahedron) continue;
    if (g.size() != 5)
      lines.Fail("expected a tetrahedron's tag and 4 node tags, got " + std::to_string(g.size()) + " fields");
    std::array<int, 4> tet;
    for (int k = 0; k < 4; ++k) {
      const long long tag = lines.Integer(g[k + 1], "a node tag");
      const auto it = content.node_index.find(tag);
      if (it == content.node_index.end())
        lines.Fail("tetrahedron " + std::string(g[0]) + " refers to node " + std::to_string(tag) +
                   ", which $Nodes does not define");
      tet[k] = it->second;
    }
    content.mesh.tets.push_back(tet);
  }
  return count;
}

// $Elements: "numEntityBlocks numElements [minElementTag maxElementTag]", then the blocks.
void ReadElements(MshLines& lines, MshContent& content) {
  if (!content.have_nodes) lines.Fail("$Elements before $Nodes");
  if (content.have_elements) lines.Fail("a second $Elements section");
  content.have_elements = true;
  const std::vector<std::string_view> f = lines.RequireFields(2, "'numEntityBlocks numElements ...'");
  const int blocks = lines.Count(f[0], "the number of entity blocks");
  const int elements = lines.Count(f[1], "the number of elements");
  int read = 0;
  for (int b = 0; b < blocks; ++b) read += ReadElementBlock(lines, content);
  RequireEnd(lines, "$EndElements");
  if (read != elements)
    lines.Fail("$Elements announces " + std::to_string(elements) + " elements, its blocks hold " +
               std::to_string(read));
}

// Reads the sections of an MSH 4 ASCII stream into `content`; throws MshError.
void ReadSections(MshLines& lines, MshContent& content) {
  lines.Require("$MeshFormat");
  if (lines.Fields()[0] != "$MeshFormat")
    lines.Fail("expected $MeshFormat (a Gmsh .msh file), got '" + lines.text() + "'");
  ReadMeshFormat(lines, content);
  while (lines.Next()) {
    const std::string name(lines.Fields()[0]);
    if (name.size() < 2 || name[0] != '$' || name.rfind("$End", 0) == 0 || lines.Fields().size() != 1)
      lines.Fail("expected a section such as $Nodes, got '" + lines.text() + "'");
    if (name == "$Nodes") {
      ReadNodes(lines, content);
    } else if (name == "$Elements") {
      ReadElements(lines, content);
    } else if (name == "$MeshFormat") {
      lines.Fail("a second $MeshFormat section");
    } else {
      const std::string end = "$End" + name.substr(1);
      lines.Require(end);
      while (lines.Fields()[0] != end) lines.Require(end);
    }
  }
}

}  // namespace

TetMeshResult ReadGmsh(const std::filesystem::path& file) {
  TetMeshResult result;
  const std::string name = file.string();
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) {
    result.error = name + ": no such file";
    return result;
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    result.error = name + ": cannot open the file";
    return result;
  }
  MshLines lines(in, name);
  MshContent content;
  try {
    ReadSections(lines, content);
  } catch (const MshError& e) {
    result.error = e.message;
    return result;
  }
  if (!content.have_nodes || !content.have_elements) {
    result.error = name + ": no " + (content.have_nodes ? "$Elements" : "$Nodes") + " section";
  } else if (content.mesh.tets.empty()) {
    result.error = name + ": no tetrahedra (element type 4) in $Elements";
  } else if (const TetMeshCheck check = CheckAndOrient(content.mesh); !check.error.empty()) {
    result.error = name + ": " + check.error;
  }
  if (result.error.empty()) result.mesh = std::move(content.mesh);
  return result;
}

}  // namespace ductile::fem
