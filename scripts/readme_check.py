#!/usr/bin/env python3
"""Runs README.md's examples: its shell blocks against the real server, its Swift blocks
through the compiler. Python 3 standard library only; scripts/readme-check.sh drives it.

    readme_check.py shell --binary PATH [--readme FILE] [--curl-option OPT]
                                                           the ```sh blocks, in order
    readme_check.py swift --bin-path DIR [--readme FILE]  the ```swift blocks, compiled
    readme_check.py self-test --binary PATH --bin-path DIR
                                                           drifted copies must fail

Shell blocks run one after the other in one bash process (a variable set in one block is
there in the next), in a scratch directory, against the server binary on 127.0.0.1 and a
free port:

- `127.0.0.1:8080` and `localhost:8080` in a command become the free port, `8443` after
  `:` or `--tls-port ` a second free port, `9090` after `127.0.0.1:`, `http.server ` or
  `port=` a third (a stand-in upstream), and `/tmp/` the scratch directory.
- `swift run mockbackend ARGS` (re)starts the binary with ARGS (its port and TLS port
  replaced) and waits for its `mockbackend listening on` line, also when the line ends
  with `&`.
- `K=…` (the workflow API key the reader copies from the startup block) is copied from
  that server's startup block.
- `open URL` fetches the URL instead of opening a browser.
- `curl` runs the real curl, and records its exit code, HTTP status and output. It must
  exit 0 (28, the time limit, only when the command sets `--max-time` itself) and answer
  a status below 400, unless the command's comment says what comes back:
  `# 404 …` (a status), or `# {"status":"ok"}` / `# [ … ]` (the body; on the command's
  line, or a comment line right after it). In an expected body `…` stands for anything,
  with the hex digits, dashes, colons, dots and `T`s written right before it
  (`"5444a00f-…"`, `gen_8c1d…`, `"2026-11-25T17:12…"`) an example of its start. The checker also bounds every curl it runs to 60 s.

A block preceded by `<!-- readme-check: skip (reason) -->` is not run; the run lists it
with the reason. A failure names README.md's line and the block, and stops the run; the
server and everything the block started in the background are stopped on any exit.

Swift blocks are compiled (type-checked and lowered, `swiftc -c`) as one module against the
package's built modules (`swift build` first), each in its own file with `#sourceLocation`
pointing at README.md, so errors name README.md's lines. A block of declarations
(`import`, `@Test func …`) is compiled as it is; a block of statements is wrapped in a
function `snippetN() async throws`. Names a snippet takes from the reader's code
(`baseURL`, `jobId`, `show(_:)`, …) are declared in SNIPPET_CONTEXT below.
"""

import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIRECTIVE = re.compile(r"^<!--\s*readme-check:\s*(.*?)\s*-->\s*$")
SHELL_INFOS = {"sh", "bash", "shell", "console"}
CURL_TIME_LIMIT = 60


class Block:
    def __init__(self, info, fence_line, lines, directive):
        self.info = info
        self.fence_line = fence_line  # README line of the opening fence
        self.lines = lines  # [(README line number, text)]
        self.directive = directive


def parse_blocks(text):
    blocks = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        match = re.match(r"^```(\S*)\s*$", lines[i])
        if not match:
            i += 1
            continue
        info, start = match.group(1), i
        j = i - 1
        while j >= 0 and not lines[j].strip():
            j -= 1
        directive = None
        if j >= 0:
            found = DIRECTIVE.match(lines[j].strip())
            directive = found.group(1) if found else None
        body = []
        i += 1
        while i < len(lines) and not lines[i].startswith("```"):
            body.append((i + 1, lines[i]))
            i += 1
        blocks.append(Block(info, start + 1, body, directive))
        i += 1
    return blocks


def skip_reason(block):
    if block.directive is None:
        return None
    found = re.match(r"^skip\s*\((.*)\)$", block.directive)
    if not found:
        raise SystemExit(f"README.md:{block.fence_line}: unknown readme-check directive: {block.directive}")
    return found.group(1)


# ---------------------------------------------------------------------------------------
# Shell blocks


