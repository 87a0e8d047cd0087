// The inspector dock: the parameters of the open scene, built from the parameter table (ductile/parameters.h). One
// field per parameter that applies to the scene, grouped by section and entry (simulation, grid, contact, each
// material, object, collider, rigid body, robot, weld and camera), labelled with the parameter's name, symbol and
// unit; its tooltip gives the key, the table's line of documentation, the valid range and the default, and whether a
// change applies at the next step ("live") or needs a reset. Labels of parameters that need a reset are grey. An
// edit is checked against the table at once, without parsing the scene (a refusal shows the reason and the field
// turns red), and otherwise sent on as a dotted key for the simulation thread to apply.
#pragma once

#include <QPointer>
#include <QWidget>
#include <functional>
#include <map>
#include <string>

#include "ductile/parameters.h"
#include "ductile/scene.h"

class QFormLayout;
class QLabel;
class QLineEdit;
class QScrollArea;
class QVBoxLayout;

namespace ductile::studio {

class Inspector : public QWidget {
  Q_OBJECT

 public:
  /// Returns an empty string when `key` = `value` is acceptable, else the reason.
  using Validator = std::function<std::string(const std::string& key, const std::string& value)>;

  explicit Inspector(QWidget* parent = nullptr);
  /// Shows the parameters of `scene` (as loaded, overrides applied). Edits are checked against the parameter table;
  /// `validate` adds the checks between keys that the table leaves to the scene loader (a joint's target within its
  /// limits), for the parameters that need a reset only: the live ones have no such rules.
  void SetScene(const SceneDesc& scene, Validator validate);
  /// Shows the outcome of an edit the simulation thread reported.
  void ShowResult(const QString& message, bool ok);
  /// The field of a dotted key, or null (for tests).
  QLineEdit* field(const std::string& key) const;
  /// Scrolls the group of the entry `prefix` ("materials.dough", "robots.left_arm") to the top of the inspector's
  /// view; false when the scene has no parameter of that entry.
  bool ShowEntry(const std::string& prefix);

 signals:
  void edited(const QString& key, const QString& value);

 private:
  // The group box of `parameter`'s section or entry, made when it is the first of it.
  QFormLayout* Group(const SceneParameter& parameter);
  void AddRow(QFormLayout* form, const SceneParameter& parameter);
  // Checks an edit; empty when it may be sent on.
  std::string Check(const SceneParameter& parameter, const std::string& text) const;

  QVBoxLayout* groups_ = nullptr;
  QScrollArea* scroll_ = nullptr;
  QWidget* content_ = nullptr;
  QLabel* status_ = nullptr;
  SceneDesc scene_;
  Validator validate_;
  std::map<std::string, QLineEdit*> fields_;
  std::map<std::string, QFormLayout*> forms_;  // by group title
  QPointer<QWidget> shown_entry_;              // the group ShowEntry keeps at the top, until the user scrolls
};

}  // namespace ductile::studio
