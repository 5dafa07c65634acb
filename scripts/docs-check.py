#!/usr/bin/env python3
"""Checks the documentation without building anything (docs/testing.md, "The docs check").

For README.md, docs/**/*.md and bench/**/*.md:
  - every relative link ([text](path), [text](path#heading), [text](#heading), ![image](path))
    names a file or directory that exists and, when it names a heading of a Markdown file, a
    heading of that file (GitHub's anchors: lower case, punctuation dropped, spaces as hyphens,
    -1, -2 ... for repeats; <a id="..."> anchors count too);
  - every command in a fenced shell block (bash, sh, shell, console) that names a file of the
    repository (scripts/..., bin/..., bench/..., ops/..., k8s/..., deploy/..., src/...,
    clients/..., cli/...) names one that exists (build output under target/ and bench/out/ is
    not checked; a glob must match at least one file).

Exit status 0 when all hold, 1 otherwise, with one line per problem (file:line: what).
--self-test first checks the checker: a temporary tree with a broken link, a broken anchor and a
missing script must give exactly those three problems, and a clean tree none.
Python 3 standard library only; a fraction of a CPU-second.
"""
import argparse
import glob
import os
import re
import sys
import tempfile
import unicodedata

DOC_GLOBS = ["README.md", "docs/**/*.md", "bench/**/*.md"]
SHELL_LANGS = {"bash", "sh", "shell", "console", "zsh"}
REPO_DIRS = ("scripts", "bin", "bench", "ops", "k8s", "deploy", "src", "clients", "cli")
# A repository path in a command: starts at a word boundary (not after /, ~, $ or a word
# character, so /usr/bin/java, ~/bin/tmq and $PWD/bin/tmq are not taken for repository files).
REPO_PATH = re.compile(
    r"(?<![\w./~$-])(?:\./)?((?:" + "|".join(REPO_DIRS) + r")/[A-Za-z0-9._*/-]*[A-Za-z0-9_*/-])")
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REF_LINK = re.compile(r"^\s{0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$")
HTML_ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"", re.IGNORECASE)
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")


def doc_files(root):
    found = set()
    for pattern in DOC_GLOBS:
        for path in glob.glob(os.path.join(root, pattern), recursive=True):
            rel = os.path.relpath(path, root)
            if "/target/" in "/" + rel or rel.startswith("bench/out/"):
                continue
            found.add(rel)
    return sorted(found)


def split_blocks(lines):
    """Yields (line number, text, fence language or None) with fenced blocks marked by language."""
    fence = None
    lang = None
    for number, line in enumerate(lines, 1):
        m = FENCE.match(line)
        if fence is None and m:
            fence, lang = m.group(2), (m.group(3) or "").lower()
            continue
        if fence is not None and line.strip().startswith(fence[0] * len(fence)) \
                and line.strip().strip(fence[0]) == "":
            fence, lang = None, None
            continue
        yield number, line, (lang if fence is not None else None), fence is not None


def slug(heading):
    """GitHub's anchor of a heading text."""
    text = re.sub(r"<[^>]+>", "", heading)                   # inline HTML
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)     # links keep their text
    text = text.strip().lower()
    out = []
    for ch in text:
        if ch in " -_":
            out.append("-" if ch == " " else ch)
        elif ch.isalnum() or unicodedata.category(ch).startswith("M"):
            out.append(ch)
    return "".join(out)


def anchors_of(path, cache={}):
    if path in cache:
        return cache[path]
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    seen = {}
    anchors = set()
    for _, line, _, in_code in split_blocks(lines):
        if in_code:
            continue
        for a in HTML_ANCHOR.findall(line):
            anchors.add(a)
        m = re.match(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if m:
            base = slug(m.group(2))
            n = seen.get(base, 0)
            anchors.add(base if n == 0 else f"{base}-{n}")
            seen[base] = n + 1
    cache[path] = anchors
    return anchors


def check_link(root, doc, number, target, problems):
    if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):   # http:, https:, mailto: ...
        return
    path_part, _, anchor = target.partition("#")
    doc_abs = os.path.join(root, doc)
    if path_part:
        if path_part.startswith("/"):
            problems.append(f"{doc}:{number}: absolute link {target} (use a relative one)")
            return
        dest = os.path.normpath(os.path.join(os.path.dirname(doc_abs), path_part))
        if not os.path.exists(dest):
            problems.append(f"{doc}:{number}: link to {target}: {os.path.relpath(dest, root)} does not exist")
            return
    else:
        dest = doc_abs
    if anchor and dest.endswith(".md") and os.path.isfile(dest):
        if anchor not in anchors_of(dest):
            problems.append(f"{doc}:{number}: link to {target}: no heading #{anchor} in {os.path.relpath(dest, root)}")


