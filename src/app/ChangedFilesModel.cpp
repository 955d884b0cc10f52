#include "ChangedFilesModel.h"

#include "panels/SeverityStyle.h"

#include <QBrush>
#include <QColor>
#include <QFont>
#include <algorithm>
#include <functional>
#include <map>
#include <utility>

namespace pw::gui {

ChangedFilesModel::ChangedFilesModel(QObject *parent) : QAbstractItemModel(parent)
{
    m_nodes.push_back(Node{});
}

int ChangedFilesModel::childDir(int parent, const QString &name)
{
    for (int c : m_nodes[size_t(parent)].children) {
        if (!m_nodes[size_t(c)].isFile() && m_nodes[size_t(c)].name == name)
            return c;
    }
    Node dir;
    dir.name = name;
    dir.parent = parent;
    m_nodes.push_back(dir);
    const int id = int(m_nodes.size() - 1);
    m_nodes[size_t(parent)].children.push_back(id);
    return id;
}

void ChangedFilesModel::fold(int node)
{
    // A directory whose only child is a directory becomes "a/b".
    Node &n = m_nodes[size_t(node)];
    while (node != 0 && !n.isFile() && n.children.size() == 1 &&
           !m_nodes[size_t(n.children.front())].isFile()) {
        const int only = n.children.front();
        n.name += QLatin1Char('/') + m_nodes[size_t(only)].name;
        n.children = m_nodes[size_t(only)].children;
        for (int c : n.children)
            m_nodes[size_t(c)].parent = node;
    }
    // directories first, then files, each by name
    std::sort(n.children.begin(), n.children.end(), [this](int a, int b) {
        const Node &x = m_nodes[size_t(a)];
        const Node &y = m_nodes[size_t(b)];
        if (x.isFile() != y.isFile())
            return !x.isFile();
        return x.name < y.name;
    });
    for (int c : std::vector<int>(n.children))
        fold(c);
}

void ChangedFilesModel::aggregate(int node)
{
    Node &n = m_nodes[size_t(node)];
    if (n.isFile())
        return;
    n.block = n.review = n.info = 0;
    for (int c : n.children) {
        aggregate(c);
        n.block += m_nodes[size_t(c)].block;
        n.review += m_nodes[size_t(c)].review;
        n.info += m_nodes[size_t(c)].info;
    }
}

void ChangedFilesModel::setReport(const core::GateReport &report, const core::PatchDiff &diff)
{
    beginResetModel();
    m_nodes.assign(1, Node{});
    m_fileCount = 0;
    std::map<std::string, std::string> blobs;
    for (const core::FileDiff &f : diff.files)
        blobs[f.path()] = f.newBlob;
    std::map<std::string, int> byPath;
    for (const core::ChangedFile &f : report.changedFiles) {
        const QString path = QString::fromStdString(f.path);
        const QStringList parts = path.split(QLatin1Char('/'));
        int parent = 0;
        for (int i = 0; i + 1 < parts.size(); ++i)
            parent = childDir(parent, parts[i]);
        Node file;
        file.name = parts.last();
        file.path = path;
        file.oldPath = QString::fromStdString(f.oldPath);
        file.status = QString::fromStdString(f.status);
        file.blob = QString::fromStdString(blobs[f.path]);
        file.parent = parent;
        m_nodes.push_back(file);
        const int id = int(m_nodes.size() - 1);
        m_nodes[size_t(parent)].children.push_back(id);
        byPath[f.path] = id;
        ++m_fileCount;
    }
    fold(0);
    count(report.findings);
    for (Node &n : m_nodes) {
        if (n.isFile())
            n.viewed = m_isViewed && !n.blob.isEmpty() && m_isViewed(n.path, n.blob);
    }
    endResetModel();
}

void ChangedFilesModel::count(const std::vector<core::Finding> &findings)
{
    std::map<QString, Node *> byPath;
    for (Node &n : m_nodes) {
        if (n.isFile()) {
            n.block = n.review = n.info = 0;
            byPath[n.path] = &n;
            if (!n.oldPath.isEmpty()) // a census finding on a renamed file's base path
                byPath.emplace(n.oldPath, &n);
        }
    }
    for (const core::Finding &f : findings) {
        auto it = byPath.find(QString::fromStdString(f.path));
        if (it == byPath.end() || f.satisfiedBy)
            continue;
        Node &n = *it->second;
        (f.severity == core::Severity::Block    ? n.block
         : f.severity == core::Severity::Review ? n.review
                                                : n.info)++;
    }
    aggregate(0);
}

void ChangedFilesModel::setFindings(const std::vector<core::Finding> &findings)
{
    if (m_nodes.size() <= 1)
        return;
    count(findings);
    // Every row of the tree (folded-away directories are no rows).
    const std::function<void(int)> touch = [&](int node) {
        const Node &n = m_nodes[size_t(node)];
        if (n.children.empty())
            return;
        const QModelIndex parent = node == 0 ? QModelIndex() : indexOfNode(node, 0);
        Q_EMIT dataChanged(index(0, 0, parent),
                           index(int(n.children.size()) - 1, columnCount(parent) - 1, parent));
        for (int c : n.children)
            touch(c);
    };
    touch(0);
}

void ChangedFilesModel::setViewedLookup(IsViewed lookup)
{
    m_isViewed = std::move(lookup);
    refreshViewed();
}

void ChangedFilesModel::refreshViewed()
{
    for (size_t i = 1; i < m_nodes.size(); ++i) {
        Node &n = m_nodes[i];
        if (!n.isFile())
            continue;
        const bool viewed = m_isViewed && !n.blob.isEmpty() && m_isViewed(n.path, n.blob);
        if (viewed != n.viewed) {
            n.viewed = viewed;
            const QModelIndex idx = indexOfNode(int(i), ViewedColumn);
            Q_EMIT dataChanged(idx, idx, {Qt::CheckStateRole});
        }
    }
}

int ChangedFilesModel::viewedCount() const
{
    return int(std::count_if(m_nodes.begin(), m_nodes.end(),
                             [](const Node &n) { return n.isFile() && n.viewed; }));
}

QModelIndex ChangedFilesModel::indexOfPath(const QString &path, int column) const
{
    for (size_t i = 1; i < m_nodes.size(); ++i) {
        if (m_nodes[i].path == path)
            return indexOfNode(int(i), column);
    }
    return {};
}

QModelIndex ChangedFilesModel::mostSevereFile() const
{
    int best = -1;
    for (size_t i = 1; i < m_nodes.size(); ++i) {
        const Node &n = m_nodes[i];
        if (!n.isFile())
            continue;
        if (best < 0 || std::pair(n.block, n.review) >
                            std::pair(m_nodes[size_t(best)].block, m_nodes[size_t(best)].review))
            best = int(i);
    }
    return best < 0 ? QModelIndex() : indexOfNode(best, NameColumn);
}

QStringList ChangedFilesModel::pathsInTreeOrder() const
{
    QStringList paths;
    collectPaths(0, paths);
    return paths;
}

void ChangedFilesModel::collectPaths(int node, QStringList &out) const
{
    const Node &n = m_nodes[size_t(node)];
    if (n.isFile())
        out << n.path;
    for (int c : n.children)
        collectPaths(c, out);
}

int ChangedFilesModel::nodeOf(const QModelIndex &index) const
{
    return index.isValid() ? int(index.internalId()) : 0;
}

QModelIndex ChangedFilesModel::indexOfNode(int node, int column) const
{
    if (node <= 0)
        return {};
    const Node &n = m_nodes[size_t(node)];
    const std::vector<int> &siblings = m_nodes[size_t(n.parent)].children;
    const auto it = std::find(siblings.begin(), siblings.end(), node);
    return createIndex(int(it - siblings.begin()), column, quintptr(node));
}

QModelIndex ChangedFilesModel::index(int row, int column, const QModelIndex &parent) const
{
    const Node &p = m_nodes[size_t(nodeOf(parent))];
    if (row < 0 || row >= int(p.children.size()) || column < 0 || column >= ColumnCount)
        return {};
    return createIndex(row, column, quintptr(p.children[size_t(row)]));
}

QModelIndex ChangedFilesModel::parent(const QModelIndex &child) const
{
    const int node = nodeOf(child);
    if (node <= 0)
        return {};
    return indexOfNode(m_nodes[size_t(node)].parent, NameColumn);
}

int ChangedFilesModel::rowCount(const QModelIndex &parent) const
{
    if (parent.isValid() && parent.column() != NameColumn)
        return 0;
    return int(m_nodes[size_t(nodeOf(parent))].children.size());
}

int ChangedFilesModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

QVariant ChangedFilesModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid())
        return {};
    const Node &n = m_nodes[size_t(nodeOf(index))];
    switch (role) {
    case PathRole:
        return n.path;
    case BlobRole:
        return n.blob;
    case IsFileRole:
        return n.isFile();
    case BlockCountRole:
        return n.block;
    case Qt::ToolTipRole:
        if (n.isFile()) {
            return n.oldPath.isEmpty() ? n.path : tr("%1\nrenamed from %2").arg(n.path, n.oldPath);
        }
        return {};
    case Qt::DisplayRole:
        switch (index.column()) {
        case NameColumn:
            return n.name;
        case StatusColumn:
            return n.status;
        case BadgeColumn: {
            QStringList parts;
            if (n.block)
                parts << tr("%n block", nullptr, n.block);
            if (n.review)
                parts << tr("%n review", nullptr, n.review);
            return parts.join(QStringLiteral(" · "));
        }
        }
        return {};
    case Qt::CheckStateRole:
        if (index.column() == ViewedColumn && n.isFile())
            return n.viewed ? Qt::Checked : Qt::Unchecked;
        return {};
    case Qt::ForegroundRole:
        // Readable on the palette's base, light or dark.
        if (index.column() == BadgeColumn && (n.block || n.review))
            return severity_style::textData(n.block ? severity_style::Tone::Block
                                                    : severity_style::Tone::Review);
        if (index.column() == StatusColumn) {
            if (n.status == QLatin1String("A"))
                return severity_style::textData(severity_style::Tone::Good);
            if (n.status == QLatin1String("D"))
                return severity_style::textData(severity_style::Tone::Block);
        }
        return {};
    case Qt::FontRole:
        if (index.column() == NameColumn && n.isFile() && n.viewed) {
            QFont f;
            f.setItalic(true);
            return f;
        }
        return {};
    }
    return {};
}

