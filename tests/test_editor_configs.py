"""The editor configurations docs/editor.md ships are what it says they are.

The Neovim 0.7 block, marked tested, runs as written (as the user's init.lua) in
Debian's headless Neovim: opening a Python file with an unused import shows Ruff's
F401 from `orchestrate lsp`. The blocks marked untested here are at least well-formed:
Helix's TOML parses and names the server, Zed's JSON parses, the VS Code extension's
manifest parses and its script passes `node --check`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest
from helpers import REPO, VENV_BIN, fail_or_skip, new_repo

DOC = REPO / "docs" / "editor.md"
DRIVER = """
local out = os.getenv("EDITOR_OUT")
local ok, err = pcall(function()
  vim.cmd("edit a.py")
  local buf = vim.api.nvim_get_current_buf()
  vim.wait(90000, function()
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if tostring(d.code or ""):find("F401", 1, true) then
        return true
      end
    end
    return false
  end, 100)
  local rows = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(rows, { lnum = d.lnum, severity = d.severity, code = tostring(d.code or "") })
  end
  local fh = assert(io.open(out, "w"))
  fh:write(vim.fn.json_encode({ diagnostics = rows, filetype = vim.bo[buf].filetype }))
  fh:close()
end)
if not ok then
  local fh = assert(io.open(out, "w"))
  fh:write(vim.fn.json_encode({ error = tostring(err) }))
  fh:close()
end
vim.cmd("qall!")
"""


def _section(title: str) -> str:
    """The text of the docs/editor.md section whose heading starts with `title`."""
    text = DOC.read_text(encoding="utf-8")
    m = re.search(rf"^###? {re.escape(title)}.*?$(.*?)(?=^###? )", text, re.S | re.M)
    assert m, f"no section {title!r} in docs/editor.md"
    return m.group(0)


def _blocks(section: str, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", section, re.S)


def test_each_editor_section_says_whether_it_is_tested_here() -> None:
    titles = re.findall(r"^### (.*)$", DOC.read_text(encoding="utf-8"), re.M)
    editors = [t for t in titles if t.split()[0] in ("Neovim", "VS", "Helix", "Zed")]
    assert len(editors) == 5, titles
    for t in editors:
        assert t.endswith("(tested here)") or "untested here" in t, t


@pytest.mark.e2e
def test_the_neovim_07_config_runs_as_written(tmp_path: Path) -> None:
    nvim = shutil.which("nvim")
    if nvim is None:
        fail_or_skip("nvim is required for this test: apt-get install neovim (./run setup)")
    section = _section("Neovim 0.7")
    assert "(tested here)" in section.splitlines()[0]
    (init,) = _blocks(section, "lua")
    root = new_repo(tmp_path / "r", {"a.py": "import os\n"}, initial_commit=False)
    config = tmp_path / "config" / "nvim"
    config.mkdir(parents=True)
    (config / "init.lua").write_text(init, encoding="utf-8")
    driver = tmp_path / "driver.lua"
    driver.write_text(DRIVER, encoding="utf-8")
    out = tmp_path / "out.json"
    env = {
        **os.environ,
        "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}",  # `orchestrate` as installed
        "EDITOR_OUT": str(out),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    done = subprocess.run(
        [nvim, "--headless", "-i", "NONE", "-c", f"luafile {driver}"],
        env=env,
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert out.exists(), (done.returncode, done.stdout, done.stderr)
    got = json.loads(out.read_text())
    assert "error" not in got, got
    assert got["filetype"] == "python"
    f401 = [d for d in got["diagnostics"] if d["code"].endswith("F401")]
    assert f401 and f401[0]["lnum"] == 0 and f401[0]["severity"] == 1, got


def test_the_untested_configs_are_well_formed() -> None:
    (helix,) = _blocks(_section("Helix"), "toml")
    parsed = tomllib.loads(helix)
    assert parsed["language-server"]["orchestrate"] == {"command": "orchestrate", "args": ["lsp"]}
    assert all("orchestrate" in lang["language-servers"] for lang in parsed["language"])
    (zed,) = _blocks(_section("Zed"), "json")
    binary = json.loads(zed)["lsp"]["orchestrate"]["binary"]
    assert binary == {"path": "orchestrate", "arguments": ["lsp"]}
    (nvim10,) = _blocks(_section("Neovim 0.10"), "lua")
    assert "vim.lsp.start(" in nvim10 and '"orchestrate", "lsp"' in nvim10
    manifest = json.loads((REPO / "editors/vscode/package.json").read_text())
    assert manifest["main"] == "./extension.js"
    node = shutil.which("node")
    if node is None:
        fail_or_skip("node is required for this test: apt-get install nodejs (./run setup)")
    check = subprocess.run(
        [node, "--check", str(REPO / "editors/vscode/extension.js")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert check.returncode == 0, check.stderr