def check_command_paths(root, doc, number, text, problems):
    code = text.split(" #", 1)[0] if not text.lstrip().startswith("#") else text
    for m in REPO_PATH.finditer(code):
        rel = m.group(1).rstrip("/")
        if rel.startswith("bench/out/") or "/target/" in rel + "/" or rel.endswith("/target"):
            continue
        full = os.path.join(root, rel)
        if any(c in rel for c in "*?["):
            if not glob.glob(full):
                problems.append(f"{doc}:{number}: command names {rel}, which matches no file")
        elif not os.path.exists(full):
            problems.append(f"{doc}:{number}: command names {rel}, which does not exist")


def check(root):
    problems = []
    for doc in doc_files(root):
        with open(os.path.join(root, doc), encoding="utf-8") as f:
            lines = f.read().split("\n")
        for number, line, lang, in_code in split_blocks(lines):
            if in_code:
                if lang in SHELL_LANGS:
                    check_command_paths(root, doc, number, line, problems)
                continue
            prose = CODE_SPAN.sub(lambda m: "" if "](" not in m.group(0) else m.group(0), line)
            for target in LINK.findall(prose):
                check_link(root, doc, number, target, problems)
            m = REF_LINK.match(prose)
            if m:
                check_link(root, doc, number, m.group(1), problems)
    return problems


def self_test():
    """The checker must catch a broken link, a broken anchor and a missing script, and pass a clean tree."""
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "docs"))
        os.makedirs(os.path.join(tmp, "scripts"))
        with open(os.path.join(tmp, "scripts", "real.sh"), "w") as f:
            f.write("#!/bin/sh\n")
        with open(os.path.join(tmp, "docs", "guide.md"), "w") as f:
            f.write("# Guide\n\n## Set-up: two commands\n\n<a id=\"custom\"></a>Text.\n\n## Set-up: two commands\n")
        good = ("# Readme\n\n[guide](docs/guide.md#set-up-two-commands), [again](docs/guide.md#set-up-two-commands-1),"
                " [custom](docs/guide.md#custom), [top](#readme), [web](https://example.com/x)\n\n"
                "```bash\nscripts/real.sh --help   # not scripts/other.sh in a comment? it is checked too\n```\n")
        with open(os.path.join(tmp, "README.md"), "w") as f:
            f.write(good.replace(" # not scripts/other.sh in a comment? it is checked too", ""))
        clean = check(tmp)
        if clean:
            print("docs-check self-test: a clean tree gave problems:\n  " + "\n  ".join(clean), file=sys.stderr)
            return False
        bad = ("# Readme\n\n[missing](docs/nowhere.md) and [anchor](docs/guide.md#no-such-heading)\n\n"
               "```bash\nscripts/real.sh && scripts/missing.sh --flag\n```\n\n```json\n{\"x\": \"scripts/json-is-not-checked\"}\n```\n")
        with open(os.path.join(tmp, "README.md"), "w") as f:
            f.write(bad)
        found = check(tmp)
        expected = ["docs/nowhere.md does not exist", "no heading #no-such-heading", "scripts/missing.sh, which does not exist"]
        missing = [e for e in expected if not any(e in p for p in found)]
        if missing or len(found) != len(expected):
            print("docs-check self-test: expected exactly " + str(expected) + ", got:\n  " + "\n  ".join(found),
                  file=sys.stderr)
            return False
    print("docs-check self-test: a broken link, a broken anchor and a missing script are caught; a clean tree passes")
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."),
                        help="repository root (default: this script's repository)")
    parser.add_argument("--self-test", action="store_true", help="check the checker on a temporary tree first")
    args = parser.parse_args()
    if args.self_test and not self_test():
        return 1
    root = os.path.abspath(args.root)
    docs = doc_files(root)
    problems = check(root)
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        print(f"docs-check: {len(problems)} problem(s) in {len(docs)} files", file=sys.stderr)
        return 1
    print(f"docs-check: {len(docs)} files, every relative link and every repository path in a shell block resolves")
    return 0


if __name__ == "__main__":
    sys.exit(main())
