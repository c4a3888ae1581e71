#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Everything README.md and doc/*.md name exists.

- Paths of this tree (include/, lib/, mount/, tests/, ... and links): the
  file or folder is there (a glob or {a,b} must match something).
- Links to a heading (FILE.md#anchor, #anchor): the heading is there.
- `striped` command lines (code blocks and `code`): the subcommand is one
  the CLI registers (tools/cli: CLI_COMMAND's .name and .alias), and each
  option is a global one (tools/cli/cli_args.c) or one of that subcommand's.
- Public calls (striped_NAME( and striped_NAME/OTHER()): declared in
  include/striped.h; STRIPED_NAME: defined there, or an environment variable
  some script or test reads; struct striped_NAME: declared there.
- Manual pages, NAME(N) for a name of ours: a file NAME.N in the tree.

usage: check-docs.py SOURCE-ROOT [DOC.md...]   (default README.md doc/*.md)
Prints one line per name that does not exist; exit 1 if any.
"""
import glob
import os
import re
import shlex
import sys

TOP = ("include", "lib", "compat", "tools", "mount", "tests", "scripts", "bench", "debian",
       "fuzz", "python", "fio", "doc", "examples", ".ci")
PATH = re.compile(r"(?<![\w./$-])((?:%s)/[\w.*/{},<>+@-]*)" % "|".join(re.escape(t) for t in TOP))
LINK = re.compile(r"\]\(([^)\s]+)\)")
FENCE = re.compile(r"^(```|~~~)")
SPAN = re.compile(r"`([^`\n]+)`")
CALL = re.compile(r"\b(striped_[a-z0-9_]+)((?:/[a-z0-9_]+)*)(\*?)\(")
STRUCT = re.compile(r"\bstruct (striped_[a-z0-9_]+)")
MACRO = re.compile(r"\b(STRIPED_[A-Z0-9_]+)\b")
MAN = re.compile(r"\b(striped[\w-]*|libstriped[\w-]*)\(([1-8])\)")
# where a command starts in a shell line: its beginning, after ; && || | $( or an env
CMD_START = re.compile(r"(?:^|[;|&(]\s*|\$\(\s*)(?:[A-Z_]+=(?:'[^']*'|\"[^\"]*\"|\S*)\s+)*"
                       r"(?:sudo\s+)?striped\s+(.*)")


def slug(heading):
    """GitHub's anchor of a heading."""
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(path):
    out, fenced = set(), False
    for line in open(path, encoding="utf-8"):
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            out.add(slug(line.lstrip("#")))
    return out


class Cli:
    """The striped command's subcommands and options, read from its source."""

    def __init__(self, root):
        cli = os.path.join(root, "tools", "cli")
        src = open(os.path.join(cli, "cli_args.c"), encoding="utf-8").read()
        block = src[src.index("global_opts[]"):]
        block = block[:block.index("};")]
        self.global_long = set(re.findall(r'\{"([\w-]+)",\s*(?:required|no)_argument', block))
        self.global_arg = set(re.findall(r'\{"([\w-]+)",\s*required_argument', block))
        shorts = re.search(r'#define GLOBAL_SHORT "([^"]*)"', src).group(1)
        self.global_short = set(re.findall(r"(\w)", shorts))
        self.global_short_arg = set(re.findall(r"(\w):", shorts))
        self.commands = {}  # "lock ls" -> set of "--long" and "-s"
        self.valued = set()  # the subcommands' options that take a value
        for path in glob.glob(os.path.join(cli, "*.c")):
            text = open(path, encoding="utf-8").read()
            arrays = {}
            for m in re.finditer(r"struct cli_option (\w+)\[\]\s*=\s*\{(.*?)\n\};", text, re.S):
                opts = set()
                for o in re.finditer(r"\{\s*(?:'(.)'|\w+),\s*(true|false),\s*\"([\w-]+)\""
                                     r",\s*(NULL|\")", m.group(2)):
                    valued = o.group(4) != "NULL"
                    opts.add("--" + o.group(3))
                    if valued:
                        self.valued.add("--" + o.group(3))
                    if o.group(2) == "true" and o.group(1):
                        opts.add("-" + o.group(1))
                        if valued:
                            self.valued.add("-" + o.group(1))
                arrays[m.group(1)] = opts
            for m in re.finditer(r"CLI_COMMAND\(\w+\)\s*=\s*\{(.*?)\n\};", text, re.S):
                body = m.group(1)
                name = re.search(r'\.name\s*=\s*"([^"]+)"', body).group(1)
                o = re.search(r"\.options\s*=\s*(\w+)", body)
                opts = arrays.get(o.group(1), set()) if o else set()
                self.commands[name] = opts
                alias = re.search(r'\.alias\s*=\s*"([^"]+)"', body)
                if alias:
                    self.commands[" ".join([alias.group(1)] + name.split()[1:])] = opts

    def check(self, words):
        """What is wrong with the words after `striped`: a list of messages."""
        errors, i, command, own = [], 0, None, set()
        while i < len(words):
            w = words[i]
            if w in ("--",) or re.fullmatch(r"[;|&<>#)].*", w):
                break
            if w.startswith("--"):
                name = w[2:].split("=", 1)[0]
                if name in self.global_long:
                    i += 2 if (name in self.global_arg and "=" not in w) else 1
                    continue
                if command is None or "--" + name not in own:
                    errors.append("option %s%s" % (w.split("=", 1)[0],
                                  " of `striped %s`" % command if command else ""))
                i += 2 if ("--" + name in self.valued and "=" not in w) else 1
                continue
            if w.startswith("-") and len(w) > 1:
                step = 1
                for k, c in enumerate(w[1:]):
                    if c in self.global_short_arg:  # -pPOOL, or -p POOL
                        step = 1 if k + 2 < len(w) else 2
                        break
                    if c in self.global_short:
                        continue
                    if command is None or "-" + c not in own:
                        errors.append("option -%s%s" % (c, " of `striped %s`" % command
                                                        if command else ""))
                        break
                    if "-" + c in self.valued:  # a subcommand's option with a value
                        step = 1 if k + 2 < len(w) else 2
                        break
                i += step
                continue
            if command is None:
                if re.fullmatch(r"[A-Z][A-Z_.]*|\.\.\.|\[.*", w):  # SUBCOMMAND, ...: a placeholder
                    return errors
                two = " ".join(words[i:i + 2])
                if two in self.commands:
                    command, i = two, i + 2
                elif w in self.commands:
                    command, i = w, i + 1
                else:
                    errors.append("subcommand %s" % two if any(
                        k.startswith(w + " ") for k in self.commands) else "subcommand %s" % w)
                    return errors
                own = self.commands[command]
                continue
            i += 1
        return errors


def header_names(root):
    text = open(os.path.join(root, "include", "striped.h"), encoding="utf-8").read()
    calls = set(re.findall(r"\b(striped_[a-z0-9_]+)\s*\(", text))
    structs = set(re.findall(r"\bstruct (striped_[a-z0-9_]+)", text))
    macros = set(re.findall(r"\b(STRIPED_[A-Z0-9_]+)\b", text))
    return calls, structs, macros


def env_names(root):
    """STRIPED_* names that the tree's scripts, tests and Python read."""
    names = set()
    for top in ("scripts", "tests", "python", "bench", "mount", "tools", "lib", "fio", "compat",
                "fuzz", "debian", ".ci"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                try:
                    text = open(os.path.join(dirpath, f), encoding="utf-8").read()
                except (UnicodeDecodeError, OSError):
                    continue
                names.update(re.findall(r"\b(STRIPED_[A-Z0-9_]+)\b", text))
    for f in ("meson.build", "meson_options.txt"):
        p = os.path.join(root, f)
        if os.path.exists(p):
            names.update(re.findall(r"\b(STRIPED_[A-Z0-9_]+)\b", open(p).read()))
    return names


def expand(pattern):
    m = re.search(r"\{([^{}]*)\}", pattern)
    if not m:
        return [pattern]
    return [p for alt in m.group(1).split(",")
            for p in expand(pattern[:m.start()] + alt + pattern[m.end():])]


def placeholder(path):
    return ("<" in path or ">" in path or "..." in path or "YYYY" in path or
            any(re.fullmatch(r"[A-Z][A-Z0-9_]+", part) for part in path.split("/")))


def path_exists(root, rel):
    rel = rel.rstrip(".,:;")
    for p in expand(rel):
        full = os.path.join(root, p)
        if any(c in p for c in "*?["):
            if not glob.glob(full):
                return False
        elif not os.path.exists(full):
            return False
    return True


def code_parts(text):
    """(code block lines, inline code spans, prose) of a Markdown text."""
    block, spans, prose, fenced = [], [], [], False
    for line in text.splitlines():
        if FENCE.match(line.strip()):
            fenced = not fenced
            continue
        if fenced:
            block.append(line)
        else:
            spans += SPAN.findall(line)
            prose.append(line)
    return block, spans, "\n".join(prose)


def shell_words(s):
    s = s.split(" #", 1)[0]
    try:
        return shlex.split(s)
    except ValueError:
        return s.split()


def check_doc(root, doc, cli, calls, structs, macros, envs):
    errors = []
    text = open(doc, encoding="utf-8").read()
    here = os.path.dirname(doc)
    block, spans, prose = code_parts(text)

    def bad(what):
        errors.append("%s: %s does not exist" % (os.path.relpath(doc, root), what))

    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        full = os.path.normpath(os.path.join(here, path)) if path else doc
        if path and not os.path.exists(full):
            bad("link %s" % target)
        elif anchor and full.endswith(".md") and anchor not in anchors(full):
            bad("heading #%s in %s" % (anchor, os.path.relpath(full, root)))
    for m in PATH.finditer(text):
        p = m.group(1).rstrip(".,:;")
        if not placeholder(p) and not path_exists(root, p):
            bad("path %s" % p)
    lines = block + spans
    for line in lines:
        for cmd in CMD_START.finditer(line.strip().removeprefix("$ ")):
            for e in cli.check(shell_words(cmd.group(1))):
                bad("%s (in `%s`)" % (e, line.strip()))
    for m in CALL.finditer(text):
        name, others, star = m.groups()
        names = [name] + [name.rsplit("_", 1)[0] + "_" + o for o in others.split("/")[1:]]
        for n in names:
            if star:
                if not any(c.startswith(n) for c in calls):
                    bad("call %s*()" % n)
            elif n not in calls:
                bad("call %s()" % n)
    for n in STRUCT.findall(text):
        if n not in structs:
            bad("struct %s" % n)
    for n in MACRO.findall(text):
        if n not in macros and n not in envs:
            bad("name %s" % n)
    for name, section in MAN.findall(text):
        if not glob.glob(os.path.join(root, "**", "%s.%s" % (name, section)), recursive=True):
            bad("manual page %s(%s)" % (name, section))
    return errors


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    root = os.path.abspath(argv[1])
    docs = argv[2:] or [os.path.join(root, "README.md")] + sorted(
        glob.glob(os.path.join(root, "doc", "*.md")))
    cli = Cli(root)
    calls, structs, macros = header_names(root)
    envs = env_names(root)
    errors = []
    for doc in docs:
        errors += check_doc(root, os.path.abspath(doc), cli, calls, structs, macros, envs)
    for e in errors:
        print(e)
    print("check-docs: %d documents, %d names that do not exist" % (len(docs), len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
