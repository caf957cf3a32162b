"""Mutants of the shapes member-level impact selection narrows, for scripts/bench-impact.sh.

Each shape is code that runs under another name than the member it sits in, or that the selection
reads by attribute or condition: a rule that narrows there wrongly misses the tests it breaks.
`candidates(package, sources, executed)` gives, per shape, the mutants it found in the package's
sources: (shape, path, line number, mutate), where mutate(lines) returns the file's new lines (or
None when nothing changes), and for the conformance shape a new file instead.
"""
import os
import random
import re

STRING = re.compile(r'"([^"\\]*[A-Za-z][^"\\]*)"')
NUMBER = re.compile(r"(?<![\w.])(\d+)(?![\w.])")
SHAPES = [
    "a stored, static or global initial value",
    "a string argument on a line of its own (a command's configuration, a wrapper's help)",
    "a default argument",
    "an enum raw value",
    "a property wrapper's default",
    "a body of an @available-gated member",
    "a result-builder body",
    "a member's line under #if",
    "a conformance added in another file",
]
MODIFIERS = r"(?:(?:public|internal|private|fileprivate|static|package|nonisolated)\s+)*"


def change_string(line):
    """The line with a letter of its first string literal changed (a help text, a label, a raw value)."""
    match = STRING.search(line)
    if not match:
        return None
    text = match.group(1)
    for at, c in enumerate(text):
        if c.isalpha():
            new = "x" if c.lower() != "x" else "y"
            return line[: match.start(1) + at] + (new.upper() if c.isupper() else new) + line[match.start(1) + at + 1 :]
    return None


def change_literal(line):
    """A string's letter changed, else a number plus one, else a boolean flipped."""
    changed = change_string(line)
    if changed:
        return changed
    match = NUMBER.search(line.split("=", 1)[1]) if "=" in line else None
    if match:
        start = line.index("=") + 1 + match.start(1)
        return line[:start] + str(int(match.group(1)) + 1) + line[start + len(match.group(1)) :]
    for a, b in (("true", "false"), ("false", "true")):
        if re.search(rf"\b{a}\b", line):
            return re.sub(rf"\b{a}\b", b, line, count=1)
    return None


OPERATORS = [
    (r"(?<![<>=!])<(?![<=])", "<="), (r"<=", "<"), (r"(?<![<>=!-])>(?![>=])", ">="), (r">=", ">"),
    (r"==", "!="), (r"!=", "=="), (r"\+ 1\b", "+ 2"), (r"- 1\b", "- 2"), (r"\btrue\b", "false"),
    (r"\bfalse\b", "true"), (r"&&", "||"), (r"\|\|", "&&"),
]


def change_code(line):
    """The line with its first operator mutated, else its first literal, else (a statement on a
    line of its own) the line commented out."""
    text = line.strip()
    if not text or text.startswith(("//", "#", "@", "case ", "func ", "init", "}", "{")):
        return None
    for pattern, replacement in OPERATORS:
        if re.search(pattern, line):
            return re.sub(pattern, replacement, line, count=1)
    changed = change_string(line)
    if changed:
        return changed
    balanced = all(text.count(a) == text.count(b) for a, b in ("()", "[]", "{}"))
    if balanced and not text.endswith((",", "{", "(", "[")) and not text.startswith(("return", "let ", "var ", "guard")):
        return line[: len(line) - len(line.lstrip())] + "// mutant: " + text
    return None


def one_line(mutate):
    def apply(lines, number):
        new = mutate(lines[number - 1])
        if new is None or new == lines[number - 1]:
            return None
        return lines[: number - 1] + [new] + lines[number:]
    return apply


def bodies(lines, header):
    """Line numbers inside the bodies of members whose header (the declaration line and the
    attribute lines just above it) matches `header`: braces counted outside strings and comments."""
    found = []
    depth = 0
    inside = None  # the depth the current matching body closes at
    for number, line in enumerate(lines, 1):
        code = re.sub(r'"(?:[^"\\]|\\.)*"', '""', line.split("//")[0])
        if inside is None and re.search(r"\b(func|init|var|subscript)\b", code) and "{" in code:
            above = " ".join(lines[max(0, number - 4) : number])
            if re.search(header, above):
                inside = depth
        elif inside is not None and depth > inside:
            found.append(number)
        depth += code.count("{") - code.count("}")
        if inside is not None and depth <= inside and "}" in code:
            inside = None
    return found


