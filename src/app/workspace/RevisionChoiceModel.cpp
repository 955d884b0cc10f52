#include "workspace/RevisionChoiceModel.h"

namespace pw::gui {

RevisionChoiceModel::RevisionChoiceModel(QObject *parent) : QAbstractListModel(parent) {}

QString RevisionChoiceModel::groupTitle(core::RevisionChoice::Kind kind)
{
    switch (kind) {
    case core::RevisionChoice::Worktree:
        return tr("Working tree");
    case core::RevisionChoice::Branch:
        return tr("Branches");
    case core::RevisionChoice::RemoteBranch:
        return tr("Remote branches");
    case core::RevisionChoice::Tag:
        return tr("Tags");
    case core::RevisionChoice::Commit:
        return tr("Recent commits");
    }
    return {};
}

void RevisionChoiceModel::setChoices(const std::vector<core::RevisionChoice> &choices)
{
    beginResetModel();
    m_rows.clear();
    m_rows.reserve(choices.size() + 5);
    for (size_t i = 0; i < choices.size(); ++i) {
        const core::RevisionChoice &c = choices[i];
        if (i == 0 || choices[i - 1].kind != c.kind) {
            Row header;
            header.header = true;
            header.kind = c.kind;
            m_rows.push_back(std::move(header));
        }
        m_rows.push_back({false, c.kind, QString::fromStdString(c.spec),
                          QString::fromStdString(c.label), QString::fromStdString(c.detail)});
    }
    endResetModel();
}

int RevisionChoiceModel::rowOfSpec(const QString &spec) const
{
    if (spec.isEmpty())
        return -1;
    for (size_t i = 0; i < m_rows.size(); ++i) {
        if (!m_rows[i].header && m_rows[i].spec == spec)
            return int(i);
    }
    return -1;
}

int RevisionChoiceModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

QVariant RevisionChoiceModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_rows.size()))
        return {};
    const Row &row = m_rows[size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        // A header has no display text: QComboBox matches typed text against the display
        // role on Enter, and "tags" must not select the "Tags" header.
        return row.header ? QVariant() : QVariant(row.label);
    case Qt::EditRole:
    case SpecRole:
        return row.header ? QString() : row.spec;
    case Qt::ToolTipRole:
        if (row.header)
            return {};
        return row.detail.isEmpty() ? row.spec : QString(row.spec + QLatin1Char('\n') + row.detail);
    case Qt::AccessibleTextRole:
        return row.header ? groupTitle(row.kind) : row.label;
    case DetailRole:
        return row.detail;
    case KindRole:
        return int(row.kind);
    case IsHeaderRole:
        return row.header;
    case TitleRole:
        return row.header ? groupTitle(row.kind) : QString();
    case SearchRole:
        return row.header ? QString()
                          : QString(row.spec + QLatin1Char(' ') + row.label + QLatin1Char(' ') +
                                    row.detail);
    default:
        return {};
    }
}

Qt::ItemFlags RevisionChoiceModel::flags(const QModelIndex &index) const
{
    if (!index.isValid() || index.row() >= int(m_rows.size()))
        return Qt::NoItemFlags;
    if (m_rows[size_t(index.row())].header)
        return Qt::ItemNeverHasChildren;
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemNeverHasChildren;
}

} // namespace pw::gui
