"""docs/screenshots.py as documented: real inspect view in headless Chromium shows the setup card,
seat-named turn spans and the story without any clicking, for SpyFall and TofuKingdom."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not (shutil.which("chromium") and shutil.which("chromedriver")),
                       reason="needs Debian's chromium and chromium-driver (apt-get install chromium chromium-driver)"),
]


def test_screenshot_script_sees_the_story(tmp_path):
    pytest.importorskip("selenium", reason="needs selenium (pip install -e '.[dev]')")
    out = tmp_path / "img"
    proc = subprocess.run([sys.executable, "docs/screenshots.py", "--out", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads(proc.stdout[proc.stdout.index("{"):])
    assert set(report["pages"]) == {"spyfall", "tofukingdom", "log-list"}
    for page in report["pages"].values():
        assert all(page["seen"].values()), page
        assert Path(page["file"]).stat().st_size > 10_000  # a rendered page, not a blank one
