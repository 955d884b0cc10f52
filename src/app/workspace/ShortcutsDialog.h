#pragma once

#include <QDialog>

namespace pw::gui {

// Help > Keyboard Shortcuts: every shortcut of `window`'s actions, plus the diff view's own
// keys, sorted by what they do, one row per keys and action with where it works (the window,
// or the panels that bind it), and a search over all three.
class ShortcutsDialog : public QDialog
{
    Q_OBJECT
public:
    explicit ShortcutsDialog(QWidget *window);
};

} // namespace pw::gui