def split_comment(line, quote=None):
    """(code, comment) of one shell line: the comment starts at a `#` outside quotes that
    begins a word. `quote`: the quote open at the start of the line."""
    k = 0
    while k < len(line):
        c = line[k]
        if quote:
            if c == "\\" and quote == '"':
                k += 2
                continue
            if c == quote:
                quote = None
        elif c == "\\":
            k += 2
            continue
        elif c in "'\"":
            quote = c
        elif c == "#" and (k == 0 or line[k - 1] in " \t;"):
            return line[:k], line[k + 1 :].strip()
        k += 1
    return line, None


def open_quote(lines):
    """The quote still open after these lines, or None."""
    quote = None
    for text in lines:
        k = 0
        while k < len(text):
            c = text[k]
            if quote:
                if c == "\\" and quote == '"':
                    k += 1
                elif c == quote:
                    quote = None
            elif c == "\\":
                k += 1
            elif c in "'\"":
                quote = c
            elif c == "#" and (k == 0 or text[k - 1] in " \t;"):
                break
            k += 1
    return quote


def expectation(comment):
    """What a comment says comes back: ('status', 404), ('body', text) or None."""
    if comment is None:
        return None
    text = comment.strip()
    if text.startswith("→"):
        text = text[1:].strip()
    status = re.match(r"^([1-5]\d\d)(?!\d)(?![.,]\d)", text)
    if status:
        return ("status", int(status.group(1)))
    if text[:1] in "{[":
        depth, quote, k = 0, False, 0
        while k < len(text):
            c = text[k]
            if quote:
                if c == "\\":
                    k += 1
                elif c == '"':
                    quote = False
            elif c == '"':
                quote = True
            elif c in "{[":
                depth += 1
            elif c in "}]":
                depth -= 1
                if depth == 0:
                    return ("body", text[: k + 1])
            k += 1
    return None


def body_pattern(expected):
    parts = re.split(r"[0-9a-fT:.-]*…", expected)
    return "(?s)" + ".*?".join(re.escape(part) for part in parts)


class Command:
    def __init__(self, lines):
        self.lines = lines  # [(number, text)]
        self.expect = []  # [('status', n) | ('body', text)]

    @property
    def number(self):
        return self.lines[0][0]


def shell_commands(block):
    """The block's commands (continuation lines and here-documents joined), each with the
    expectations its comments state."""
    commands = []
    lines = block.lines
    i = 0
    last = None
    while i < len(lines):
        number, text = lines[i]
        if not text.strip():
            last = None
            i += 1
            continue
        if text.lstrip().startswith("#"):
            found = expectation(text.lstrip()[1:])
            if last is not None and found:
                last.expect.append(found)
            elif last is not None and not found:
                last = None
            i += 1
            continue
        group = [(number, text)]
        heredoc = re.search(r"<<-?\s*'?(\w+)'?", split_comment(text)[0])
        while True:
            if heredoc:
                i += 1
                while i < len(lines) and lines[i][1].strip() != heredoc.group(1):
                    group.append(lines[i])
                    i += 1
                group.append(lines[i])
                heredoc = None
                break
            quote = open_quote(text for _, text in group[:-1])
            code, _ = split_comment(group[-1][1], quote)
            if (open_quote(text for _, text in group) or code.rstrip().endswith("\\")) and i + 1 < len(lines):
                i += 1
                group.append(lines[i])
                continue
            break
        command = Command(group)
        _, comment = split_comment(group[-1][1], open_quote(text for _, text in group[:-1]))
        found = expectation(comment)
        if found:
            command.expect.append(found)
        commands.append(command)
        last = command
        i += 1
    return commands


def localise(text, work, port, tls_port):
    text = re.sub(r"\b(127\.0\.0\.1|localhost):8080\b", rf"\g<1>:{port}", text)
    text = re.sub(r"(:|--tls-port )8443\b", rf"\g<1>{tls_port}", text)
    # A second server of the reader's own (an upstream for --proxy) listens on 9090
    # (`http.server 9090`, or `port=9090` in Python).
    text = re.sub(r"(127\.0\.0\.1:|http\.server |port=)9090\b", r"\g<1>$__UPSTREAM_PORT", text)
    text = text.replace("/tmp/ws-venv", os.path.join(ROOT, ".build", "readme-check", "ws-venv"))
    text = text.replace("/tmp/", work + "/")
    text = re.sub(r"^(\s*)K=…", r'\1K=$(__startup_value "api key")', text)
    text = re.sub(r"^(\s*swift run mockbackend\b[^#&]*)&", r"\1", text)
    return text


