#pragma once

#include "repo/RevisionCatalog.h"

#include <QAbstractListModel>
#include <vector>

namespace pw::gui {

// The revisions a RevisionPicker offers, one row each, with a header row before each group
// (working tree, branches, remote branches, tags, recent commits). Headers are neither
// selectable nor completable. Edit role = the spec, display role = the label.
class RevisionChoiceModel : public QAbstractListModel
{
    Q_OBJECT
public:
    enum Role
    {
        SpecRole = Qt::UserRole + 1,
        DetailRole,
        KindRole,     // core::RevisionChoice::Kind as int
        IsHeaderRole, // bool
        TitleRole,    // a header's title ("Branches"); empty for choices
        SearchRole,   // what typed text is matched against: spec, label and detail
    };

    explicit RevisionChoiceModel(QObject *parent = nullptr);

    void setChoices(const std::vector<core::RevisionChoice> &choices);
    // Row of the choice whose spec is `spec`, or -1.
    int rowOfSpec(const QString &spec) const;
    static QString groupTitle(core::RevisionChoice::Kind kind);

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;

private:
    struct Row
    {
        bool header = false;
        core::RevisionChoice::Kind kind = core::RevisionChoice::Commit;
        QString spec, label, detail;
    };
    std::vector<Row> m_rows;
};

} // namespace pw::gui
