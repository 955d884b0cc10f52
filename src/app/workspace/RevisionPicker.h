#pragma once

#include "repo/RevisionCatalog.h"
// The loader that fills pickers travels with them.
#include "workspace/RevisionLoader.h"

#include <QComboBox>
#include <vector>

namespace pw::gui {

class RevisionChoiceModel;

// Base or head picker: an editable combo box listing the repository's
// revisions grouped under headers (working tree, branches, remote branches, tags, recent
// commits with subject, author and age), completing typed text against spec, label and
// detail. Whatever is typed wins: spec() is the text in the box, and picking an item puts
// its spec there (a commit's full id). Empty means "the default".
class RevisionPicker : public QComboBox
{
    Q_OBJECT
public:
    explicit RevisionPicker(QWidget *parent = nullptr);

    // Keeps the current text (typed or chosen) across the refill.
    void setChoices(const std::vector<core::RevisionChoice> &choices);
    QString spec() const;
    void setSpec(const QString &spec);
    // The spec an empty box stands for, shown as placeholder ("default: merge-base with
    // main"); empty: just "default".
    void setDefaultSpec(const QString &spec);
    // "merge-base(main,HEAD)" → "merge-base with main"; other specs as they are.
    static QString describeSpec(const QString &spec);

    RevisionChoiceModel *choiceModel() const { return m_model; }
    // As wide as the widest label and detail (up to a limit), not just as the box.
    void showPopup() override;

Q_SIGNALS:
    // The user picked an item (popup or completion) or pressed Enter: once per action.
    void specChosen(const QString &spec);

private:
    void scheduleChosen();
    void fitPopupWidth();

    RevisionChoiceModel *m_model;
    bool m_chosenPending = false;
    int m_popupWidth = 0;
};

} // namespace pw::gui