PRELUDE = r"""
exec 3>&1
__line=0
__block=0
__fail() {
    echo "readme-check: README.md:$__line (the block at line $__block): $*" >&3
    exit 1
}
__children() { jobs -p; }
__cleanup() {
    local pid
    for pid in $(jobs -p); do kill "$pid" 2>/dev/null; done
    __server_stop
}
trap __cleanup EXIT
__at() { __line=$1; __block=$2; export __line; }
__done() {
    local rc=$1
    [ "$rc" = 0 ] || __fail "the command exited $rc"
    python3 "$__CHECKER" check-records "$__STATE" "$__line" >&3 || exit 1
}
__server_stop() {
    if [ -s "$__STATE/server.pid" ]; then
        local pid
        pid=$(cat "$__STATE/server.pid")
        : >"$__STATE/server.pid"
        kill -TERM "$pid" 2>/dev/null
        local i
        for i in $(seq 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
        __fail "the server did not stop within 5 s of SIGTERM"
    fi
}
__startup_value() {
    sed -n "s/^  $1 *\([^ ]*\).*/\1/p" "$__STATE/server.log" | head -1
}
swift() {
    if [ "${1-}" != run ] || [ "${2-}" != mockbackend ]; then
        __fail "only 'swift run mockbackend …' runs here"
    fi
    shift 2
    __server_stop
    local args=() port=0
    while [ $# -gt 0 ]; do
        case "$1" in
            --port) args+=(--port "$__PORT"); port=1; shift 2 ;;
            --host) __fail "the check listens on 127.0.0.1 only" ;;
            *) args+=("$1"); shift ;;
        esac
    done
    [ $port = 1 ] || args+=(--port "$__PORT")
    echo "readme-check: mockbackend ${args[*]}" >&3
    # Started from a subshell, so that it is no job of this shell: a README's `wait` waits
    # for what the README started, not for the server.
    ("$__BINARY" "${args[@]}" >"$__STATE/server.log" 2>&1 & echo $! >"$__STATE/server.pid")
    local i
    for i in $(seq 300); do
        grep -q "^mockbackend listening on " "$__STATE/server.log" && return 0
        kill -0 "$(cat "$__STATE/server.pid")" 2>/dev/null || { cat "$__STATE/server.log" >&3; __fail "the server did not start"; }
        sleep 0.1
    done
    __fail "the server did not say it listens within 30 s"
}
open() { curl -s -o /dev/null "$1"; }
curl() {
    local args=() bounded=0 headers=0 writeout=0 record
    record="$__STATE/curl/$__line.$BASHPID.$RANDOM"
    while [ $# -gt 0 ]; do
        case "$1" in
            -w|--write-out) args+=("$1" "$2%{stderr}@@status %{http_code}\n"); writeout=1; shift 2; continue ;;
            -m|--max-time) bounded=1 ;;
            -i|--include|-D|--dump-header) headers=1 ;;
            -*) [[ "$1" =~ ^-[a-zA-Z]*i[a-zA-Z]*$ ]] && headers=1
                [[ "$1" =~ ^-[a-zA-Z]*m$ ]] && bounded=1 ;;
        esac
        args+=("$1")
        shift
    done
    [ $writeout = 1 ] || args+=(-w "%{stderr}@@status %{http_code}\n")
    [ $bounded = 1 ] || args=(--max-time "$__CURL_TIME_LIMIT" "${args[@]}")
    args=(--resolve "localhost:$__PORT:127.0.0.1" --resolve "localhost:$__TLS_PORT:127.0.0.1" $__CURL_OPTIONS "${args[@]}")
    echo "bounded=$bounded headers=$headers" >"$record.meta"
    command curl "${args[@]}" 2>"$record.err" | tee "$record.out"
    local rc=${PIPESTATUS[0]}
    echo "$rc" >"$record.rc"
    # A stream the command bounds with --max-time ends at that limit: as it should.
    [ "$rc" = 28 ] && [ $bounded = 1 ] && return 0
    return "$rc"
}
"""


