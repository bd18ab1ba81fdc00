"""State for the observer to read: a box of items that holds itself (a cycle)."""

from __future__ import annotations


class Box:
    def __init__(self) -> None:
        self.items: list[object] = []
        self.me = self
