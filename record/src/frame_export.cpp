// FrameExporter (frame_export.h, whose comment has the layout and why HDF5), on the HDF5 C library.
#include "ductile/record/frame_export.h"

#include <hdf5.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <system_error>
#include <vector>

#include "ductile/render/primitives.h"

namespace ductile::record {
namespace {

// One rigid shape's triangles in its own frame, as the renderer tessellates it; empty for a plane.
struct ShapeMesh {
  std::vector<std::array<float, 3>> vertices;
  std::vector<std::array<int, 3>> triangles;
};

ShapeMesh Tessellate(const SnapshotShape& shape) {
  render::MeshData mesh;
  switch (shape.type) {
    case ShapeType::kBox:
      mesh = render::MakeBox(shape.half_extents);
      break;
    case ShapeType::kSphere:
      mesh = render::MakeSphere(shape.radius);
      break;
    case ShapeType::kCylinder:
      mesh = render::MakeCylinder(shape.radius, shape.length);
      break;
    case ShapeType::kCapsule:
      mesh = render::MakeCapsule(shape.radius, shape.length);
      break;
    case ShapeType::kMesh:
      if (shape.mesh) {
        ShapeMesh out{shape.mesh->vertices, {}};
        for (const auto& t : shape.mesh->triangles)
          out.triangles.push_back({static_cast<int>(t[0]), static_cast<int>(t[1]), static_cast<int>(t[2])});
        return out;
      }
      return {};
    case ShapeType::kPlane:
    case ShapeType::kSheet:
      return {};
  }
  ShapeMesh out{mesh.positions, {}};
  for (std::size_t i = 0; i + 2 < mesh.indices.size(); i += 3)
    out.triangles.push_back({static_cast<int>(mesh.indices[i]), static_cast<int>(mesh.indices[i + 1]),
                             static_cast<int>(mesh.indices[i + 2])});
  return out;
}

// v rotated by the unit quaternion q = (w, x, y, z) and moved by p.
std::array<float, 3> Place(const std::array<float, 3>& v, const std::array<float, 4>& q,
                           const std::array<float, 3>& p) {
  const float w = q[0], x = q[1], y = q[2], z = q[3];
  // t = 2 (q × v), v' = v + w t + q × t.
  const float tx = 2 * (y * v[2] - z * v[1]), ty = 2 * (z * v[0] - x * v[2]), tz = 2 * (x * v[1] - y * v[0]);
  return {v[0] + w * tx + (y * tz - z * ty) + p[0], v[1] + w * ty + (z * tx - x * tz) + p[1],
          v[2] + w * tz + (x * ty - y * tx) + p[2]};
}

// Writes a dataset of `dims` elements of `type` at `where`; false on failure.
bool Dataset(hid_t where, const std::string& name, hid_t type, const std::vector<hsize_t>& dims, const void* data) {
  const hid_t space = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
  const hid_t set = H5Dcreate2(where, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  const bool ok =
      set >= 0 && (dims.empty() || dims[0] == 0 || H5Dwrite(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0);
  if (set >= 0) H5Dclose(set);
  H5Sclose(space);
  return ok;
}

bool Strings(hid_t where, const char* name, const std::vector<std::string>& values) {
  std::vector<const char*> text;
  text.reserve(values.size());
  for (const std::string& v : values) text.push_back(v.c_str());
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, H5T_VARIABLE);
  const hsize_t n = values.size();
  const hid_t space = H5Screate_simple(1, &n, nullptr);
  const hid_t attr = H5Acreate2(where, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  const bool ok = attr >= 0 && (n == 0 || H5Awrite(attr, type, text.data()) >= 0);
  if (attr >= 0) H5Aclose(attr);
  H5Sclose(space);
  H5Tclose(type);
  return ok;
}

template <typename T>
bool Scalar(hid_t where, const char* name, hid_t type, T value) {
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t attr = H5Acreate2(where, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  const bool ok = attr >= 0 && H5Awrite(attr, type, &value) >= 0;
  if (attr >= 0) H5Aclose(attr);
  H5Sclose(space);
  return ok;
}

// A group that closes itself.
struct Group {
  hid_t id;
  Group(hid_t where, const std::string& name)
      : id(H5Gcreate2(where, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)) {}
  ~Group() {
    if (id >= 0) H5Gclose(id);
  }
  Group(const Group&) = delete;
  Group& operator=(const Group&) = delete;
};

std::string FrameName(int k) {
  std::array<char, 16> name{};
  std::snprintf(name.data(), name.size(), "%06d", k);
  return name.data();
}

}  // namespace

struct FrameExporter::Impl {
  std::filesystem::path dir, temp;
  hid_t file = -1;
  int frames = 0;
  std::size_t particles = 0;
  std::vector<ShapeMesh> shapes;  // per snapshot shape (empty for planes)
  std::vector<std::string> shape_names;
  std::vector<std::size_t> cloth_triangles;
  std::vector<std::string> cloth_names;
  // FEM–IPC bodies: surface triangles, vertex counts, names, whether they carry stress (soft, not affine).
  std::vector<std::size_t> soft_triangles, soft_vertices;
  std::vector<std::string> soft_names;
  std::vector<bool> soft_stress;
  std::vector<double> times;
  std::size_t bodies = 0;

  std::string Problem(const std::string& what) const { return "export to " + dir.string() + ": " + what; }
  std::string First(const Snapshot& s);
  std::string Index() const;
  bool SameSoftBodies(const Snapshot& s) const {
    if (s.soft_bodies.size() != soft_vertices.size()) return false;
    for (std::size_t b = 0; b < soft_vertices.size(); ++b)
      if (s.soft_bodies[b].vertices.size() != soft_vertices[b]) return false;
    return true;
  }
  // /frames/k/soft_bodies/b/position (and von_mises for soft ones).
  bool WriteSoftBodies(hid_t frame, const Snapshot& s) const;
};

bool FrameExporter::Impl::WriteSoftBodies(hid_t frame, const Snapshot& s) const {
  if (s.soft_bodies.empty()) return true;
  Group all(frame, "soft_bodies");
  bool ok = all.id >= 0;
  for (std::size_t b = 0; b < s.soft_bodies.size() && ok; ++b) {
    const SnapshotSoftBody& body = s.soft_bodies[b];
    Group one(all.id, std::to_string(b));
    ok = one.id >= 0 && Dataset(one.id, "position", H5T_NATIVE_FLOAT, {body.vertices.size(), 3}, body.vertices.data());
    if (ok && soft_stress[b]) {
      std::vector<float> von_mises = body.von_mises;
      von_mises.resize(body.vertices.size(), 0.0f);  // a snapshot taken without stress: zeros
      ok = Dataset(one.id, "von_mises", H5T_NATIVE_FLOAT, {von_mises.size()}, von_mises.data());
    }
  }
  return ok;
}

FrameExporter::FrameExporter() : impl_(std::make_unique<Impl>()) {}

FrameExporter::~FrameExporter() {
  if (impl_->file >= 0) {
    H5Fclose(impl_->file);
    std::error_code ignored;
    std::filesystem::remove(impl_->temp, ignored);
  }
}

int FrameExporter::frames() const {
  return impl_->frames;
}

std::string FrameExporter::Open(const std::filesystem::path& dir) {
  Impl& m = *impl_;
  m.dir = dir;
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error || !std::filesystem::is_directory(dir))
    return m.Problem("cannot create the folder (" + error.message() + ")");
  if (access(dir.c_str(), W_OK) != 0) return m.Problem("the folder is not writable");
  m.temp = dir / ("frames.h5.tmp-" + std::to_string(getpid()));
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors come back as return values, not printed
  m.file = H5Fcreate(m.temp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (m.file < 0) return m.Problem("cannot create " + m.temp.string());
  return {};
}

std::string FrameExporter::Impl::First(const Snapshot& s) {
  particles = s.particles.position.size();
  bodies = s.bodies.size();
  bool ok = true;
  {
    Group g(file, "particles");
    ok = ok && g.id >= 0 && Strings(g.id, "material_names", s.material_names) &&
         Strings(g.id, "object_names", s.object_names);
    ok = ok && Dataset(g.id, "material", H5T_NATIVE_INT32, {particles}, s.particles.material.data()) &&
         Dataset(g.id, "object", H5T_NATIVE_INT32, {particles}, s.particles.object.data());
  }
  {
    Group g(file, "bodies");
    std::vector<std::string> names;
    for (const SnapshotBody& b : s.bodies) names.push_back(b.name);
    ok = ok && g.id >= 0 && Strings(g.id, "names", names);
  }
  {
    Group g(file, "shapes");
    for (std::size_t k = 0; k < s.shapes.size() && ok; ++k) {
      shapes.push_back(Tessellate(s.shapes[k]));
      shape_names.push_back(s.shapes[k].name);
      Group one(g.id, std::to_string(k));
      ok = one.id >= 0 && Strings(one.id, "name", {s.shapes[k].name}) &&
           Scalar(one.id, "body", H5T_NATIVE_INT32, static_cast<std::int32_t>(s.shapes[k].body)) &&
           Dataset(one.id, "triangles", H5T_NATIVE_INT32, {shapes.back().triangles.size(), 3},
                   shapes.back().triangles.data());
    }
  }
  {
    Group g(file, "cloth");
    for (std::size_t c = 0; c < s.cloths.size() && ok; ++c) {
      const SnapshotCloth& cloth = s.cloths[c];
      std::vector<std::array<int, 3>> triangles;
      for (const auto& t : cloth.triangles)
        triangles.push_back({cloth.first_particle + static_cast<int>(t[0]),
                             cloth.first_particle + static_cast<int>(t[1]),
                             cloth.first_particle + static_cast<int>(t[2])});
      cloth_triangles.push_back(triangles.size());
      cloth_names.push_back(static_cast<std::size_t>(cloth.object) < s.object_names.size()
                                ? s.object_names[cloth.object]
                                : std::to_string(c));
      Group one(g.id, std::to_string(c));
      ok = one.id >= 0 && Scalar(one.id, "object", H5T_NATIVE_INT32, static_cast<std::int32_t>(cloth.object)) &&
           Dataset(one.id, "triangles", H5T_NATIVE_INT32, {triangles.size(), 3}, triangles.data());
    }
  }
  {
    Group g(file, "soft_bodies");
    for (std::size_t b = 0; b < s.soft_bodies.size() && ok; ++b) {
      const SnapshotSoftBody& body = s.soft_bodies[b];
      std::vector<std::array<std::int32_t, 3>> triangles;
      if (body.triangles)
        for (const auto& t : *body.triangles)
          triangles.push_back(
              {static_cast<std::int32_t>(t[0]), static_cast<std::int32_t>(t[1]), static_cast<std::int32_t>(t[2])});
      soft_triangles.push_back(triangles.size());
      soft_vertices.push_back(body.vertices.size());
      soft_names.push_back(body.name);
      soft_stress.push_back(!body.affine);
      Group one(g.id, std::to_string(b));
      ok = one.id >= 0 && Strings(one.id, "name", {body.name}) &&
           Scalar(one.id, "affine", H5T_NATIVE_INT32, static_cast<std::int32_t>(body.affine)) &&
           Dataset(one.id, "triangles", H5T_NATIVE_INT32, {triangles.size(), 3}, triangles.data());
    }
  }
  Group frames_group(file, "frames");
  return ok && frames_group.id >= 0 ? std::string() : Problem("cannot write the file's layout");
}

std::string FrameExporter::Write(const Snapshot& s) {
  Impl& m = *impl_;
  if (m.file < 0) return m.Problem("not open");
  if (m.frames == 0) {
    if (std::string problem = m.First(s); !problem.empty()) return problem;
  } else if (s.particles.position.size() != m.particles || s.shapes.size() != m.shapes.size() ||
             s.bodies.size() != m.bodies || !m.SameSoftBodies(s)) {
    return m.Problem("frame " + std::to_string(m.frames) + " has other particles or bodies than the first");
  }
  const std::size_t n = m.particles;
  // A snapshot taken without stress: zeros (a copy only then).
  std::vector<float> zeros;
  if (s.particles.von_mises.size() != n) zeros.assign(n, 0.0f);
  const float* von_mises = zeros.empty() ? s.particles.von_mises.data() : zeros.data();
  std::vector<std::array<double, 3>> body_position;
  std::vector<std::array<double, 4>> body_quaternion;
  for (const SnapshotBody& b : s.bodies) {
    body_position.push_back({b.position[0], b.position[1], b.position[2]});
    body_quaternion.push_back({b.quaternion[0], b.quaternion[1], b.quaternion[2], b.quaternion[3]});
  }
  const hid_t frames_group = H5Gopen2(m.file, "frames", H5P_DEFAULT);
  bool ok = frames_group >= 0;
  {
    Group g(frames_group, FrameName(m.frames));
    ok = ok && g.id >= 0 && Scalar(g.id, "time", H5T_NATIVE_DOUBLE, s.time) &&
         Scalar(g.id, "step", H5T_NATIVE_INT64, static_cast<std::int64_t>(s.step));
    ok = ok && Dataset(g.id, "position", H5T_NATIVE_FLOAT, {n, 3}, s.particles.position.data()) &&
         Dataset(g.id, "velocity", H5T_NATIVE_FLOAT, {n, 3}, s.particles.velocity.data()) &&
         Dataset(g.id, "von_mises", H5T_NATIVE_FLOAT, {n}, von_mises) &&
         Dataset(g.id, "plastic_strain", H5T_NATIVE_FLOAT, {n}, s.particles.plastic_strain.data()) &&
         Dataset(g.id, "body_position", H5T_NATIVE_DOUBLE, {m.bodies, 3}, body_position.data()) &&
         Dataset(g.id, "body_quaternion", H5T_NATIVE_DOUBLE, {m.bodies, 4}, body_quaternion.data());
    Group shapes(g.id, "shapes");
    for (std::size_t k = 0; k < m.shapes.size() && ok; ++k) {
      std::vector<std::array<float, 3>> world;
      world.reserve(m.shapes[k].vertices.size());
      for (const auto& v : m.shapes[k].vertices)
        world.push_back(Place(v, s.shapes[k].quaternion, s.shapes[k].position));
      ok = shapes.id >= 0 && Dataset(shapes.id, std::to_string(k), H5T_NATIVE_FLOAT, {world.size(), 3}, world.data());
    }
    ok = ok && m.WriteSoftBodies(g.id, s);
  }
  if (frames_group >= 0) H5Gclose(frames_group);
  if (!ok) return m.Problem("cannot write frame " + std::to_string(m.frames) + " (disk full?)");
  m.times.push_back(s.time);
  ++m.frames;
  return {};
}

namespace {

// `text` with XML's special characters escaped, for an attribute value.
std::string Escaped(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace

// The XDMF 2 index: a temporal collection of the frames, each a spatial collection of the particles (polyvertex),
// every rigid shape, every cloth and every soft or affine body (triangles), their data items in frames.h5.
std::string FrameExporter::Impl::Index() const {
  std::ostringstream x;
  x << std::setprecision(17);  // frame times 1 ms apart stay apart past 1000 s (the default 6 digits merge them)
  const auto item = [&](const std::string& path, const std::string& dims, const char* type) {
    x << R"(<DataItem Dimensions=")" << dims << R"(" NumberType=")" << type
      << R"(" Precision="4" Format="HDF">frames.h5:)" << path << "</DataItem>";
  };
  const auto attribute = [&](const char* name, bool vector, const std::string& path, const char* type) {
    x << R"(<Attribute Name=")" << name << R"(" AttributeType=")" << (vector ? "Vector" : "Scalar")
      << R"(" Center="Node">)";
    item(path, vector ? std::to_string(particles) + " 3" : std::to_string(particles), type);
    x << "</Attribute>";
  };
  const auto triangles = [&](const std::string& name, const std::string& topology, std::size_t count,
                             const std::string& geometry, std::size_t vertices, const std::string& stress = {}) {
    x << R"(<Grid Name=")" << Escaped(name) << R"(" GridType="Uniform"><Topology TopologyType="Triangle" )"
      << R"(NumberOfElements=")" << count << R"(">)";
    item(topology, std::to_string(count) + " 3", "Int");
    x << R"(</Topology><Geometry GeometryType="XYZ">)";
    item(geometry, std::to_string(vertices) + " 3", "Float");
    x << "</Geometry>";
    if (!stress.empty()) {
      x << R"(<Attribute Name="von_mises" AttributeType="Scalar" Center="Node">)";
      item(stress, std::to_string(vertices), "Float");
      x << "</Attribute>";
    }
    x << "</Grid>\n";
  };
  x << "<?xml version=\"1.0\" ?>\n<Xdmf Version=\"2.0\">\n<Domain>\n"
    << R"(<Grid Name="run" GridType="Collection" CollectionType="Temporal">)" << '\n';
  for (int k = 0; k < frames; ++k) {
    const std::string f = "/frames/" + FrameName(k);
    x << R"(<Grid Name="frame )" << k << R"(" GridType="Collection" CollectionType="Spatial">)"
      << "\n"
      << R"(<Time Value=")" << times[static_cast<std::size_t>(k)] << "\"/>\n";
    if (particles > 0) {
      x << R"(<Grid Name="particles" GridType="Uniform"><Topology TopologyType="Polyvertex" NumberOfElements=")"
        << particles << R"(" NodesPerElement="1"/><Geometry GeometryType="XYZ">)";
      item(f + "/position", std::to_string(particles) + " 3", "Float");
      x << "</Geometry>";
      attribute("velocity", true, f + "/velocity", "Float");
      attribute("von_mises", false, f + "/von_mises", "Float");
      attribute("plastic_strain", false, f + "/plastic_strain", "Float");
      attribute("material", false, "/particles/material", "Int");
      attribute("object", false, "/particles/object", "Int");
      x << "</Grid>\n";
    }
    for (std::size_t s = 0; s < shapes.size(); ++s)
      if (!shapes[s].triangles.empty())
        triangles(shape_names[s], "/shapes/" + std::to_string(s) + "/triangles", shapes[s].triangles.size(),
                  f + "/shapes/" + std::to_string(s), shapes[s].vertices.size());
    for (std::size_t c = 0; c < cloth_triangles.size(); ++c)
      triangles(cloth_names[c] + " (cloth)", "/cloth/" + std::to_string(c) + "/triangles", cloth_triangles[c],
                f + "/position", particles);
    for (std::size_t b = 0; b < soft_names.size(); ++b) {
      const std::string at = f + "/soft_bodies/" + std::to_string(b);
      triangles(soft_names[b], "/soft_bodies/" + std::to_string(b) + "/triangles", soft_triangles[b], at + "/position",
                soft_vertices[b], soft_stress[b] ? at + "/von_mises" : std::string());
    }
    x << "</Grid>\n";
  }
  x << "</Grid>\n</Domain>\n</Xdmf>\n";
  return x.str();
}

std::string FrameExporter::Close() {
  Impl& m = *impl_;
  if (m.file < 0) return {};
  const bool closed = H5Fclose(m.file) >= 0;
  m.file = -1;
  std::error_code error;
  if (!closed) {
    std::filesystem::remove(m.temp, error);
    return m.Problem("cannot finish " + m.temp.string());
  }
  const std::filesystem::path xmf_temp = m.dir / ("frames.xmf.tmp-" + std::to_string(getpid()));
  {
    std::ofstream out(xmf_temp);
    out << m.Index();
    if (!out.flush()) {
      std::filesystem::remove(m.temp, error);
      std::filesystem::remove(xmf_temp, error);
      return m.Problem("cannot write " + xmf_temp.string());
    }
  }
  std::filesystem::rename(m.temp, m.dir / "frames.h5", error);
  if (!error) std::filesystem::rename(xmf_temp, m.dir / "frames.xmf", error);
  if (error) {
    std::error_code ignored;
    std::filesystem::remove(m.temp, ignored);
    std::filesystem::remove(xmf_temp, ignored);
    return m.Problem("cannot rename into place (" + error.message() + ")");
  }
  return {};
}

}  // namespace ductile::record
