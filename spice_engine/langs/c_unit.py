"""Compiles, in the sandbox, each translation unit a C or C++ source is built in, as the
tree's build compiles it, optimised: run by the system's `python3` there with the build's
kind, the source's path, the build folder and the file to write (spice_engine.langs.c_code).

The compile commands come from the build itself: CMake's and Meson's `compile_commands.json`,
or `make -n` asked what it would run were the source changed. Of each command only what
chooses the code is kept (include paths, macros, the language standard, code-generation
flags); `-O2 -g0 -c` is added. Each object, its debug sections stripped, is appended to the
file written: one per distinct command, at most four.
"""

UNIT = r"""
import json, os, re, shlex, subprocess, sys

kind, path, build, dump = sys.argv[1:5]
target = os.path.normpath(os.path.join("/testbed", path))
COMPILER = re.compile(r"^(?:.*[-/])?(?:gcc|g\+\+|cc|c\+\+|clang|clang\+\+)(?:-[0-9.]+)?$")
PAIRED = {"-I", "-D", "-U", "-include", "-isystem", "-iquote", "-idirafter", "-imacros"}
DROPPED_PAIRS = {"-o", "-MF", "-MT", "-MQ", "-x", "-Xlinker"}
KEPT = ("-I", "-D", "-U", "-std", "--std", "-f", "-m", "-W", "-pthread", "-ansi", "-include",
        "-isystem", "-iquote", "-idirafter", "-imacros", "-pedantic")
DROPPED = ("-Wl,", "-Wa,", "-Wp,", "-Werror", "-flto", "-fprofile", "-fdebug", "-fdump")


def flags_for(args, directory):
    flags, names_it, i = [], False, 0
    while i < len(args):
        a = args[i]
        if a in PAIRED and i + 1 < len(args):
            flags += [a, args[i + 1]]
            i += 2
            continue
        if a in DROPPED_PAIRS:
            i += 2
            continue
        if not a.startswith("-"):
            names_it = names_it or os.path.normpath(os.path.join(directory, a)) == target
        elif a.startswith(KEPT) and not a.startswith(DROPPED):
            flags.append(a)
        i += 1
    return flags if names_it else None


def simple_commands(line):
    lexer = shlex.shlex(re.sub(r"`[^`]*`", "", line), posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    words = []
    try:
        for word in lexer:
            if word in (";", "&&", "||", "|", "&", "(", ")"):
                yield words
                words = []
            else:
                words.append(word)
    except ValueError:
        return
    yield words


def from_database(folder):
    with open(os.path.join(folder, "compile_commands.json")) as f:
        for entry in json.load(f):
            args = entry.get("arguments") or shlex.split(entry.get("command", ""))
            yield entry.get("directory", folder), args


def from_make(goal):
    argv = ["make", "-n", "-W", path, "-W", os.path.basename(path)] + ([goal] if goal else [])
    done = subprocess.run(argv, capture_output=True, text=True, cwd=build)
    directory = [os.path.abspath(build)]
    for line in done.stdout.replace("\\\n", " ").splitlines():
        entering = re.search(r"Entering directory '([^']+)'", line)
        leaving = re.search(r"Leaving directory '([^']+)'", line)
        if entering:
            directory.append(entering.group(1))
        elif leaving and len(directory) > 1:
            directory.pop()
        here = directory[-1]
        for words in simple_commands(line):
            if len(words) == 2 and words[0] == "cd":
                here = os.path.join(here, words[1])
            yield here, words


def commands():
    if kind in ("cmake", "meson"):
        if kind == "cmake":
            subprocess.run(["cmake", "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON", build], stdout=2, check=True)
        yield from from_database(build)
    else:
        yield from from_make("")
        yield from from_make("check")


units = []
for directory, args in commands():
    at = next((i for i, a in enumerate(args) if COMPILER.match(a)), None)
    if at is None:
        continue
    flags = flags_for(args[at + 1 :], directory)
    if flags is not None and (directory, args[at], flags) not in units:
        units.append((directory, args[at], flags))
if not units:
    sys.exit(f"no compile command of the build names {path}")
with open(dump, "wb") as out:
    for n, (directory, compiler, flags) in enumerate(units[:4]):
        obj = f"{dump}.{n}.o"
        subprocess.run([compiler, *flags, "-O2", "-g0", "-c", target, "-o", obj], cwd=directory, stdout=2, check=True)
        subprocess.run(["objcopy", "--strip-debug", "-R", ".comment", obj], stdout=2, check=True)
        with open(obj, "rb") as f:
            out.write(f.read())
"""
