#include "ShortcutsDialog.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMap>
#include <QTableWidget>
#include <QVBoxLayout>

namespace pw::gui {
namespace {

// Where an action's shortcut works: the panel (dock) it belongs to when it is bound to a
// widget, else the whole window.
QString whereOf(const QAction *a)
{
    if (a->shortcutContext() == Qt::WindowShortcut ||
        a->shortcutContext() == Qt::ApplicationShortcut)
        return {};
    for (const QObject *o = a->parent(); o; o = o->parent()) {
        if (const auto *dock = qobject_cast<const QDockWidget *>(o))
            return dock->windowTitle().remove(QLatin1Char('&'));
    }
    return {};
}

} // namespace

ShortcutsDialog::ShortcutsDialog(QWidget *window) : QDialog(window)
{
    setWindowTitle(tr("Keyboard Shortcuts"));
    auto *search = new QLineEdit(this);
    search->setObjectName(QStringLiteral("shortcutsSearch"));
    search->setPlaceholderText(tr("Search keys, actions or panels"));
    search->setClearButtonEnabled(true);
    auto *table = new QTableWidget(this);
    table->setObjectName(QStringLiteral("shortcutsTable"));
    table->setColumnCount(3);
    table->setHorizontalHeaderLabels({tr("Keys"), tr("Action"), tr("Where")});
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->verticalHeader()->hide();

    // One row per keys and action: a shortcut every panel binds (Copy) is listed once, with
    // the panels it works in.
    QMap<QPair<QString, QString>, QStringList> rows;
    auto add = [&rows](const QString &keys, const QString &what, const QString &where) {
        QStringList &places = rows[{what, keys}];
        if (!places.contains(where))
            places << where;
    };
    for (QAction *a : window->findChildren<QAction *>()) {
        if (!a->shortcut().isEmpty())
            add(a->shortcut().toString(QKeySequence::NativeText),
                a->text().remove(QLatin1Char('&')), whereOf(a));
    }
    add(QStringLiteral("n / p"), tr("Diff: next / previous hunk"), tr("Diff"));
    add(QStringLiteral("] / ["), tr("Diff: next / previous finding"), tr("Diff"));
    for (auto it = rows.cbegin(); it != rows.cend(); ++it) {
        QStringList places = it.value();
        const bool everywhere = places.contains(QString());
        places.removeAll(QString());
        places.sort();
        const int row = table->rowCount();
        table->insertRow(row);
        table->setItem(row, 0, new QTableWidgetItem(it.key().second));
        table->setItem(row, 1, new QTableWidgetItem(it.key().first));
        auto *where =
            new QTableWidgetItem(everywhere ? tr("Window") : places.join(QStringLiteral(", ")));
        where->setToolTip(where->text());
        table->setItem(row, 2, where);
    }
    table->sortItems(1);
    table->horizontalHeader()->setStretchLastSection(true);
    table->resizeColumnsToContents();

    auto *none = new QLabel(tr("No shortcut matches."), this);
    none->setObjectName(QStringLiteral("shortcutsNone"));
    none->hide();
    connect(search, &QLineEdit::textChanged, this, [table, none](const QString &text) {
        const QString needle = text.trimmed();
        int shown = 0;
        for (int r = 0; r < table->rowCount(); ++r) {
            bool match = needle.isEmpty();
            for (int c = 0; c < table->columnCount() && !match; ++c)
                match = table->item(r, c)->text().contains(needle, Qt::CaseInsensitive);
            table->setRowHidden(r, !match);
            shown += match ? 1 : 0;
        }
        none->setVisible(shown == 0);
    });

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(search);
    layout->addWidget(table);
    layout->addWidget(none);
    layout->addWidget(buttons);
    resize(640, 560);
    search->setFocus();
}

} // namespace pw::gui