bool ChangedFilesModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (!index.isValid() || index.column() != ViewedColumn || role != Qt::CheckStateRole)
        return false;
    Node &n = m_nodes[size_t(nodeOf(index))];
    if (!n.isFile() || n.blob.isEmpty())
        return false;
    n.viewed = value.toInt() == Qt::Checked;
    Q_EMIT dataChanged(index, index, {Qt::CheckStateRole});
    const QModelIndex name = indexOfNode(nodeOf(index), NameColumn);
    Q_EMIT dataChanged(name, name, {Qt::FontRole});
    Q_EMIT viewedToggled(n.path, n.blob, n.viewed);
    return true;
}

Qt::ItemFlags ChangedFilesModel::flags(const QModelIndex &index) const
{
    Qt::ItemFlags f = QAbstractItemModel::flags(index);
    if (index.isValid() && index.column() == ViewedColumn) {
        const Node &n = m_nodes[size_t(nodeOf(index))];
        if (n.isFile() && !n.blob.isEmpty())
            f |= Qt::ItemIsUserCheckable;
    }
    return f;
}

QVariant ChangedFilesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn:
        return tr("File");
    case StatusColumn:
        return tr("St");
    case BadgeColumn:
        return tr("Findings");
    case ViewedColumn:
        return tr("Viewed");
    }
    return {};
}

} // namespace pw::gui
