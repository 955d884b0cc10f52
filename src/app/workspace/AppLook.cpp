#include "workspace/AppLook.h"

#include <QApplication>
#include <QImage>
#include <QPainter>
#include <QPainterPath>
#include <QPixmap>
#include <QStyle>
#include <QStyleFactory>

namespace pw::gui {

QImage appIconImage(int size)
{
    QImage image(size, size, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::transparent);
    QPainter p(&image);
    p.setRenderHint(QPainter::Antialiasing);
    p.scale(size / 64.0, size / 64.0); // drawn on a 64-unit grid

    // The tile.
    p.setPen(Qt::NoPen);
    p.setBrush(QColor(0x1d, 0x3f, 0x5e));
    p.drawRoundedRect(QRectF(2, 2, 60, 60), 12, 12);
    // Two diff bars: a removed line over an added one.
    p.setBrush(QColor(0xe5, 0x73, 0x73));
    p.drawRoundedRect(QRectF(9, 13, 30, 7), 3.5, 3.5);
    p.setBrush(QColor(0x81, 0xc7, 0x84));
    p.drawRoundedRect(QRectF(9, 25, 22, 7), 3.5, 3.5);
    // The magnifier: a lens with a check mark, its handle to the lower right.
    const QPointF centre(36, 38);
    p.setPen(QPen(QColor(0xff, 0xff, 0xff), 5.5, Qt::SolidLine, Qt::RoundCap));
    p.drawLine(centre + QPointF(10.5, 10.5), QPointF(55, 55));
    p.setBrush(QColor(0x1d, 0x3f, 0x5e, 210));
    p.setPen(QPen(QColor(0xff, 0xff, 0xff), 4.5));
    p.drawEllipse(centre, 14, 14);
    QPainterPath check;
    check.moveTo(centre + QPointF(-7, 0.5));
    check.lineTo(centre + QPointF(-2, 5.5));
    check.lineTo(centre + QPointF(7.5, -5.5));
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(QColor(0xff, 0xd5, 0x4f), 4, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    p.drawPath(check);
    p.end();
    return image;
}

QIcon appIcon()
{
    QIcon icon;
    for (int size : {16, 24, 32, 48, 64, 128, 256})
        icon.addPixmap(QPixmap::fromImage(appIconImage(size)));
    return icon;
}

QPalette darkPalette()
{
    QPalette p;
    const QColor window(0x2b, 0x2d, 0x31), base(0x1e, 0x1f, 0x22), text(0xe6, 0xe6, 0xe6);
    const QColor disabled(0x8a, 0x8c, 0x90);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(0x26, 0x28, 0x2b));
    p.setColor(QPalette::ToolTipBase, QColor(0x3c, 0x3f, 0x44));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, disabled);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, QColor(0x35, 0x37, 0x3c));
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(0xff, 0x8a, 0x80));
    p.setColor(QPalette::Light, QColor(0x4a, 0x4d, 0x53));
    p.setColor(QPalette::Midlight, QColor(0x3e, 0x41, 0x46));
    p.setColor(QPalette::Mid, QColor(0x24, 0x25, 0x28));
    p.setColor(QPalette::Dark, QColor(0x18, 0x19, 0x1b));
    p.setColor(QPalette::Shadow, QColor(0x0c, 0x0c, 0x0d));
    p.setColor(QPalette::Highlight, QColor(0x3d, 0x7e, 0xc6));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(0x8a, 0xb4, 0xf8));
    p.setColor(QPalette::LinkVisited, QColor(0xc5, 0x8a, 0xf9));
    for (QPalette::ColorRole role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, disabled);
    return p;
}

bool applyPalette(const QString &name)
{
    if (name.isEmpty() || name == QLatin1String("system"))
        return true;
    if (name != QLatin1String("light") && name != QLatin1String("dark"))
        return false;
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    QApplication::setPalette(
        name == QLatin1String("dark") ? darkPalette() : QApplication::style()->standardPalette());
    return true;
}

} // namespace pw::gui
