"""Write docs/rules-index.md: for every rule id of docs/rules/RULES.md, the functions that
cite it and the tests that check it (issue 31, item 5).

    python scripts/rules_index.py            # rewrite docs/rules-index.md
    python scripts/rules_index.py --check    # exit 1 if the file is not what this writes

A function cites a rule id in its docstring or in a comment inside it (read with ast and
tokenize, never by importing); a method is named Class.method, a nested function counts
for the function around it, and a class cites what its docstring cites. What a module
cites outside its functions (its docstring, its tables' docstrings and comments) is
listed as "(the module)". A test cites an id in its name (`test_R8_2_...`), its
docstring or its comments; a test file in what it cites outside its tests. Sub-items count for their rule (R5.1b for R5.1). A rule id that no code
or no test cites is flagged at the top of the page. tests/docs/test_rules_index.py checks
that the file in the repository is what this script writes.
"""

from __future__ import annotations

import argparse
import ast
import io
import re
import sys
import tokenize
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RULES = Path("docs/rules/RULES.md")
INDEX = Path("docs/rules-index.md")
CODE = ("suburbia_env", "agents", "training")
IMPLEMENTING = "suburbia_env/engine"
"""Functions under this folder implement the rules; the others use or explain them."""
TESTS = "tests"

RULE_LINE = re.compile(r"^- (R\d+\.\d+) (.*)$")
CITED = re.compile(r"(?<![A-Za-z0-9_.])R(\d+)\.(\d+)[a-z]?(?![0-9])")
NAMED = re.compile(r"(?<![A-Za-z0-9])R(\d+)_(\d+)[a-z]?(?![0-9])")


def rule_ids(rules_text: str) -> dict[str, str]:
    """Rule id -> the first words of its text, in the order of RULES.md."""
    found = {}
    for line in rules_text.splitlines():
        match = RULE_LINE.match(line)
        if match:
            words = match.group(2).split(":")[0]
            found[match.group(1)] = words if len(words) <= 60 else words[:57] + "..."
    return found


def cited_ids(text: str | None, pattern: re.Pattern = CITED) -> set[str]:
    return {f"R{major}.{minor}" for major, minor in pattern.findall(text or "")}


def _comments(source: str) -> list[tuple[int, str]]:
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return [(token.start[0], token.string) for token in tokens
            if token.type == tokenize.COMMENT]


MODULE = ""
"""The name under which the module itself cites: its docstring, comments and docstrings
outside any function or class (its tables and constants)."""


def citing_definitions(source: str, names_cite: bool = False) -> dict[str, set[str]]:
    """Qualified name of each top-level function, class and method -> the ids its
    docstring and comments cite (and its name, with `names_cite`: test_R8_2_...); MODULE
    -> what the module cites outside them."""
    tree = ast.parse(source)
    spans = []  # (first line, last line, qualified name), outermost first

    def visit(node, prefix: str, addressable: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                if addressable:
                    spans.append((child.lineno, child.end_lineno, name, child))
                    visit(child, name + ".", isinstance(child, ast.ClassDef))
                else:
                    visit(child, prefix, False)
                    found_nested.append(child)

    found_nested = []
    visit(tree, "", True)
    citations = defaultdict(set)
    for first, last, name, node in spans:
        citations[name] |= cited_ids(ast.get_docstring(node))
        if names_cite:
            citations[name] |= cited_ids(node.name, NAMED)
    for nested in found_nested:
        owner = _innermost(spans, nested.lineno)
        if owner:
            citations[owner] |= cited_ids(ast.get_docstring(nested))
    for line, text in _comments(source):
        citations[_innermost(spans, line) or MODULE] |= cited_ids(text)
    citations[MODULE] |= cited_ids(ast.get_docstring(tree))
    for node in tree.body:  # the docstring under a module-level name (a table, a constant)
        if (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str) and node is not tree.body[0]):
            citations[MODULE] |= cited_ids(node.value.value)
    return {name: ids for name, ids in citations.items() if ids}


def _innermost(spans, line: int) -> str | None:
    owner = None
    for first, last, name, _ in spans:
        if first <= line <= last and (owner is None or len(name) > len(owner)):
            owner = name
    return owner


