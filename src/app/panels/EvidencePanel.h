#pragma once

#include "audit/Finding.h"

#include <QList>
#include <QWidget>
#include <optional>

class QAbstractItemModel;
class QAction;
class QLabel;
class QLineEdit;
class QModelIndex;
class QToolButton;
class QTreeView;

namespace pw::gui {

class EvidenceProxyModel;

// One evidence panel: an optional summary line, a filter box, an "only <file>" chip and a
// sortable tree view over any model that answers the EvidenceRole roles. Copy puts the
// selected rows on the clipboard as tab-separated text with a header line.
//
// Object names (for tests and style sheets): summary, filter, fileFilterChip, followFileButton,
// rowCount, view.
// The panel never touches libgit2; it only speaks paths, lines and test ids.
class EvidencePanel : public QWidget
{
    Q_OBJECT
public:
    explicit EvidencePanel(QWidget *parent = nullptr);
    ~EvidencePanel() override;

    // The panel does not own the model. Sorting returns to the model's own order.
    void setModel(QAbstractItemModel *source);
    QAbstractItemModel *model() const;
    EvidenceProxyModel *proxy() const { return m_proxy; }
    QTreeView *view() const { return m_view; }

    // The label above the filter; hidden while empty. Severity -1 or 0: neutral,
    // 1 review (amber), 2 block (red).
    void setSummary(const QString &text);
    // Colours the summary line (nullopt: nothing judged yet; info is not coloured either).
    void setSummarySeverity(std::optional<core::Severity> severity);
    QString summary() const;

    // Only rows whose PathRole equals path; empty shows every row. Shown as a chip
    // "only <path> ✕" that clears the filter when clicked.
    void setFileFilter(const QString &path);
    QString fileFilter() const;
    void setFilterText(const QString &text); // same as typing into the filter box

    // The file the window shows. While the panel follows it (the default) it filters to
    // that file; the chip's ✕ stops following and shows every row, the "only current file"
    // button (followFileButton) follows again. Both emit followsFileChanged, so the window
    // keeps every panel in step.
    void setCurrentFile(const QString &path);
    void setFollowsFile(bool follow);
    bool followsFile() const { return m_followsFile; }

    // The column that names a row (test id, path): when the view is too narrow for every
    // column, it may stay twice as wide as the others before it is elided. Default 0.
    void setPrimaryColumn(int column);

    // Column and order to sort by; column -1 is the model's own order.
    void sortBy(int column, Qt::SortOrder order = Qt::AscendingOrder);

    // Select (and scroll to) the first visible row at path+line, else the first at path.
    // Emits nothing: this is how the window mirrors a selection made elsewhere.
    bool selectRow(const QString &path, int line);
    // Selects the row showing row `sourceRow` of the model, quietly as selectRow; false
    // while a filter hides it.
    bool selectSourceRow(int sourceRow);
    int currentSourceRow() const; // -1: no current row

    // The selected rows (or the current row) as TSV with a header line; copy() puts it on
    // the clipboard.
    QString selectedRowsAsText() const;
    void copy();

Q_SIGNALS:
    // The current row changed by a click or the keyboard, or a row was activated (Enter,
    // double-click). Not emitted for selectRow(), filtering, sorting or a model reset.
    void rowActivated(const QString &path, int line, const QString &test);
    void fileFilterChanged(const QString &path);
    void followsFileChanged(bool follow); // by the chip or the follow button

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void currentRowChanged(const QModelIndex &current);
    bool selectQuietly(const QModelIndex &match); // current and selected, no rowActivated
    void emitActivated(const QModelIndex &index);
    void updateRowCount();
    void fitColumns();
    static void shareWidth(QList<int> &widths, int available, int primary);
    void beginQuiet() { ++m_quiet; }
    void endQuiet() { m_quiet = m_quiet > 0 ? m_quiet - 1 : 0; }

    EvidenceProxyModel *m_proxy;
    QLabel *m_summary;
    QLineEdit *m_filter;
    QToolButton *m_fileChip;
    QToolButton *m_followButton;
    QLabel *m_rowCount;
    QTreeView *m_view;
    QAction *m_copyAction;
    int m_quiet = 0;       // > 0 while the current row moves for reasons other than the user
    int m_refiltering = 0; // > 0 while a filter changes
    bool m_fittedWithRows = false; // the columns were fitted to rows (not only the header)
    int m_primaryColumn = 0;
    bool m_fitting = false;
    bool m_userSizedColumns = false;
    bool m_followsFile = true;
    QString m_currentFile;
};

} // namespace pw::gui
