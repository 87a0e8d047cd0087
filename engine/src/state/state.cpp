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
#include "model/rigid_model.h"
#include "state/domain_registry.h"
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

std::size_t State::MemoryBytes() const {
  std::size_t bytes = sizeof(Data);
  for (const DomainKind& kind : DomainKinds()) bytes += kind.memory_bytes(*data_);
  const contact::RigidState& r = data_->rigid;
  bytes += sizeof(double) * static_cast<std::size_t>(r.q.size() + r.v.size() + r.tau_applied.size());
  return bytes + HeapBytes(r.targets) + HeapBytes(r.contacts) + HeapBytes(r.contact_origins);
}

std::uint64_t ModelFingerprint(const Model& model) {
  Fnv1a64 hash;
  for (const DomainKind& kind : DomainKinds()) kind.fingerprint(model, hash);
  if (model.rigid) {
    const multibody::MultibodyTree& tree = model.rigid->tree;
    const int sizes[3] = {tree.num_bodies(), tree.nq(), tree.nv()};
    hash.Add(sizes, sizeof(sizes));
    for (const multibody::Body& b : tree.bodies()) hash.Add(b.name.data(), b.name.size() + 1);
    const std::uint64_t controllers = model.rigid->controllers.size();
    hash.Add(&controllers, sizeof(controllers));
  }
  return hash.value();
}

std::string DescribeModel(const Model& model) {
  std::string out;
  for (const DomainKind& kind : DomainKinds())
    if (std::string part = kind.describe(model); !part.empty()) out += (out.empty() ? "" : ", ") + part;
  const int nq = model.rigid ? model.rigid->tree.nq() : 0;
  return out + (out.empty() ? "" : ", ") + std::to_string(nq) + " rigid position" + (nq == 1 ? "" : "s");
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
