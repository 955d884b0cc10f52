#pragma once

#include <QDialog>

namespace pw::gui {

// Help > Keyboard Shortcuts: every shortcut of `window`'s actions, plus the diff view's and
// the panels' own keys, sorted by what they do.
class ShortcutsDialog : public QDialog
{
    Q_OBJECT
public:
    explicit ShortcutsDialog(QWidget *window);
};

} // namespace pw::gui
