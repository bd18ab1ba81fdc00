"""Bar charts as plain SVG geometry for the templates: no script, no front-end build, readable
with CSS off (each bar carries its value as a tooltip and the table below repeats it)."""

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


class Chart(BaseModel):
    title: str
    width: int = WIDTH
    height: int = HEIGHT
    bars: list[Bar]
    first: str
    last: str
    top: str
    """The value the chart's top line stands for."""
    baseline: float = HEIGHT - BOTTOM
    empty: str = ""
    """Said instead of bars when there is nothing to draw."""


def bar_chart(
    title: str,
    points: list[tuple[str, float | None, str]],
    top: float | None = None,
    top_text: str = "",
    empty: str = "nothing yet",
) -> Chart:
    """`points`: (x label, value, tooltip) in order; bars scaled to `top` (default: the max).
    A None value leaves its slot empty (nothing measured), unlike a zero."""
    scale_top = top if top is not None else max((v for _, v, _ in points if v), default=0.0)
    plot_h = HEIGHT - TOP - BOTTOM
    slot = WIDTH / max(len(points), 1)
    bars = []
    for i, (_, value, tip) in enumerate(points):
        if value is None:
            continue
        h = plot_h * value / scale_top if scale_top > 0 else 0.0
        # A zero still shows as a hairline, so a day with no spend reads as measured, not missing.
        h = max(h, 1.0)
        bars.append(
            Bar(
                x=i * slot + slot * 0.15, y=HEIGHT - BOTTOM - h, width=slot * 0.7, height=h, tip=tip
            )
        )
    return Chart(
        title=title,
        bars=bars,
        first=points[0][0] if points else "",
        last=points[-1][0] if points else "",
        top=top_text or f"{scale_top:g}",
        empty="" if points else empty,
    )
