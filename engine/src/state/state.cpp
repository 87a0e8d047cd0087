// The State value type, and its binary form: a versioned header (magic, format version, the model's fingerprint,
// the payload's size and FNV-1a checksum, a one-line summary of the scene) and the payload that State::Data's
// Serialize members write (core/archive.h).
#include "ductile/state.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/archive.h"
#include "core/hash.h"
#include "model/fem_model.h"
#include "model/rigid_model.h"
#include "state/state_data.h"
#include "state/state_format.h"

namespace ductile {

State::State() : data_(std::make_unique<Data>()) {}
State::~State() = default;
State::State(const State& other) : data_(std::make_unique<Data>(*other.data_)) {}
State& State::operator=(const State& other) {
  if (this != &other) *data_ = *other.data_;  // in place: solvers bound to this State's parts stay bound
  return *this;
}
State::State(State&& other) noexcept : data_(std::make_unique<Data>(std::move(*other.data_))) {}
State& State::operator=(State&& other) noexcept {
  if (this != &other) *data_ = std::move(*other.data_);
  return *this;
}

double State::time() const {
  return data_->clock.time;
}
std::int64_t State::step_count() const {
  return data_->clock.steps;
}

namespace {
template <typename T>
std::size_t VectorBytes(const std::vector<T>& v) {
  return v.capacity() * sizeof(T);
}
}  // namespace

std::size_t State::MemoryBytes() const {
  const mpm::Particles& p = data_->mpm.particles;
  std::size_t bytes = sizeof(Data);
  bytes += VectorBytes(p.x) + VectorBytes(p.v) + VectorBytes(p.F) + VectorBytes(p.C) + VectorBytes(p.mass) +
           VectorBytes(p.volume) + VectorBytes(p.plastic_strain) + VectorBytes(p.material) + VectorBytes(p.object) +
           VectorBytes(p.id);
  const mpm::TransferCache& c = data_->mpm.cache;
  bytes += VectorBytes(c.grid.nodes_data) + VectorBytes(c.base) + VectorBytes(c.rotations) + VectorBytes(c.block_runs);
  bytes += c.grid.MemoryBytesOfTables();
  const contact::RigidState& r = data_->rigid;
  bytes += sizeof(double) * static_cast<std::size_t>(r.q.size() + r.v.size() + r.tau_applied.size());
  bytes += VectorBytes(r.controllers) + VectorBytes(r.contacts) + VectorBytes(r.contact_origins);
  const fem::IpcState& f = data_->fem;
  bytes +=
      VectorBytes(f.x) + VectorBytes(f.v) + VectorBytes(f.q) + VectorBytes(f.q_dot) + VectorBytes(f.kinematic_points);
  return bytes;
}

std::uint64_t ModelFingerprint(const Model& model) {
  Fnv1a64 hash;
  const auto add_vector = [&hash](const auto& v) {
    const std::uint64_t n = v.size();
    hash.Add(&n, sizeof(n));
    hash.Add(v.data(), sizeof(v[0]) * v.size());
  };
  hash.Add(&model.num_particles, sizeof(model.num_particles));
  add_vector(model.x0);
  add_vector(model.material);
  add_vector(model.object);
  hash.Add(&model.h, sizeof(model.h));
  hash.Add(model.grid_nodes.data(), sizeof(model.grid_nodes));
  hash.Add(model.grid_origin.data(), sizeof(model.grid_origin));
  const std::uint64_t materials = model.materials.size();
  hash.Add(&materials, sizeof(materials));
  for (const mpm::MaterialParams& m : model.materials) hash.Add(&m.model, sizeof(m.model));
  if (!model.cloth_elements.empty()) {  // the triangles (a state's d₃ is one per triangle)
    const std::uint64_t elements = model.cloth_elements.size();
    hash.Add(&elements, sizeof(elements));
    for (const mpm::ClothElement& e : model.cloth_elements) hash.Add(e.vertex, sizeof(e.vertex));
  }
  if (model.rigid) {
    const multibody::MultibodyTree& tree = model.rigid->tree;
    const int sizes[3] = {tree.num_bodies(), tree.nq(), tree.nv()};
    hash.Add(sizes, sizeof(sizes));
    for (const multibody::Body& b : tree.bodies()) hash.Add(b.name.data(), b.name.size() + 1);
    const std::uint64_t controllers = model.rigid->controllers.size();
    hash.Add(&controllers, sizeof(controllers));
  }
  if (model.fem && !model.fem->empty()) {  // the IPC state's sizes
    const FemModel& fem = *model.fem;
    std::uint64_t sizes[3] = {fem.soft_bodies.size(), fem.affine_bodies.size(), fem.kinematic.size()};
    hash.Add(sizes, sizeof(sizes));
    for (const FemModel::SoftBody& b : fem.soft_bodies) {
      const std::uint64_t n[2] = {b.desc.vertices.size(), b.desc.tets.size()};
      hash.Add(n, sizeof(n));
    }
    for (const FemModel::Kinematic& k : fem.kinematic) {
      const std::uint64_t n = k.desc.vertices.size();
      hash.Add(&n, sizeof(n));
    }
  }
  return hash.value();
}

std::string DescribeModel(const Model& model) {
  std::string out = std::to_string(model.num_particles) + " particles in " + std::to_string(model.objects.size()) +
                    " object" + (model.objects.size() == 1 ? "" : "s");
  const int nq = model.rigid ? model.rigid->tree.nq() : 0;
  out += ", " + std::to_string(nq) + " rigid position" + (nq == 1 ? "" : "s");
  if (model.fem && !model.fem->empty())
    out += ", " + std::to_string(model.fem->soft_bodies.size()) + " soft and " +
           std::to_string(model.fem->affine_bodies.size()) + " affine bodies";
  return out;
}

std::vector<std::uint8_t> EncodeState(const Model& model, const State& state) {
  ArchiveWriter payload;
  payload(state.data());
  const std::vector<std::uint8_t>& bytes = payload.bytes();
  Fnv1a64 checksum;
  checksum.Add(bytes.data(), bytes.size());
  StateHeader header;
  header.model_fingerprint = state.data().model_fingerprint;
  header.payload_bytes = bytes.size();
  header.payload_checksum = checksum.value();
  ArchiveWriter out;
  out.Bytes(kStateMagic, sizeof(kStateMagic));
  out(kStateFormatVersion, header.model_fingerprint, header.payload_bytes, header.payload_checksum,
      DescribeModel(model));
  out.Bytes(bytes.data(), bytes.size());
  return out.Take();
}

void DecodeState(const Model& model, const std::uint8_t* data, std::size_t size, State& state) {
  ArchiveReader in(data, size);
  char magic[sizeof(kStateMagic)] = {};
  std::uint32_t version = 0;
  StateHeader header;
  std::string saved_from;
  try {
    in.Bytes(magic, sizeof(magic));
    if (std::memcmp(magic, kStateMagic, sizeof(magic)) != 0) throw StateError("not a Ductile state file");
    in(version);
    if (version != kStateFormatVersion)
      throw StateError("written in state format version " + std::to_string(version) + "; this build reads version " +
                       std::to_string(kStateFormatVersion));
    in(header.model_fingerprint, header.payload_bytes, header.payload_checksum, saved_from);
  } catch (const ArchiveError&) {
    throw StateError("truncated: the header ends early");
  }
  if (header.payload_bytes != in.remaining())
    throw StateError("truncated or padded: the header promises " + std::to_string(header.payload_bytes) +
                     " bytes of state, the data holds " + std::to_string(in.remaining()));
  const std::uint8_t* payload = data + (size - in.remaining());
  Fnv1a64 checksum;
  checksum.Add(payload, header.payload_bytes);
  if (checksum.value() != header.payload_checksum) throw StateError("corrupt: the checksum does not match");
  const std::uint64_t fingerprint = ModelFingerprint(model);
  if (header.model_fingerprint != fingerprint)
    throw StateError("saved from another scene (" + saved_from + "); this scene has " + DescribeModel(model) +
                     " or differs in its particles, grid or rigid bodies");
  State decoded;
  try {
    ArchiveReader body(payload, header.payload_bytes);
    body(decoded.data());
    if (body.remaining() != 0) throw ArchiveError("bytes left over");
  } catch (const ArchiveError& e) {
    throw StateError(std::string("corrupt: ") + e.what());
  }
  decoded.data().model_fingerprint = fingerprint;
  state = std::move(decoded);
}

void WriteStateFile(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  // Written beside the target and renamed over it, so a failed write leaves any earlier file as it was.
  const std::string temporary = path + ".partial";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw StateError(path + ": cannot write: " + std::strerror(errno));
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) {
      const std::string reason = std::strerror(errno);
      std::error_code ignored;
      std::filesystem::remove(temporary, ignored);
      throw StateError(path + ": cannot write: " + reason);
    }
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) {
    std::filesystem::remove(temporary, error);
    throw StateError(path + ": cannot write: " + error.message());
  }
}

std::vector<std::uint8_t> ReadStateFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw StateError(path + ": cannot open: " + std::strerror(errno));
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw StateError(path + ": cannot read: " + std::strerror(errno));
  return bytes;
}

}  // namespace ductile
