"""A pytest plugin of ours loaded into one sandboxed test run, and what it sent back.

The plugin's folder (its source and the run's settings) is the host's, shown read-only in the
sandbox; its results come back through the run's channel (`sandbox.channel_command`), one JSON
object a line. Nothing is read from a file the tests could write. Tests run in the plugin's
own process, so they could still forge its messages: a result says what the plugin saw, and
docs/security.md says what that is worth.
"""

from __future__ import annotations

import json
import tempfile
import uuid
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from spice_engine.validate import door

SUPPORT_MODULE = "_spice_support"
_SUPPORT = Path(__file__).with_name("plugin_support.py")


class Plugin(BaseModel):
    """A folder holding the plugin module `name`, the shared module `support` it needs, and
    its `settings.json`."""

    folder: Path
    name: str
    support: str
    drives: bool = False
    """The module runs the test command itself (its `main()`), for a runner that loads no
    pytest plugin (spice_engine.strength.watch_plugin)."""
    alone: bool = False
    """The module's `main()` runs instead of the test command, whatever the runner (the
    issue's example: spice_engine.strength.examples_plugin)."""

    def modules(self) -> list[str]:
        """What pytest loads (`-p`), in order."""
        return [self.support, self.name]


def make_plugin(
    scratch: Path,
    source: Path,
    name: str,
    settings: dict[str, Any],
    extras: tuple[Path, ...] = (),
    drives: bool = False,
    alone: bool = False,
) -> Plugin:
    """A new plugin folder under `scratch` (the host's: never bound writable). The module gets
    a name of its own for this run (`name` and a random part): pytest imports `-p` plugins by
    name with the tree first on sys.path, where a file the tests left could stand in for it.

    `extras`: more modules the plugin imports itself, named the same way; the settings' `extras`
    maps each file's stem to its name in this run."""
    folder = Path(tempfile.mkdtemp(dir=scratch, prefix="plugin-"))
    folder.chmod(0o755)  # read by the sandbox's user, whatever the worker's umask
    token = uuid.uuid4().hex[:12]
    name, support = f"{name}_{token}", f"{SUPPORT_MODULE}_{token}"
    door.write_bytes(folder, f"{name}.py", door.read_bytes(source.parent, source.name))
    door.write_bytes(folder, f"{support}.py", door.read_bytes(_SUPPORT.parent, _SUPPORT.name))
    named = {extra.stem: f"_spice_{extra.stem}_{token}" for extra in extras}
    for extra in extras:
        door.write_bytes(
            folder, f"{named[extra.stem]}.py", door.read_bytes(extra.parent, extra.name)
        )
    door.write_text(folder, "settings.json", json.dumps({**settings, "extras": named}))
    return Plugin(folder=folder, name=name, support=support, drives=drives, alone=alone)


def messages(channel: str) -> list[dict[str, Any]]:
    """The JSON objects the plugin sent, in order; anything else on the channel is ignored."""
    found = []
    for line in channel.splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if isinstance(item, dict):
            found.append(item)
    return found