def module_name(path: Path) -> str:
    parts = list(path.with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def collect(root: Path):
    """(code, tests): rule id -> {(in the engine, module, name)}, {(test file, name)}."""
    code, tests = defaultdict(set), defaultdict(set)
    for folder in CODE:
        for path in sorted((root / folder).rglob("*.py")):
            relative = path.relative_to(root)
            module = module_name(relative)
            for name, ids in citing_definitions(path.read_text(encoding="utf-8")).items():
                for rule in ids:
                    code[rule].add((relative.as_posix().startswith(IMPLEMENTING),
                                    module, name))
    for path in sorted((root / TESTS).rglob("test_*.py")):
        relative = path.relative_to(root).as_posix()
        source = path.read_text(encoding="utf-8")
        for name, ids in citing_definitions(source, names_cite=True).items():
            if name == MODULE or name.split(".")[-1].startswith("test"):
                for rule in ids:
                    tests[rule].add((relative, name))
    return code, tests


def render(root: Path) -> str:
    rules = rule_ids((root / RULES).read_text(encoding="utf-8"))
    code, tests = collect(root)
    no_code = [rule for rule in rules if not any(inside for inside, _, _ in code[rule])]
    no_test = [rule for rule in rules if not tests[rule]]
    unknown = sorted((set(code) | set(tests)) - set(rules), key=_order)
    lines = ["# Rules index", "",
             "Generated by `python scripts/rules_index.py` from the rule ids cited in the code",
             "(docstrings and comments inside functions) and in the tests (names, docstrings,",
             "comments); do not edit by hand. For each rule of",
             "[rules/RULES.md](rules/RULES.md): the functions of the engine",
             "(`suburbia_env/engine/`) that implement it, the functions elsewhere that cite it,",
             "and the tests that check it.", "",
             "## Gaps", "",
             f"- cited by no engine function: {_list(no_code)}",
             f"- cited by no test: {_list(no_test)}",
             f"- cited but not a rule of RULES.md: {_list(unknown)}", "",
             "## Contents", "",
             "| rule | | engine functions | other functions | tests |",
             "|---|---|---|---|---|"]
    for rule, words in rules.items():
        engine = sum(inside for inside, _, _ in code[rule])
        lines.append(f"| [{rule}](#{_anchor(rule)}) | {words} | {engine} | "
                     f"{len(code[rule]) - engine} | {len(tests[rule])} |")
    for rule, words in rules.items():
        lines += ["", f"## {rule}", "", words if words.endswith(".") else f"{words}.", ""]
        engine = sorted((module, name) for inside, module, name in code[rule] if inside)
        other = sorted((module, name) for inside, module, name in code[rule] if not inside)
        lines += _by_module("Implemented in", engine, "**no engine function cites it**")
        if other:
            lines += _by_module("Also cited by", other, "")
        by_file = defaultdict(list)
        for file, name in sorted(tests[rule]):
            by_file[file].append(name)
        if not by_file:
            lines.append("Tested by: **no test cites it**")
        else:
            lines.append("Tested by:")
            for file, names in by_file.items():
                named = ", ".join(f"`{name}`" for name in names if name)
                lines.append(f"- `{file}`" + (f": {named}" if named else " (the file)"))
    return "\n".join(lines) + "\n"


def _by_module(title: str, names: list[tuple[str, str]], none: str) -> list[str]:
    if not names:
        return [f"{title}: {none}", ""]
    modules = defaultdict(list)
    for module, name in names:
        modules[module].append(name)
    return [f"{title}:"] + [f"- `{module}`: " + ", ".join(
        f"`{name}`" if name else "(the module)" for name in functions)
        for module, functions in modules.items()] + [""]


def _order(rule: str) -> tuple[int, int]:
    major, minor = rule[1:].split(".")
    return int(major), int(minor)


def _list(rules: list[str]) -> str:
    return ", ".join(rules) if rules else "none"


def _anchor(rule: str) -> str:
    return rule.lower().replace(".", "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if docs/rules-index.md is not what this script writes")
    arguments = parser.parse_args(argv)
    text = render(REPO)
    target = REPO / INDEX
    if arguments.check:
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            print(f"{INDEX} is out of date: run python scripts/rules_index.py", file=sys.stderr)
            return 1
        return 0
    target.write_text(text, encoding="utf-8")
    print(f"wrote {INDEX}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