def in_bodies(lines):
    """Line numbers inside any body (a function's, an accessor's, a closure's): what is left is
    file and type level, where an initial value runs in no member of its own."""
    found, stack = set(), []  # stack: True for a body, False for a type's or file's scope
    for number, line in enumerate(lines, 1):
        code = re.sub(r'"(?:[^"\\]|\\.)*"', '""', line.split("//")[0])
        if any(stack):
            found.add(number)
        for at, c in enumerate(code):
            if c == "{":
                typed = re.search(r"\b(struct|class|enum|extension|actor|protocol)\b", code[:at])
                stack.append(any(stack) or not typed)
            elif c == "}" and stack:
                stack.pop()
    return found


def under_if(lines):
    """Line numbers inside `#if` blocks (not the directives), at any depth."""
    found, depth = [], 0
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if text.startswith("#if"):
            depth += 1
        elif text.startswith("#endif"):
            depth -= 1
        elif depth > 0 and not text.startswith(("#else", "#elseif")):
            found.append(number)
    return found


def candidates(package, sources, executed):
    executed = set(executed)
    shapes = {}

    texts = {}

    def add(shape, path, number, mutate):
        # Only mutants that change their line (a conformance's new file always does).
        if not isinstance(mutate, str):
            lines = texts.setdefault(path, open(os.path.join(package, path)).read().split("\n"))
            if mutate(lines, number) is None:
                return
        shapes.setdefault(shape, []).append((shape, path, number, mutate))

    initial = re.compile(rf"^\s*{MODIFIERS}(?:let|var) \w+(?:: [\w<>?.\[\]]+)? = .*(\"|\d|true|false)")
    wrapped = re.compile(rf"^\s*@[A-Z]\w*(?:\(.*\))?\s+{MODIFIERS}var \w+(?:: [\w<>?.\[\]]+)? = ")
    argument = re.compile(r'^\s*(?:\w+:\s*)?"[^"\\]{3,}"\s*[,)]*\s*$')
    default = re.compile(r"\w+: [\w.<>?\[\]]+ = (\d+|true|false|\"[^\"]*\")\s*[,)]")
    raw = re.compile(r"^\s*case \w+ = (\"|\d)")
    types = {}
    for path in sorted(sources):
        lines = open(os.path.join(package, path)).read().split("\n")
        body = in_bodies(lines)
        for number, line in enumerate(lines, 1):
            if number in body:
                continue
            if wrapped.search(line):
                add("a property wrapper's default", path, number, one_line(change_literal))
            elif initial.search(line):
                add("a stored, static or global initial value", path, number, one_line(change_literal))
            if argument.search(line):
                add("a string argument on a line of its own (a command's configuration, a wrapper's help)",
                    path, number, one_line(change_string))
            if default.search(line):
                add("a default argument", path, number, one_line(change_literal))
            if raw.search(line):
                add("an enum raw value", path, number, one_line(change_literal))
            match = re.match(r"^\s*public (?:final )?(?:struct|class|enum) (\w+)\b([^:{]*)\{", line)
            if match and ":" not in line:
                module = path.split("/")[1] if path.startswith("Sources/") else None
                if module:
                    types.setdefault(module, []).append(match.group(1))
        for number in bodies(lines, r"@available\("):
            if (path, number) in executed:
                add("a body of an @available-gated member", path, number, one_line(change_code))
        for number in bodies(lines, r"@\w*Builder\b"):
            if (path, number) in executed:
                add("a result-builder body", path, number, one_line(change_code))
        for number in under_if(lines):
            if (path, number) in executed:
                add("a member's line under #if", path, number, one_line(change_code))
    # A conformance added in another file: a description that replaces the type's printed form.
    for module, names in sorted(types.items()):
        for name in names:
            text = (f"extension {name}: CustomStringConvertible {{\n"
                    f"    public var description: String {{ \"mutant\" }}\n}}\n")
            add("a conformance added in another file", f"Sources/{module}/ConformanceMutant.swift", 0, text)
    rng = random.Random(13)
    for found in shapes.values():
        rng.shuffle(found)
    return shapes


def round_robin(shapes, wanted):
    """Up to `wanted` mutants, taking from each shape in turn, so every shape found is tried."""
    chosen, queues = [], [list(found) for _, found in sorted(shapes.items())]
    while len(chosen) < wanted and any(queues):
        for queue in queues:
            if queue and len(chosen) < wanted:
                chosen.append(queue.pop(0))
    return chosen
