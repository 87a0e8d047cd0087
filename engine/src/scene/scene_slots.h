// Where the parameters of the table (ductile/parameters.h) live in a SceneDesc, and how a value given as text is
// read and checked: the pieces that CheckParameter, ListParameters, LoadScene's reads and the live edits of
// Simulator::SetParameter share.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ductile/parameters.h"
#include "ductile/scene.h"

namespace ductile::scene {

/// The field of a SceneDesc that holds one parameter: exactly one pointer is set, or none when the key's named
/// entry is missing or the key does not apply to it. A slot is valid until the SceneDesc changes shape.
struct Slot {
  double* number = nullptr;
  int* integer = nullptr;
  Vector3* vector = nullptr;
  /// A kChoice field (an enum of the SceneDesc): its index, read and written through these.
  std::function<int()> get_choice;
  std::function<void(int)> set_choice;
  const std::vector<std::string>* choices = nullptr;  ///< Its row's names, for FormatSlot.

  bool empty() const { return number == nullptr && integer == nullptr && vector == nullptr && !get_choice; }
};

/// The slot of `key` in `scene`, or an empty slot with the reason in `why` (the entry named by `key` is missing, or
/// the key does not apply to the entry's model or type).
Slot FindSlot(SceneDesc& scene, const ParameterKey& key, std::string& why);

/// Whether `slot` holds a value of its own rather than its row's "not set" marker (a material's friction of −1, an
/// unbounded joint limit, a rigid body's mass of 0 when it gives a density).
bool HoldsValue(const ParameterInfo& info, const Slot& slot);

/// A value read from text: one number (kNumber, kInteger and a vector's element) or three.
struct Value {
  double number = 0;
  Vector3 vector{0, 0, 0};
};

/// Reads `text` as `--set` takes it (a YAML scalar; `[x, y, z]` for a whole vector) and checks it against the row:
/// its type, finiteness and range. Returns an empty string, or why not in LoadScene's words ("'dt' must be > 0, got
/// 0"), naming the last component of the row's key.
std::string ReadValue(const ParameterKey& key, const std::string& text, Value& out);

/// Writes `value` into `slot` (an element when key.element ≥ 0).
void Store(const Slot& slot, const ParameterKey& key, const Value& value);

/// The value in `slot` as `--set` takes it: the shortest text that reads back bitwise ("0.001", "[0, 0, -9.81]").
std::string FormatSlot(const Slot& slot);

}  // namespace ductile::scene