def generate_script(blocks, work, port, tls_port):
    out = ["#!/usr/bin/env bash", PRELUDE]
    expectations = {}
    skipped = []
    ran = []
    for block in blocks:
        if block.info not in SHELL_INFOS:
            continue
        reason = skip_reason(block)
        if reason is not None:
            skipped.append((block.fence_line, reason))
            continue
        ran.append(block.fence_line)
        for command in shell_commands(block):
            expectations[command.number] = {"block": block.fence_line, "expect": command.expect}
            out.append(f"__at {command.number} {block.fence_line}")
            out.extend(localise(text, work, port, tls_port) for _, text in command.lines)
            out.append("__done $?")
    out.append("__at 0 0; wait")
    out.append('python3 "$__CHECKER" check-records "$__STATE" all >&3 || exit 1')
    return "\n".join(out) + "\n", expectations, skipped, ran


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_fixtures(work):
    """Files the README's commands take as the reader's own."""
    with open(os.path.join(work, "wiremock-export.json"), "w") as f:
        json.dump(
            {
                "mappings": [
                    {"request": {"method": "GET", "urlPath": "/api/exported"}, "response": {"status": 200, "body": "hi"}}
                ]
            },
            f,
        )
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
         "-keyout", "key.pem", "-out", "cert.pem", "-days", "2", "-subj", "/CN=localhost",
         "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
        cwd=work, check=True, capture_output=True,
    )


def run_shell(readme, binary, quiet=False, curl_options=()):
    with open(readme) as f:
        blocks = parse_blocks(f.read())
    work = tempfile.mkdtemp(prefix="readme-check.")
    state = os.path.join(work, ".state")
    os.makedirs(os.path.join(state, "curl"))
    os.makedirs(os.path.join(ROOT, ".build", "readme-check"), exist_ok=True)
    port, tls_port = free_port(), free_port()
    script, expectations, skipped, ran = generate_script(blocks, work, port, tls_port)
    with open(os.path.join(state, "expectations.json"), "w") as f:
        json.dump(expectations, f)
    with open(os.path.join(state, "script.sh"), "w") as f:
        f.write(script)
    make_fixtures(work)
    say = (lambda *a: None) if quiet else print
    for line, reason in skipped:
        say(f"readme-check: skipped the block at README.md:{line}: {reason}")
    env = dict(os.environ)
    env.update(
        __PORT=str(port), __TLS_PORT=str(tls_port), __UPSTREAM_PORT=str(free_port()), __BINARY=os.path.abspath(binary), __STATE=state,
        __CHECKER=os.path.abspath(__file__), __CURL_TIME_LIMIT=str(CURL_TIME_LIMIT),
        __CURL_OPTIONS=" ".join(curl_options),
    )
    log_path = os.path.join(state, "output.log")
    with open(log_path, "w") as log:
        process = subprocess.Popen(
            ["bash", os.path.join(state, "script.sh")], cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT,
            pass_fds=(), start_new_session=True, **({} if quiet else {}),
        )
        try:
            rc = process.wait(timeout=300)
        except subprocess.TimeoutExpired:
            rc = None
        finally:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    with open(log_path, errors="replace") as f:
        output = f.read()
    messages = re.findall(r"readme-check: [^\n]*", output)
    if rc == 0:
        say(f"readme-check: {len(ran)} shell blocks ran, {len(expectations)} commands, all as the README says")
        if os.environ.get("README_CHECK_KEEP"):
            say(f"readme-check: scratch directory kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
        return True, messages
    if not quiet:
        tail = re.sub(r"readme-check: [^\n]*", "", output).splitlines()[-40:]
        print("readme-check: the last output before the failure:")
        for line in tail:
            print("    " + line[:300])
        for line in messages:
            print(line)
        if rc is None:
            print("readme-check: the shell blocks did not finish within 5 minutes")
        print(f"readme-check: scratch directory kept: {work}")
    return False, messages


def check_records(state, which):
    with open(os.path.join(state, "expectations.json")) as f:
        expectations = json.load(f)
    directory = os.path.join(state, "curl")
    failures = []
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".rc"):
            continue
        base = os.path.join(directory, name[:-3])
        line = name.split(".")[0]
        if (which != "all" and line != which) or os.path.exists(base + ".checked"):
            continue
        open(base + ".checked", "w").close()
        entry = expectations.get(line, {"block": "?", "expect": []})
        where = f"README.md:{line} (the block at line {entry['block']})"
        meta = dict(item.split("=") for item in open(base + ".meta").read().split())
        rc = int(open(base + ".rc").read().strip() or "0")
        err = open(base + ".err", errors="replace").read()
        out = open(base + ".out", "rb").read().decode("utf-8", "replace")
        codes = re.findall(r"@@status (\d+)", err)
        status = int(codes[-1]) if codes else 0
        curl_errors = [l for l in err.splitlines() if l.startswith("curl:")]
        if rc != 0 and not (rc == 28 and meta.get("bounded") == "1"):
            failures.append(f"{where}: curl exited {rc} {' '.join(curl_errors)} (HTTP status {status})")
            continue
        wanted = [value for kind, value in entry["expect"] if kind == "status"]
        if wanted and status not in wanted:
            failures.append(f"{where}: HTTP status {status}, the README says {wanted[0]}")
        elif not wanted and not 100 <= status < 400:
            failures.append(f"{where}: HTTP status {status}; body: {out[:300]!r}")
        body = out
        if meta.get("headers") == "1":
            while body.startswith("HTTP/"):
                cut = body.find("\r\n\r\n")
                body = body[cut + 4 :] if cut >= 0 else ""
        for kind, value in entry["expect"]:
            if kind == "body" and not re.fullmatch(body_pattern(value), body.strip()):
                failures.append(f"{where}: the answer {body.strip()[:600]} is not what the README shows: {value}")
    if which == "all":
        seen = {name.split(".")[0] for name in os.listdir(directory)}
        for line, entry in expectations.items():
            if entry["expect"] and line not in seen:
                failures.append(f"README.md:{line}: the README shows an answer, but no curl ran")
    for failure in failures:
        print("readme-check: " + failure)
    return not failures


