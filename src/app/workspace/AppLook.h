#pragma once

#include <QIcon>
#include <QPalette>
#include <QString>

namespace pw::gui {

// The application's icon, painted (no image files to ship or go stale): a magnifier over
// two diff bars, removed and added, with a check in the lens — a patch looked at closely.
// Sizes 16 to 256; the window and the desktop file use it (`patchwitness --write-icon`).
QIcon appIcon();
QImage appIconImage(int size);

// `--palette light|dark`: the Fusion style with a light or a dark palette, whatever the
// desktop's, so screenshots and contrast checks of both are made by the app itself. False
// for an unknown name ("system" keeps the desktop's and returns true).
bool applyPalette(const QString &name);
QPalette darkPalette();

} // namespace pw::gui
