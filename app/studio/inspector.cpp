#include "inspector.h"

#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QVBoxLayout>
#include <algorithm>

namespace ductile::studio {
namespace {

constexpr const char* kHint = "Edit a value and press Enter: it applies at the next step.";
// The widest label kept on one line [px]: with the margins below, a label and its field fit one under the other in
// the narrowest left panel (240 px, docs/studio.md).
constexpr int kLongLabel = 170;
// The narrowest a field gets beside its label [px]: one that would be narrower goes under it (a vector's three
// numbers stay in sight).
constexpr int kFieldLeast = 110;

QString Q(const std::string& text) {
  return QString::fromStdString(text);
}

// The group a parameter is shown in: its section, or its section's entry ("Material dough").
QString GroupTitle(const SceneParameter& p) {
  const std::string section = p.key.substr(0, p.key.find('.'));
  if (p.names.empty()) {
    if (section == "simulation") return "Simulation";
    if (section == "grid") return "Grid";
    if (section == "ipc") return "IPC contact";
    if (section == "pd") return "Projective dynamics";
    return "Contact";
  }
  static const std::map<std::string, std::string> nouns{
      {"materials", "Material"},      {"objects", "Object"},        {"colliders", "Collider"},
      {"rigid_bodies", "Rigid body"}, {"robots", "Robot"},          {"welds", "Weld"},
      {"cameras", "Camera"},          {"soft_bodies", "Soft body"}, {"affine_bodies", "Affine body"},
      {"pd_bodies", "PD body"}};
  const auto noun = nouns.find(section);
  return Q((noun == nouns.end() ? section : noun->second) + " " + p.names.front());
}

// "Young's modulus E [Pa]"; a parameter of a joint or keyframe of the entry starts with it ("iiwa_joint_1: ...").
QString Label(const SceneParameter& p) {
  const ParameterInfo& row = *p.info;
  std::string label = (p.names.size() > 1 ? p.names[1] + ": " : "") + row.name;
  if (row.symbol != row.name) label += " " + row.symbol;
  if (!row.unit.empty()) label += " [" + row.unit + "]";
  return Q(label);
}

// A row's documentation (Markdown, as docs/scene-format.md shows it) as a tooltip reads it: code marks dropped, a
// link's text without its target, escaped pipes plain, wrapped at about 90 characters (Qt does not wrap plain text).
std::string PlainDoc(const std::string& markdown) {
  std::string plain;
  for (std::size_t i = 0; i < markdown.size(); ++i) {
    const char c = markdown[i];
    if (c == '`' || c == '[' || (c == '\\' && i + 1 < markdown.size() && markdown[i + 1] == '|')) continue;
    if (c == ']' && i + 1 < markdown.size() && markdown[i + 1] == '(') {
      i = std::min(markdown.find(')', i), markdown.size() - 1);
      continue;
    }
    plain += c;
  }
  constexpr std::size_t kWidth = 90;
  std::size_t line_start = 0, last_space = std::string::npos;
  for (std::size_t i = 0; i < plain.size(); ++i) {
    if (plain[i] == ' ') last_space = i;
    if (i - line_start >= kWidth && last_space != std::string::npos && last_space > line_start) {
      plain[last_space] = '\n';
      line_start = last_space + 1;
      last_space = std::string::npos;
    }
  }
  return plain;
}

// The key, the line of documentation, the valid values, the default and when a change applies.
QString Tooltip(const SceneParameter& p) {
  const ParameterInfo& row = *p.info;
  const std::string range = row.range_note.empty() ? row.range.Notation() : row.range_note;
  const auto number = [](double x) { return QString::number(x, 'g', 10).toStdString(); };
  const Vector3& v = row.default_vector;
  std::string def = row.default_note;
  if (def.empty() && row.type == ParameterType::kChoice)
    def = row.choices.at(static_cast<std::size_t>(row.default_value));
  if (def.empty())
    def = row.type == ParameterType::kVector ? "[" + number(v[0]) + ", " + number(v[1]) + ", " + number(v[2]) + "]"
                                             : number(row.default_value);
  std::string when = "live: applies at the next step";
  if (row.apply == ParameterApply::kReset) when = "needs a reset: it " + row.reason;
  if (row.apply == ParameterApply::kReload) when = "needs the scene loaded again: it " + row.reason;
  return Q(p.key + "\n" + row.name + " " + row.symbol + (row.unit.empty() ? "" : " [" + row.unit + "]") + "\n" +
           PlainDoc(row.doc) + "\n" + PlainDoc("valid: " + range + "; default: " + def) + "\n" + when);
}

}  // namespace

Inspector::Inspector(QWidget* parent) : QWidget(parent) {
  // Thin margins: the width goes to the labels and fields.
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  scroll_ = new QScrollArea;
  scroll_->setWidgetResizable(true);
  content_ = new QWidget;
  groups_ = new QVBoxLayout(content_);
  groups_->setContentsMargins(4, 4, 4, 4);
  groups_->addStretch(1);
  scroll_->setWidget(content_);
  layout->addWidget(scroll_, 1);
  QScrollBar* bar = scroll_->verticalScrollBar();
  connect(bar, &QScrollBar::rangeChanged, this, [this, bar] {
    if (shown_entry_) bar->setValue(shown_entry_->y());
  });
  connect(bar, &QScrollBar::actionTriggered, this, [this] { shown_entry_ = nullptr; });
  status_ = new QLabel(kHint);
  status_->setWordWrap(true);
  status_->setObjectName("inspector_status");
  layout->addWidget(status_);
}

QLineEdit* Inspector::field(const std::string& key) const {
  const auto it = fields_.find(key);
  return it == fields_.end() ? nullptr : it->second;
}

bool Inspector::ShowEntry(const std::string& prefix) {
  const auto first = fields_.lower_bound(prefix + ".");
  if (first == fields_.end() || first->first.compare(0, prefix.size() + 1, prefix + ".") != 0) return false;
  // The field's group box: its top at the top of the view, now and while the content's layout settles (a panel
  // just opened or resized changes the content's height in steps), until the user scrolls.
  shown_entry_ = first->second->parentWidget();
  scroll_->verticalScrollBar()->setValue(shown_entry_->y());
  return true;
}

QFormLayout* Inspector::Group(const SceneParameter& parameter) {
  const QString title = GroupTitle(parameter);
  QFormLayout*& form = forms_[title.toStdString()];
  if (form == nullptr) {
    auto* box = new QGroupBox(title);
    form = new QFormLayout(box);
    // In a narrow panel a field goes under its label rather than out of sight.
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    groups_->insertWidget(groups_->count() - 1, box);
  }
  return form;
}

std::string Inspector::Check(const SceneParameter& parameter, const std::string& text) const {
  std::string problem = CheckParameter(scene_, parameter.key, text);
  if (problem.empty() && parameter.info->apply != ParameterApply::kLive && validate_)
    problem = validate_(parameter.key, text);
  return problem;
}

void Inspector::AddRow(QFormLayout* form, const SceneParameter& parameter) {
  auto* edit = new QLineEdit(Q(parameter.value));
  edit->setObjectName(Q(parameter.key));
  edit->setPlaceholderText(Q(parameter.info->default_note).remove('`'));
  edit->setToolTip(Tooltip(parameter));
  edit->setMinimumWidth(kFieldLeast);
  auto* label = new QLabel(Label(parameter));
  label->setToolTip(edit->toolTip());
  if (parameter.info->apply != ParameterApply::kLive) label->setStyleSheet("QLabel { color: gray; }");
  if (label->sizeHint().width() > kLongLabel) {
    // A long label (a joint's) on a line of its own, wrapped in a narrow panel, and its field under it: beside it,
    // it would widen every group past a narrow panel.
    label->setWordWrap(true);
    form->addRow(label);
    form->addRow(edit);
  } else {
    form->addRow(label, edit);
  }
  fields_[parameter.key] = edit;
  connect(edit, &QLineEdit::editingFinished, this, [this, edit, parameter] {
    if (!edit->isModified()) return;
    edit->setModified(false);
    const std::string text = edit->text().trimmed().toStdString();
    const std::string problem = Check(parameter, text);
    if (!problem.empty()) {
      edit->setStyleSheet("QLineEdit { background: #5a2a2a; }");
      ShowResult(Q(problem), false);
      return;
    }
    edit->setStyleSheet({});
    emit edited(Q(parameter.key), Q(text));
  });
}

void Inspector::SetScene(const SceneDesc& scene, Validator validate) {
  scene_ = scene;
  validate_ = std::move(validate);
  ShowResult(kHint, true);  // a refusal shown for the last scene's fields does not concern this one's
  fields_.clear();
  forms_.clear();
  shown_entry_ = nullptr;
  while (groups_->count() > 1) {  // keep the stretch at the end
    QLayoutItem* item = groups_->takeAt(0);
    delete item->widget();
    delete item;
  }
  for (const SceneParameter& parameter : ListParameters(scene)) AddRow(Group(parameter), parameter);
}

void Inspector::ShowResult(const QString& message, bool ok) {
  status_->setText(message);
  status_->setStyleSheet(ok ? QString() : QString("QLabel { color: #ff8a80; }"));
}

}  // namespace ductile::studio