# ---------------------------------------------------------------------------------------
# Swift blocks

SNIPPET_CONTEXT = """\
import Foundation
import MockBackendClient

// What the README's snippets take from the reader's own code.
let baseURL = URL(string: "http://127.0.0.1:8080")!
let jobId = "import_9b87a791a94a"
let id = "gen_8c1d"
let bearer = "token"
func pollUntilDone() async {}
func show(_ fraction: Double) {}
"""

DECLARATION = re.compile(
    r"^(import|@|func|struct|class|final|enum|actor|extension|protocol|public|private|fileprivate|internal|"
    r"let|var|typealias|//|/\*|\}|\s|$)"
)


def snippet_files(blocks):
    files = []
    for block in blocks:
        if block.info != "swift":
            continue
        reason = skip_reason(block)
        if reason is not None:
            print(f"readme-check: skipped the Swift block at README.md:{block.fence_line}: {reason}")
            continue
        index = len(files) + 1
        texts = [text for _, text in block.lines]
        statements = any(not DECLARATION.match(text) for text in texts) or any(
            re.match(r"^(let|var) ", text) for text in texts
        )
        first = block.lines[0][0] if block.lines else block.fence_line + 1
        imports = [text for text in texts if text.startswith("import ")]
        body = [f'#sourceLocation(file: "README.md", line: {first})']
        for text in texts:
            body.append("" if text.startswith("import ") else text)
        body.append("#sourceLocation()")
        if statements:
            body = [f"func snippet{index}() async throws {{"] + body + ["}"]
        files.append((f"Snippet{index}.swift", "\n".join(imports + body) + "\n"))
    return files


