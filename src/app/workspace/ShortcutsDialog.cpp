#include "ShortcutsDialog.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QTableWidget>
#include <QVBoxLayout>

namespace pw::gui {

ShortcutsDialog::ShortcutsDialog(QWidget *window) : QDialog(window)
{
    setWindowTitle(tr("Keyboard Shortcuts"));
    auto *table = new QTableWidget(this);
    table->setObjectName(QStringLiteral("shortcutsTable"));
    table->setColumnCount(2);
    table->setHorizontalHeaderLabels({tr("Keys"), tr("Action")});
    auto add = [table](const QString &keys, const QString &what) {
        const int row = table->rowCount();
        table->insertRow(row);
        table->setItem(row, 0, new QTableWidgetItem(keys));
        table->setItem(row, 1, new QTableWidgetItem(what));
    };
    for (QAction *a : window->findChildren<QAction *>()) {
        if (!a->shortcut().isEmpty())
            add(a->shortcut().toString(QKeySequence::NativeText),
                a->text().remove(QLatin1Char('&')));
    }
    add(QStringLiteral("n / p"), tr("Diff: next / previous hunk"));
    add(QStringLiteral("] / ["), tr("Diff: next / previous finding"));
    add(QStringLiteral("Ctrl+F"), tr("Panel: filter rows"));
    add(QStringLiteral("Ctrl+C"), tr("Panel: copy selected rows"));
    table->sortItems(1);
    table->horizontalHeader()->setStretchLastSection(true);
    table->resizeColumnsToContents();
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(table);
    layout->addWidget(buttons);
    resize(520, 560);
}

} // namespace pw::gui
