"""The page's files without a browser: each ships with the package (a container installs the
bot with `pip install .`), and each file the page refers to is there."""

import re
import tomllib
from fnmatch import fnmatch
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "bot" / "webapp" / "static"


def test_every_static_file_ships_as_package_data() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    globs = config["tool"]["setuptools"]["package-data"]["bot.webapp"]
    files = sorted(p.relative_to(STATIC.parent).as_posix() for p in STATIC.iterdir())
    assert "static/index.html" in files and "static/app.js" in files
    assert [f for f in files if not any(fnmatch(f, g) for g in globs)] == []


def test_every_file_the_page_refers_to_is_there() -> None:
    html = (STATIC / "index.html").read_text(encoding="utf-8")
    local = re.findall(r'(?:src|href)="static/([^"]+)"', html)
    assert sorted(local) == ["app.js", "style.css"]
    # the only address outside: Telegram's optional script
    assert re.findall(r'(?:src|href)="(https?://[^"]+)"', html) == [
        "https://telegram.org/js/telegram-web-app.js"
    ]
    modules = list(STATIC.glob("*.js"))
    imported = set()
    for module in modules:
        text = module.read_text(encoding="utf-8")
        # no address to fetch at run time (the SVG namespace is a name, not a place)
        addresses = set(re.findall(r"""["'`](\w+://[^"'`]*)""", text))
        assert addresses <= {"http://www.w3.org/2000/svg"}, module.name
        imported |= set(re.findall(r'from "\./([\w.]+)"', text))
    assert imported | {"app.js"} == {m.name for m in modules}
