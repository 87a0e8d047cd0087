// The inspector dock: every live-editable parameter of the open scene (time step, substeps, contact-solver
// tolerance, contact stiffness and dissipation, friction, and each material's constants) with its unit and valid
// range. An edit is checked at once against the scene's validation rules (a refusal shows the reason and the
// field turns red) and otherwise sent on as a dotted `--set` key for the simulation thread to apply.
#pragma once

#include <QWidget>
#include <functional>
#include <map>
#include <string>

#include "ductile/scene.h"

class QFormLayout;
class QLabel;
class QLineEdit;
class QVBoxLayout;

namespace ductile::studio {

class Inspector : public QWidget {
  Q_OBJECT

 public:
  /// Returns an empty string when `key` = `value` is acceptable, else the reason.
  using Validator = std::function<std::string(const std::string& key, const std::string& value)>;

  explicit Inspector(QWidget* parent = nullptr);
  /// Shows the parameters of `scene` (as loaded, overrides applied).
  void SetScene(const SceneDesc& scene, Validator validate);
  /// Shows the outcome of an edit the simulation thread reported.
  void ShowResult(const QString& message, bool ok);
  /// The field of a dotted key, or null (for tests).
  QLineEdit* field(const std::string& key) const;

 signals:
  void edited(const QString& key, const QString& value);

 private:
  void AddRow(QFormLayout* form, const std::string& key, const QString& label, double value, const QString& unit,
              const QString& range);

  QVBoxLayout* groups_ = nullptr;
  QWidget* content_ = nullptr;
  QLabel* status_ = nullptr;
  Validator validate_;
  std::map<std::string, QLineEdit*> fields_;
};

}  // namespace ductile::studio
