"""The one look of gameeval's static pages (the leaderboard, the history page): their CSS, kept here
in the report room because both rooms that write a page may import it (tests/test_layout.py)."""

from __future__ import annotations

CSS = """body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
table.board{border-collapse:collapse;font-size:14px}
table.board th,table.board td{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}
table.board th[data-col]{cursor:pointer;background:#f3f3f3}
table.board th{background:#f3f3f3}
td .ci{color:#666;font-size:12px}td .n{color:#666;font-size:12px}
td.missing{color:#aaa}p.note{color:#555;max-width:60em}
td.fail{color:#b00020;font-weight:bold}td.pass{color:#1b7a2f}
svg.trend{border:1px solid #ccc;background:#fff;font-size:11px}
svg.trend .ci{stroke:#1f77b4}svg.trend .point{fill:#1f77b4}svg.trend .line{stroke:#1f77b4;fill:none;opacity:.45}
svg.trend .better{fill:#2ca02c}svg.trend .worse{fill:#d62728}svg.trend .break{stroke:#888;stroke-dasharray:3 3}
svg.trend .axis{stroke:#999}svg.trend text{fill:#444}"""
