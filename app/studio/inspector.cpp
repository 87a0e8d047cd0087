#include "inspector.h"

#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QVBoxLayout>

namespace ductile::studio {
namespace {

constexpr const char* kHint = "Edit a value and press Enter: it applies at the next step.";

}  // namespace

Inspector::Inspector(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* scroll = new QScrollArea;
  scroll->setWidgetResizable(true);
  content_ = new QWidget;
  groups_ = new QVBoxLayout(content_);
  groups_->addStretch(1);
  scroll->setWidget(content_);
  layout->addWidget(scroll, 1);
  status_ = new QLabel(kHint);
  status_->setWordWrap(true);
  status_->setObjectName("inspector_status");
  layout->addWidget(status_);
}

QLineEdit* Inspector::field(const std::string& key) const {
  const auto it = fields_.find(key);
  return it == fields_.end() ? nullptr : it->second;
}

void Inspector::AddRow(QFormLayout* form, const std::string& key, const QString& label, double value,
                       const QString& unit, const QString& range) {
  auto* edit = new QLineEdit(QString::number(value, 'g', 6));
  edit->setObjectName(QString::fromStdString(key));
  edit->setToolTip(QString::fromStdString(key) + "\nunit: " + unit + "\nvalid: " + range);
  form->addRow(label + (unit == "-" ? QString() : " [" + unit + "]"), edit);
  fields_[key] = edit;
  connect(edit, &QLineEdit::editingFinished, this, [this, edit, key] {
    if (!edit->isModified()) return;
    edit->setModified(false);
    const std::string text = edit->text().trimmed().toStdString();
    const std::string problem = validate_ ? validate_(key, text) : std::string();
    if (!problem.empty()) {
      edit->setStyleSheet("QLineEdit { background: #5a2a2a; }");
      ShowResult(QString::fromStdString(problem), false);
      return;
    }
    edit->setStyleSheet({});
    emit edited(QString::fromStdString(key), QString::fromStdString(text));
  });
}

void Inspector::SetScene(const SceneDesc& scene, Validator validate) {
  validate_ = std::move(validate);
  ShowResult(kHint, true);  // a refusal shown for the last scene's fields does not concern this one's
  fields_.clear();
  while (groups_->count() > 1) {  // keep the stretch at the end
    QLayoutItem* item = groups_->takeAt(0);
    delete item->widget();
    delete item;
  }
  const auto group = [&](const QString& title) {
    auto* box = new QGroupBox(title);
    auto* form = new QFormLayout(box);
    groups_->insertWidget(groups_->count() - 1, box);
    return form;
  };
  QFormLayout* sim = group("Time stepping");
  AddRow(sim, "simulation.dt", "Δt", scene.simulation.dt, "s", "> 0");
  AddRow(sim, "simulation.substeps", "MPM substeps N", scene.simulation.substeps, "-", "integer ≥ 1");
  AddRow(sim, "simulation.contact_tolerance_relative", "contact ε_r", scene.simulation.contact_tolerance_relative, "-",
         "> 0");
  QFormLayout* contact = group("Contact");
  AddRow(contact, "contact.friction", "μ (rigid)", scene.contact.friction, "-", "≥ 0");
  AddRow(contact, "contact.stiffness", "stiffness (rigid)", scene.contact.stiffness, "N/m", "> 0");
  AddRow(contact, "contact.dissipation", "dissipation (rigid)", scene.contact.dissipation, "s/m", "≥ 0");
  AddRow(contact, "contact.mpm_stiffness", "stiffness (MPM)", scene.contact.mpm_stiffness, "N/m", "> 0");
  AddRow(contact, "contact.mpm_dissipation", "dissipation (MPM)", scene.contact.mpm_dissipation, "s/m", "≥ 0");
  for (const MaterialDesc& m : scene.materials) {
    const std::string p = "materials." + m.name + ".";
    QFormLayout* form = group("Material " + QString::fromStdString(m.name));
    AddRow(form, p + "density", "ρ", m.density, "kg/m³", "> 0");
    const bool solid = m.model != MaterialModelDesc::kFluid;
    if (solid) {
      AddRow(form, p + "youngs_modulus", "E", m.youngs_modulus, "Pa", "> 0");
      AddRow(form, p + "poisson_ratio", "ν", m.poisson_ratio, "-", "(−1, 0.5)");
    }
    if (m.model == MaterialModelDesc::kLinearCorotated || m.model == MaterialModelDesc::kStvkHencky)
      AddRow(form, p + "yield_stress", "yield stress", m.yield_stress, "Pa", "≥ 0 (0: elastic)");
    if (m.model == MaterialModelDesc::kDruckerPrager) {
      AddRow(form, p + "friction_angle", "friction angle", m.friction_angle_deg, "deg", "[0, 90)");
      AddRow(form, p + "cohesion", "cohesion", m.cohesion, "-", "≥ 0");
    }
    if (m.model == MaterialModelDesc::kFluid) {
      AddRow(form, p + "bulk_modulus", "bulk modulus", m.bulk_modulus, "Pa", "> 0");
      AddRow(form, p + "gamma", "γ", m.gamma, "-", "≥ 1");
      AddRow(form, p + "viscosity", "viscosity", m.viscosity, "Pa·s", "≥ 0");
    }
    AddRow(form, p + "friction", "μ against rigid", m.friction >= 0 ? m.friction : scene.contact.friction, "-", "≥ 0");
  }
}

void Inspector::ShowResult(const QString& message, bool ok) {
  status_->setText(message);
  status_->setStyleSheet(ok ? QString() : QString("QLabel { color: #ff8a80; }"));
}

}  // namespace ductile::studio
