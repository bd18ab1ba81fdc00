"""The sending end of a run's channel, loaded into the project's own Python beside our pytest
plugins (as `_spice_channel`, from the plugin's read-only folder; spice_engine.validate.plugin_run).

The descriptor is taken at import, before any test runs: duplicated close-on-exec and the
inherited one closed, so no process the tests start holds it, and the tests' own output goes
to the log. Written for Python 3.6 and later: type comments, nothing from this package.
"""

import json
import os
from typing import Any, Dict, Optional, TextIO  # noqa: F401 (type comments)


def _take():
    # type: () -> Optional[TextIO]
    number = os.environ.pop("SPICE_CHANNEL_FD", "")
    if not number:
        return None
    try:
        mine = os.dup(int(number))
        os.close(int(number))
    except (OSError, ValueError):
        return None
    return os.fdopen(mine, "w")


_OUT = _take()


def send(message):
    # type: (Dict[str, Any]) -> None
    """One message, a JSON object on a line of its own, sent at once."""
    if _OUT is not None:
        _OUT.write(json.dumps(message) + "\n")
        _OUT.flush()
