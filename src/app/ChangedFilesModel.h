#pragma once

#include "audit/GateReport.h"
#include "repo/PatchDiff.h"

#include <QAbstractItemModel>
#include <QStringList>
#include <functional>
#include <vector>

namespace pw::gui {

// The patch's changed files as a directory tree (single-child directory chains folded,
// "tests/fixtures"), with status, finding badges and a "viewed" check mark per file.
// Viewed marks belong to (path, head blob id): the model asks `isViewed` and reports
// toggles; persistence is the owner's job (ViewedMarks).
class ChangedFilesModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Column
    {
        NameColumn,
        StatusColumn,
        BadgeColumn,
        ViewedColumn,
        ColumnCount
    };
    enum Role
    {
        PathRole = Qt::UserRole + 1,
        BlobRole,
        IsFileRole,
        BlockCountRole
    };
    using IsViewed = std::function<bool(const QString &path, const QString &blob)>;

    explicit ChangedFilesModel(QObject *parent = nullptr);

    void setReport(const core::GateReport &report, const core::PatchDiff &diff);
    // Recounts the badges from `findings` (the report's plus what runs found since),
    // keeping the tree, its selection and expansion.
    void setFindings(const std::vector<core::Finding> &findings);
    void setViewedLookup(IsViewed lookup);
    void refreshViewed();

    QModelIndex indexOfPath(const QString &path, int column = NameColumn) const;
    // The file a reviewer should see first: most blocking, then most review findings.
    QModelIndex mostSevereFile() const;
    // Every file's path in the tree's order (directories first, each by name, depth first):
    // the order Ctrl+PgDown walks and the Findings panel's Location column sorts by.
    QStringList pathsInTreeOrder() const;
    int fileCount() const { return m_fileCount; }
    int viewedCount() const;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role) override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

Q_SIGNALS:
    void viewedToggled(const QString &path, const QString &blob, bool viewed);

private:
    struct Node
    {
        QString name; // display name (folded directory chain or file name)
        QString path; // full path for files, empty for directories
        QString oldPath;
        QString status;
        QString blob; // head blob id (empty when deleted)
        int parent = -1;
        std::vector<int> children;
        int block = 0;
        int review = 0;
        int info = 0;
        bool viewed = false;
        bool isFile() const { return !path.isEmpty(); }
    };
    int nodeOf(const QModelIndex &index) const;
    QModelIndex indexOfNode(int node, int column) const;
    int childDir(int parent, const QString &name);
    void fold(int node);
    void aggregate(int node);
    void count(const std::vector<core::Finding> &findings); // files' badges, then aggregate
    void collectPaths(int node, QStringList &out) const;

    std::vector<Node> m_nodes; // m_nodes[0] is the invisible root
    IsViewed m_isViewed;
    int m_fileCount = 0;
};

} // namespace pw::gui