def run_swift(readme, bin_path, quiet=False):
    with open(readme) as f:
        blocks = parse_blocks(f.read())
    files = snippet_files(blocks)
    work = tempfile.mkdtemp(prefix="readme-snippets.")
    paths = []
    for name, text in [("Context.swift", SNIPPET_CONTEXT)] + files:
        path = os.path.join(work, name)
        with open(path, "w") as f:
            f.write(text)
        paths.append(path)
    command = ["swiftc", "-parse-as-library", "-swift-version", "6", "-module-name", "ReadmeSnippets", "-wmo", "-c",
               "-o", os.path.join(work, "snippets.o"), "-I", os.path.join(bin_path, "Modules")]
    for modulemap in (
        "Sources/CZlib/module.modulemap", "Sources/COpenSSL/module.modulemap", "Sources/CEpoll/module.modulemap",
        "Sources/CNghttp2/module.modulemap",
    ):
        command += ["-Xcc", "-fmodule-map-file=" + os.path.join(ROOT, modulemap)]
    result = subprocess.run(command + paths, capture_output=True, text=True)
    shutil.rmtree(work, ignore_errors=True)
    if result.returncode == 0:
        if not quiet:
            print(f"readme-check: {len(files)} Swift blocks compiled")
        return True, ""
    if not quiet:
        print(result.stdout + result.stderr)
        print("readme-check: a Swift block of the README does not compile (see above)")
    return False, result.stdout + result.stderr


# ---------------------------------------------------------------------------------------
# Self-test: drifted copies must fail, each for the reason drifted in


DRIFTS = [
    # (what drifts, old, new, what the failure must name)
    ("a route renamed", "curl -i http://127.0.0.1:8080/__admin/health", "curl -i http://127.0.0.1:8080/__admin/healthz",
     "HTTP status 404"),
    ("an answer changed", '# {"status":"ok"}', '# {"status":"up"}', "is not what the README shows"),
    ("a status changed", "# 405 with Allow", "# 404 with Allow", "the README says 404"),
    ("a stream's route renamed", "curl -N $B/api/v2/imports/$J/stream\n", "curl -N $B/api/v2/import/$J/stream\n",
     "HTTP status 404"),
]


def self_test(readme, binary, bin_path):
    with open(readme) as f:
        original = f.read()
    ok = True
    with tempfile.TemporaryDirectory(prefix="readme-drift.") as work:
        for what, old, new, reason in DRIFTS:
            if original.count(old) != 1:
                print(f"readme-check: self-test: {old!r} is not in README.md once; update DRIFTS")
                ok = False
                continue
            drifted = original.replace(old, new)
            line = original[: original.index(old)].count("\n") + 1
            path = os.path.join(work, "README.md")
            with open(path, "w") as f:
                f.write(drifted)
            passed, messages = run_shell(path, binary, quiet=True)
            named = [m for m in messages if f"README.md:{line} " in m and reason in m]
            if passed or not named:
                print(f"readme-check: self-test: {what} at README.md:{line} was not caught: {messages}")
                ok = False
            else:
                print(f"readme-check: self-test: {what} at line {line} fails the run: {named[0][len('readme-check: '):]}")
        swift_drift = original.replace("body.exitReasonCode == 1", "body.exitCode == 1")
        line = original[: original.index("body.exitReasonCode == 1")].count("\n") + 1
        path = os.path.join(work, "README.md")
        with open(path, "w") as f:
            f.write(swift_drift)
        passed, output = run_swift(path, bin_path, quiet=True)
        if passed or f"README.md:{line}:" not in output:
            print(f"readme-check: self-test: a renamed property in a Swift block (line {line}) was not caught")
            ok = False
        else:
            print(f"readme-check: self-test: a renamed property in a Swift block (line {line}) fails to compile")
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("mode", choices=["shell", "swift", "self-test", "check-records"])
    parser.add_argument("args", nargs="*")
    parser.add_argument("--readme", default=os.path.join(ROOT, "README.md"))
    parser.add_argument("--binary")
    parser.add_argument("--bin-path")
    parser.add_argument(
        "--curl-option", action="append", default=[],
        help="added to every curl the shell blocks run (--http2-prior-knowledge: the second pass, over h2c)")
    options = parser.parse_args()
    if options.mode == "check-records":
        sys.exit(0 if check_records(*options.args) else 1)
    if options.mode == "shell":
        sys.exit(0 if run_shell(options.readme, options.binary, curl_options=options.curl_option)[0] else 1)
    if options.mode == "swift":
        sys.exit(0 if run_swift(options.readme, options.bin_path)[0] else 1)
    sys.exit(0 if self_test(options.readme, options.binary, options.bin_path) else 1)


if __name__ == "__main__":
    main()
