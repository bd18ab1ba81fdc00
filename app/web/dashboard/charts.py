"""Bar charts as plain SVG geometry for the templates: no script, no front-end build. A scale
beside the plot and a table of every value under it, so nothing needs hover (phones have none)
and the chart reads with CSS off."""

from __future__ import annotations

from pydantic import BaseModel

WIDTH = 640
HEIGHT = 180
TOP = 16
BOTTOM = 22


class Bar(BaseModel):
    x: float
    y: float
    width: float
    height: float
    tip: str
    zero: bool = False
    """A measured zero (drawn as a red hairline), unlike a slot with nothing measured."""


class Tick(BaseModel):
    y: float
    """In the SVG's units, which are the plot's pixels (its height is fixed in the CSS)."""
    text: str


class Point(BaseModel):
    """One slot as the table under the chart shows it."""

    label: str
    value: str


class Chart(BaseModel):
    title: str
    x_name: str
    """What one slot is (`week`, `day`): the values table's first column."""
    width: int = WIDTH
    height: int = HEIGHT
    bars: list[Bar]
    ticks: list[Tick]
    points: list[Point]
    first: str
    last: str
    baseline: float = HEIGHT - BOTTOM
    empty: str = ""
    """Said instead of bars when there is nothing to draw."""


def bar_chart(
    title: str,
    x_name: str,
    points: list[tuple[str, float | None, str]],
    top: float | None = None,
    unit: str = "{:g}",
    empty: str = "nothing yet",
    missing: str = "-",
) -> Chart:
    """`points`: (x label, value, tooltip) in order; bars scaled to `top` (default: the max),
    values written with the format `unit`. A None value leaves its slot empty and reads
    `missing` in the table (nothing measured), unlike a zero."""
    scale_top = top if top is not None else max((v for _, v, _ in points if v), default=0.0)
    plot_h = HEIGHT - TOP - BOTTOM
    slot = WIDTH / max(len(points), 1)
    bars = []
    for i, (_, value, tip) in enumerate(points):
        if value is None:
            continue
        h = plot_h * value / scale_top if scale_top > 0 else 0.0
        bars.append(
            Bar(
                x=i * slot + slot * 0.15,
                y=HEIGHT - BOTTOM - max(h, 2.0),
                width=slot * 0.7,
                height=max(h, 2.0),
                tip=tip,
                zero=value == 0,
            )
        )
    ticks = [
        Tick(y=HEIGHT - BOTTOM - plot_h * share, text=unit.format(scale_top * share))
        for share in (0.0, 0.5, 1.0)
    ]
    return Chart(
        title=title,
        x_name=x_name,
        bars=bars,
        ticks=ticks if scale_top > 0 else ticks[:1],
        points=[
            Point(label=x, value=missing if v is None else unit.format(v)) for x, v, _ in points
        ],
        first=points[0][0] if points else "",
        last=points[-1][0] if points else "",
        empty="" if points else empty,
    )
