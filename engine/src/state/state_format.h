// The binary form of a State (state.cpp): what Simulator::SaveState writes and RestoreState reads.
//
//   "DUCTSTAT"  8 bytes
//   version     uint32, kStateFormatVersion; any change of a Serialize member's fields raises it
//   fingerprint uint64, ModelFingerprint of the scene it was saved from
//   size        uint64, bytes of the payload
//   checksum    uint64, FNV-1a of the payload
//   summary     string (uint64 length, bytes): the scene's particles and rigid positions, for error messages
//   payload     State::Data::Serialize
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ductile/model.h"
#include "ductile/state.h"

namespace ductile {

inline constexpr char kStateMagic[8] = {'D', 'U', 'C', 'T', 'S', 'T', 'A', 'T'};
inline constexpr std::uint32_t kStateFormatVersion = 11;  // 2: cloth triangles' d₃; 3: RobotTeleop::manual;
                                                          // 4: TransferCache::pin_absorbed; 5: ArmTeleop's
                                                          // held_for_ and fed_forward_; 6: the FEM–IPC state;
                                                          // 7: RigidImpulses::warm; 8: RigidImpulses::warm_nodes;
                                                          // 9: the fingerprint hashes the domains in registry
                                                          // order, then the rigid bodies; 10: the MPM contact
                                                          // solve's statistics and warm starts in MpmState, the
                                                          // controllers' targets without their gains; 11:
                                                          // the projective-dynamics bodies

struct StateHeader {
  std::uint64_t model_fingerprint = 0;
  std::uint64_t payload_bytes = 0;
  std::uint64_t payload_checksum = 0;
};

/// A hash of what a state must match to belong to a model: each domain kind's part (its Fingerprint, in registry
/// order: the particles' initial positions, materials and objects, the grid, the material models; the soft and
/// affine bodies' sizes), then the rigid bodies' names and sizes. Parameters that live edits change (stiffness,
/// friction, Δt) are not in it.
std::uint64_t ModelFingerprint(const Model& model);
/// Each domain's bodies, then the rigid positions: "N particles in M objects, S soft and A affine bodies, K rigid
/// positions".
std::string DescribeModel(const Model& model);
std::vector<std::uint8_t> EncodeState(const Model& model, const State& state);
/// Throws StateError (without a file name) when the data is not a state of `model`; `state` is then unchanged.
void DecodeState(const Model& model, const std::uint8_t* data, std::size_t size, State& state);
/// Throws StateError naming the path.
void WriteStateFile(const std::string& path, const std::vector<std::uint8_t>& bytes);
std::vector<std::uint8_t> ReadStateFile(const std::string& path);

}  // namespace ductile
