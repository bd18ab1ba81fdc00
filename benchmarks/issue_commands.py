"""How many issues give runnable commands for the programs their repository builds (the issue's
own commands as evidence, spice_engine.strength.shell_examples): per repository of ../shared's
instances with a bundle, the programs its language reads from the base commit's build files
and the issues whose text runs one of them.

    .venv/bin/python benchmarks/issue_commands.py [--data ../shared/data]

Prints one line per repository (issues with commands / issues, the programs found) and exits 2
when the data is absent.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

from spice_engine.langs import languages
from spice_engine.langs.capabilities import programs
from spice_engine.langs.commit_files import CommitFiles
from spice_engine.strength.shell_commands import shell_commands
from spice_engine.validate.gitwork import GitError, open_repository

ROOT = Path(__file__).resolve().parents[1]
ALIASES = {"c++": "cpp", "js": "javascript", "typescript": "javascript", "ts": "javascript"}
"""How the data's rows name a language, where it is not our name."""
SETS = (
    ("validation/instances.jsonl", "validation/pytest.bundle", "python"),
    ("validation/instances_sphinx.jsonl", "validation/sphinx.bundle", "python"),
    ("validation/instances_requests.jsonl", "validation/requests.bundle", "python"),
    ("langs/instances_c_cpp.jsonl", "langs/{name}.bundle", None),
    ("langs/instances.jsonl", "langs/{name}.bundle", None),
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    args = parser.parse_args()
    if not (args.data / "langs").is_dir():
        print(f"issue_commands: no data at {args.data} (../shared/data)", file=sys.stderr)
        return 2
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    names: dict[str, list[str]] = {}
    with tempfile.TemporaryDirectory() as cache:
        for rows, bundle, fixed in SETS:
            for line in (args.data / rows).read_text().splitlines():
                row = json.loads(line)
                repo = str(row["repo"])
                named = fixed or str(row.get("language", "")).lower()
                language = languages().get(ALIASES.get(named, named))
                if language is None:
                    continue
                source = args.data / bundle.format(name=repo.split("/")[1])
                if programs(language) is None or not source.is_file():
                    continue
                if repo not in names:
                    try:
                        git_dir = open_repository(source, Path(cache))
                        files = CommitFiles(git_dir, str(row["base_commit"]))
                        names[repo] = language.programs(files)  # type: ignore[attr-defined]
                    except GitError:
                        names[repo] = []
                counts[repo][1] += 1
                counts[repo][0] += bool(shell_commands(row["problem_statement"], names[repo]))
    for repo, (found, total) in sorted(counts.items()):
        print(f"{repo}: {found} of {total} issues run {', '.join(names[repo]) or 'no program'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
