"""The timeline as an SVG picture: one row per fact, its values as bars over a date axis (pure)."""

from __future__ import annotations

from datetime import date, timedelta
from html import escape

from mdmem.lang.phrases import doc
from mdmem.read.timeline_formats import Row

COLOURS = {
    "archived": "#9ca3af", "active": "#16a34a", "tentative": "#0891b2",
    "uncertain": "#ca8a04", "expired": "#c026d3", "deleted": "#dc2626",
}  # fmt: skip
FONT = "system-ui, -apple-system, 'Segoe UI', 'Noto Sans', 'PingFang SC', 'Microsoft YaHei', sans-serif"
LABEL_W, CHART_W, ROW_H, BAR_H, TOP, PAD = 230, 820, 30, 18, 70, 16
LEGEND = (
    ("archived", "legend_archived"), ("active", "legend_active"),
    ("tentative", "legend_tentative"), ("uncertain", "legend_uncertain"),
    ("expired", "legend_expired"), ("deleted", "legend_deleted"),
)  # fmt: skip
RIGHT = 150  # room right of the chart for the labels of values that still hold


def _day(text: str) -> date:
    return date.fromisoformat(text[:10])


def _text_width(text: str, size: float = 12) -> float:
    """A rough width: CJK characters are about twice as wide as Latin ones."""
    return sum(size * (1.05 if ord(c) > 0x2E80 else 0.6) for c in text)


def _fit(text: str, width: float) -> str:
    if _text_width(text) <= width:
        return text
    while text and _text_width(text + "…") > width:
        text = text[:-1]
    return text + "…" if text else ""


def _ticks(first: date, last: date) -> list[date]:
    """First days of months, thinned to at most a dozen."""
    months = (last.year - first.year) * 12 + last.month - first.month + 1
    step = next(s for s in (1, 2, 3, 6, 12, 24, 60, 120) if months / s <= 12)
    out, y, m = [], first.year, first.month
    while date(y, m, 1) <= last:
        if date(y, m, 1) >= first and ((y * 12 + m - 1) % step == 0):
            out.append(date(y, m, 1))
        y, m = (y + 1, 1) if m == 12 else (y, m + 1)
    return out


def to_svg(rows: list[Row], *, today: str, title: str | None = None) -> str:
    """A standalone SVG document (open it in a browser)."""
    title = doc("gantt_title") if title is None else title
    days = [_day(b.start) for r in rows for b in r.bars] + [
        _day(b.end) for r in rows for b in r.bars
    ]
    days += [_day(m.day) for r in rows for m in r.markers] + [_day(today)]
    first, last = min(days), max(days)
    if (last - first).days < 30:
        first, last = first - timedelta(days=15), last + timedelta(days=15)
    span = max((last - first).days, 1)

    def x(d: str | date) -> float:
        dd = _day(d) if isinstance(d, str) else d
        return LABEL_W + CHART_W * (dd - first).days / span

    height = TOP + ROW_H * max(len(rows), 1) + 70
    width = LABEL_W + CHART_W + RIGHT
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="{escape(FONT)}" font-size="12">',
        f"<title>{escape(title)}</title>",
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
        f'<text x="{PAD}" y="26" font-size="16" font-weight="bold" fill="#111827">{escape(title)}</text>',
        f'<text x="{PAD}" y="46" fill="#6b7280">{first.isoformat()} – {last.isoformat()}'
        f"{doc('svg_facts', count=len(rows))}</text>",
    ]
    bottom = TOP + ROW_H * max(len(rows), 1)
    for t in _ticks(first, last):
        tx = x(t)
        out.append(
            f'<line x1="{tx:.1f}" y1="{TOP - 6}" x2="{tx:.1f}" y2="{bottom}" stroke="#e5e7eb"/>'
        )
        out.append(f'<text x="{tx:.1f}" y="{TOP - 10}" text-anchor="middle" fill="#6b7280" '
                   f'font-size="11">{t.strftime("%Y-%m")}</text>')  # fmt: skip
    for i, row in enumerate(rows):
        y = TOP + ROW_H * i
        if i % 2:
            out.append(f'<rect x="0" y="{y}" width="{width}" height="{ROW_H}" fill="#f9fafb"/>')
        out.append(f'<text x="{PAD}" y="{y + ROW_H / 2 + 4}" fill="#111827">'
                   f"{escape(_fit(row.fact, LABEL_W - PAD * 2))}</text>")  # fmt: skip
        by = y + (ROW_H - BAR_H) / 2
        for bar in row.bars:
            x1, x2 = x(bar.start), max(x(bar.end), x(bar.start) + 3)
            colour = COLOURS.get(bar.status, COLOURS["active"])
            tip = f"{bar.label} ({bar.start} – {doc('svg_now') if bar.open else bar.end}, {bar.status})"
            opacity = ' fill-opacity="0.85"' if bar.open else ""
            out.append(f'<g><title>{escape(tip)}</title><rect x="{x1:.1f}" y="{by:.1f}" '
                       f'width="{x2 - x1:.1f}" height="{BAR_H}" rx="3" fill="{colour}"{opacity}/>')  # fmt: skip
            if bar.open:
                out.append(
                    f'<path d="M{x2:.1f},{by:.1f} l6,{BAR_H / 2} l-6,{BAR_H / 2} z" fill="{colour}"/>'
                )
            label = _fit(bar.label, x2 - x1 - 8)
            if bar.open and label != bar.label:  # too short inside: write it after the arrow
                label = _fit(bar.label, RIGHT - 16)
                out.append(
                    f'<text x="{x2 + 10:.1f}" y="{by + BAR_H - 5:.1f}" fill="{colour}">{escape(label)}</text>'
                )
            elif label:
                out.append(
                    f'<text x="{x1 + 4:.1f}" y="{by + BAR_H - 5:.1f}" fill="#ffffff">{escape(label)}</text>'
                )
            out.append("</g>")
        for m in row.markers:
            mx, my = x(m.day), y + ROW_H / 2
            colour = COLOURS[m.kind]
            shape = (f'<path d="M{mx - 6:.1f},{my - 6:.1f} l12,12 M{mx + 6:.1f},{my - 6:.1f} l-12,12" '
                     f'stroke="{colour}" stroke-width="2.5"/>' if m.kind == "deleted" else
                     f'<path d="M{mx:.1f},{my - 7:.1f} l7,7 l-7,7 l-7,-7 z" fill="{colour}"/>')  # fmt: skip
            out.append(f"<g><title>{escape(f'{m.label} {m.day}')}</title>{shape}</g>")
    tx = x(today)
    out.append(f'<line x1="{tx:.1f}" y1="{TOP - 6}" x2="{tx:.1f}" y2="{bottom}" stroke="#2563eb" '
               f'stroke-dasharray="4 3"/><text x="{tx:.1f}" y="{bottom + 14}" text-anchor="middle" '
               f'fill="#2563eb" font-size="11">{escape(doc("svg_today", date=today[:10]))}</text>')  # fmt: skip
    if not rows:
        out.append(f'<text x="{LABEL_W}" y="{TOP + 20}" fill="#6b7280">{doc("svg_empty")}</text>')
    lx, ly = PAD, bottom + 40
    for name, key in LEGEND:
        word = doc(key)
        out.append(f'<rect x="{lx}" y="{ly - 10}" width="12" height="12" rx="2" fill="{COLOURS[name]}"/>'
                   f'<text x="{lx + 16}" y="{ly}" fill="#374151">{word}</text>')  # fmt: skip
        lx += 28 + int(_text_width(word))
    out.append("</svg>")
    return "\n".join(out) + "\n"
