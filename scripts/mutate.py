"""Mutation testing, one scope at a time: mutmut 3 changes the code one small edit at a time and runs the tests that
reach the edited function; a mutant the tests do not notice ("survived") is a break the suite would let through.

    ./scripts/mutate.sh SCOPE [--workers N] [--fresh] [--rev REV] [--only GLOB...] [--sample N [--seed S]]
                        [--survivors [--checked] [--tests FILE...]] [--report]
    SCOPE: engine | engine/kenza | engine/canasta | engine/tunj | engine/konkan_cards | engine/konkan_tiles |
           engine/core | storage | bot | bot/core | bot/callbacks | bot/games

Each scope is run in its own snapshot under `.mutation/<scope>/` (the packages, tests and pyproject.toml are copied
there with a `[tool.mutmut]` table for that scope, so edits made meanwhile do not mix into a run, and mutmut's
cache in `.mutation/<scope>/mutants/` makes a second run retest only what changed; `--fresh` starts over). The
tests a scope runs are the ones for that code (engine scopes: the rules/contract/property/bot tests; storage: the
storage tests; bot: the service, callbacks, chat and guard tests); mutmut then runs, per mutant, only those of
them that called the mutated function. `bot` mutates bot/callbacks.py, bot/games/ and the move path of
bot/service.py (press, routing, human/timer/bot moves, commit, deadlines), not the rest of the service; the
bot/... and engine/... scopes are its parts, for runs of a few minutes each.

Prints the score: killed / (all mutants - the equivalent ones listed in scripts/mutation-equivalent.txt), and
every survivor with `mutmut show`-style names to inspect (`cd .mutation/<scope> && ../../.venv/bin/mutmut show
NAME`). Exit code 0 whatever the score: this is a tool to find weak tests, not a gate.

`--rev REV` snapshots the code and tests of a git revision instead of the working tree (a "before" score).
`--only GLOB...` checks only the mutants of those names that the scope's last run left unchecked (a run stopped
for time goes on with the rules code before, say, the bots' heuristics).
`--survivors` copies the current tests into the scope's snapshot and reruns only the mutants its last run did
not kill (equivalent ones left out): adding tests cannot revive a killed mutant, so after writing tests this gives
the new score in minutes instead of rerunning every mutant (the code under test must be unchanged since that run;
otherwise use --fresh); `--survivors --checked` leaves out what a stopped run never reached (the AFTER of a
partial run's checked part). `--survivors --tests FILE...` runs only the named test files against them: a survivor
has already passed every other test of the scope, so only tests added or changed since can kill it, and a survivor
no longer pays for the slow tests it has already passed.
`--sample N [--seed S]` checks N mutants drawn at random (seeded, so the same N and S draw the same mutants) from all
of the scope's mutants, equivalent ones left out, and prints the score of that sample with its 95 % interval: a
package of thousands of mutants (engine, bot) gets an estimate of its whole score in the time a few hundred take,
instead of an exact score for whichever files a stopped run happened to reach. `--report` then prints the sample's
score too, and `--survivors --checked` reruns the sample's survivors against new tests.
"""

from __future__ import annotations

import argparse
import ast
import fnmatch
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ["engine", "storage", "bot", "renderers", "bench"]  # bench: tests import its helpers
ENGINE_TESTS = ["tests/test_kenza_*.py", "tests/test_canasta_*.py", "tests/test_tunj_*.py", "tests/test_konkan_*.py",
                "tests/test_engine*.py"]
NOT_ENGINE_TESTS = ["tests/test_*_chat.py"]
# Statistical strength checks (normal bot vs random over many matches, 5-11 s each) are left out of mutation runs:
# every surviving mutant would pay for them, and they assert a rate, not a rule.
SLOW = ["not beats_random", "not usually_beats_random"]
# The service's move path: the functions a press, a typed move, a bot's move and a turn timer go through. The service
# (bot/service.py) is a facade over bot/core/: play.py (typed and pressed moves, picks, commits, bots) and timers.py
# (turn timers, the timer's move, away seats) are mutated whole; from the rest only the functions on that path:
# the press and its routing, the restart's owed bot moves, the seat lookups and per-match memory of a move, and the
# delivery bookkeeping a commit writes (what is owed, who moved, whose rack the platform refused).
MOVE_PATH = [
    "bot.core.play.*", "bot.core.timers.*",
    *(f"bot.service.xǁServiceǁ{name}__mutmut_*" for name in ["press", "_press", "_route", "resume"]),
    *(f"bot.core.state.xǁServiceStateǁ{name}__mutmut_*" for name in ["_seat_of", "_keep_pick_after_move", "_forget"]),
    *(f"bot.core.delivery.xǁDeliveryǁ{name}__mutmut_*" for name in ["_schedule", "_moved", "rack_missing"]),
]
MOVE_PATH_FILES = ["bot/service.py", "bot/core/play.py", "bot/core/timers.py", "bot/core/state.py",
                   "bot/core/delivery.py"]
# The move path's tests: the service's own, presses (forged, stale, cross-platform, old picking keyboards), the
# adapters' guard tests, the terminal, restarts and timers, coin tables (a stake paid in the final move's commit).
# Tunj calls (a call from off turn, twice, with no claim open) are answered on the move path: the Tunj chat tests.
# The move path's answers in the player's language and /timer, the timer's moves, and the timer loop's sleeps and
# wakes have test files of their own (their names match none of the patterns above), and so do a Tunj bot's
# pace, the terminal's Tunj window, lobby deliveries, message slot claims and the legality of every picker button;
# matchmaking's presses (Play now, Leave queue, moves at a matched table on every platform) have theirs.
GUARD_TESTS = ["tests/test_service*.py", "tests/test_callbacks*.py", "tests/test_telegram_guards.py",
               "tests/test_discord_guards.py", "tests/test_console.py", "tests/test_stale_picks.py",
               "tests/test_forged_presses.py", "tests/test_cross_platform.py", "tests/test_restart_timers.py",
               "tests/test_coins.py", "tests/test_tunj_chat.py", "tests/test_move_answers_language.py",
               "tests/test_timer_moves.py", "tests/test_timer_loop.py", "tests/test_tunj_bot_pace.py",
               "tests/test_console_tunj.py", "tests/test_lobby_delivery.py", "tests/test_delivery_claims.py",
               "tests/test_picker_buttons.py", "tests/test_matchmaking.py"]
# The per-game chat glue: the service and chat tests, and the round sheets each game's UI writes (round summaries).
UI_TESTS = ["tests/test_service*.py", "tests/test_*_chat.py", "tests/test_round_summaries.py"]
BOT_TESTS = sorted(set(GUARD_TESTS + UI_TESTS))
# Whole end-to-end matches left out of the bot scopes (docs/testing.md says why each is safe to leave out): the two
# coin matches played to the end (10-20 s each; the stake's hold and pay on the move path are asserted by
# test_stakes_held_at_start_paid_with_the_final_move_or_refunded in 0.1 s).
BOT_SLOW = ["not test_a_whole_coin_match_by_buttons_pays_the_winner",
            "not test_a_terminal_coin_table_pass_and_play_to_the_end"]

# The store's tests: its own, and the files that test one part of it under another name — ratings and the ladder's
# standings (storage/ratings.py, ladder.py, stats.py), coin balances, holds and pots (storage/coins.py), the schema
# migrations up and down (storage/revisions/) — without which a storage sample finds half its mutants untested.
STORAGE_TESTS = ["tests/test_storage*.py", "tests/test_ratings_storage.py", "tests/test_coins.py",
                 "tests/test_schema_migrations.py", "tests/test_standings_direction.py", "tests/test_ladder_chat.py",
                 "tests/test_matchmaking_queue.py"]

SCOPES: dict[str, dict] = {
    "engine": {"source": "engine", "only": [], "tests": ENGINE_TESTS},
    "engine/kenza": {"source": "engine", "only": ["engine/kenza/*.py"],
                     "tests": ["tests/test_kenza_*.py", "tests/test_engine*.py"]},
    "engine/canasta": {"source": "engine", "only": ["engine/canasta/*.py"],
                       "tests": ["tests/test_canasta_*.py", "tests/test_engine*.py"]},
    "engine/tunj": {"source": "engine", "only": ["engine/tunj/*.py"],
                    "tests": ["tests/test_tunj_*.py", "tests/test_engine*.py"]},
    "engine/konkan_cards": {"source": "engine", "only": ["engine/konkan_cards/*.py"],
                            "tests": ["tests/test_konkan_cards_*.py", "tests/test_konkan_refusals.py",
                                      "tests/test_engine*.py"]},
    "engine/konkan_tiles": {"source": "engine", "only": ["engine/konkan_tiles/*.py"],
                            "tests": ["tests/test_konkan_tiles_*.py", "tests/test_konkan_refusals.py",
                                      "tests/test_engine*.py"]},
    "engine/core": {"source": "engine", "only": ["engine/*.py", "engine/bots/*.py"], "tests": ENGINE_TESTS},
    "storage": {"source": "storage", "only": [], "tests": STORAGE_TESTS},
    "bot": {"source": "bot", "only": [*MOVE_PATH_FILES, "bot/callbacks.py", "bot/games/*.py"], "tests": BOT_TESTS,
            "mutants": ["bot.callbacks.*", "bot.games.*", *MOVE_PATH]},
    "bot/core": {"source": "bot", "only": MOVE_PATH_FILES, "tests": GUARD_TESTS, "mutants": MOVE_PATH},
    "bot/callbacks": {"source": "bot", "only": ["bot/callbacks.py"], "tests": GUARD_TESTS},
    "bot/games": {"source": "bot", "only": ["bot/games/*.py"], "tests": UI_TESTS},
}
KILLED = {1: "killed", 3: "killed", 36: "timeout", -24: "timeout", 24: "timeout", 152: "timeout", 255: "timeout",
          37: "type check", -11: "crash", -9: "crash"}


def mutated_files(scope: str) -> list[str]:
    """The files a scope mutates (pathlib's `*` stays inside one folder; mutmut's fnmatch would not)."""
    spec = SCOPES[scope]
    return sorted(str(p.relative_to(ROOT)) for pattern in spec["only"] or [f"{spec['source']}/**/*.py"]
                  for p in ROOT.glob(pattern))


def toml_list(values: list[str]) -> str:
    return "[" + ", ".join(json.dumps(v) for v in values) + "]"


def export(rev: str, folder: Path) -> Path:
    """The project as it was at git revision `rev`, unpacked into `folder`."""
    archive = folder / "rev.tar"
    with archive.open("wb") as out:
        subprocess.run(["git", "archive", rev], cwd=ROOT, stdout=out, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(folder / "tree", filter="data")
    return folder / "tree"


def prepare(scope: str, work: Path, fresh: bool, source: Path = ROOT, only_tests: bool = False,
            selection: list[str] | None = None) -> None:
    """Snapshot the project (from `source`) into `work` with a [tool.mutmut] table for the scope (its tests, or
    the test files named in `selection`)."""
    spec = {**SCOPES[scope], **({"tests": selection} if selection else {})}
    if fresh and work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True, exist_ok=True)
    for name in ["tests"] if only_tests else [*PACKAGES, "tests"]:
        target = work / name
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(source / name, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    tests = [str(path.relative_to(work)) for path in sorted((work / "tests").glob("test_*.py"))]
    tests = [name for name in tests if any(fnmatch.fnmatch(name, pattern) for pattern in spec["tests"])
             and not (spec["source"] == "engine" and any(fnmatch.fnmatch(name, x) for x in NOT_ENGINE_TESTS))]
    project = (source / "pyproject.toml").read_text(encoding="utf-8").split("\n[tool.mutmut]")[0]
    others = [name for name in PACKAGES if name != spec["source"]]
    slow = SLOW + (BOT_SLOW if spec["source"] in ("bot", "storage") else [])  # storage runs test_coins.py too
    (work / "pyproject.toml").write_text(
        project.rstrip("\n") + "\n\n[tool.mutmut]\n"
        f"source_paths = {toml_list([spec['source']])}\n"
        f"only_mutate = {toml_list(mutated_files(scope))}\n"
        f"also_copy = {toml_list(others)}\n"
        f"pytest_add_cli_args_test_selection = {toml_list(tests + ['-k', ' and '.join(slow)])}\n"
        # pytest-timeout's 120 s is wall-clock time: on a loaded machine, with mutmut tracing every call, a whole bot
        # match can pass it, failing the stats run or passing a mutant's timeout for a kill. mutmut limits each
        # mutant's CPU time itself (endless loops), so the safety net here only catches waits that never end.
        'pytest_add_cli_args = ["-p", "no:cacheprovider", "-x", "-q", "--timeout", "1800"]\n'
        # An endless loop (a mutated bound) is a kill; do not wait mutmut's 15x the tests' time, but leave room for a
        # machine shared with other jobs (a run slowed by load must not pass for a kill).
        "timeout_multiplier = 5.0\n",
        encoding="utf-8")


def equivalents() -> dict[str, str]:
    """Mutants that cannot change behaviour, with the reason, from scripts/mutation-equivalent.txt."""
    listed: dict[str, str] = {}
    path = ROOT / "scripts" / "mutation-equivalent.txt"
    for line in path.read_text(encoding="utf-8").splitlines() if path.exists() else []:
        name, _, reason = line.partition("#")
        if name.strip():
            listed[name.strip()] = reason.strip()
    return listed


SQL = re.compile(r"^\s*(SELECT|INSERT|UPDATE|DELETE|CREATE|ALTER|DROP|PRAGMA|BEGIN|COMMIT|ROLLBACK|SAVEPOINT|"
                 r"RELEASE)\b", re.IGNORECASE)
ROW_NAMES = {"row", "seat", "match", "saved", "taken", "r", "busy"}  # aiosqlite.Row variables in storage/


def _sql_words(text: str) -> str:
    """SQL text with its quoted literals kept and everything else folded to lower case (SQLite's own reading)."""
    return "".join(part if part.startswith("'") else part.lower() for part in re.split(r"('[^']*')", text))


def case_only(original: ast.AST, mutant: ast.AST) -> bool:
    """The mutant differs from the original only by the letter case of SQL text outside its quoted literals, or of
    a column name looked up on a row: SQLite reads keywords, table and column names, and sqlite3.Row looks up
    columns, without regard to case, so such a mutant cannot change what the code does."""
    if len(list(ast.walk(original))) != len(list(ast.walk(mutant))):
        return False
    differing = []
    parents = {id(child): node for node in ast.walk(mutant) for child in ast.iter_child_nodes(node)}
    for one, two in zip(ast.walk(original), ast.walk(mutant), strict=False):
        if type(one) is not type(two):
            return False
        if isinstance(one, ast.Constant) and one.value != two.value:
            differing.append((one.value, two))
    if not differing:
        return False
    for before, node in differing:
        after = node.value
        if not (isinstance(before, str) and isinstance(after, str) and before.lower() == after.lower()):
            return False
        parent = parents.get(id(node))
        row_key = (isinstance(parent, ast.Subscript) and isinstance(parent.value, ast.Name)
                   and parent.value.id in ROW_NAMES)
        if not row_key and not (SQL.match(before) and _sql_words(before) == _sql_words(after)):
            return False
    return True


FLAGS = {"write", "ensure_ascii", "allow_nan"}  # keyword arguments their callees only test for truth


def false_to_none(original: ast.AST, mutant: ast.AST) -> bool:
    """The mutant only passes None for False to a flag its callee tests for truth (`write=None`): the same branch."""
    def normal(tree: ast.AST) -> str:
        copy = ast.parse(ast.unparse(tree))
        for node in ast.walk(copy):
            if (isinstance(node, ast.keyword) and node.arg in FLAGS and isinstance(node.value, ast.Constant)
                    and node.value.value is None):
                node.value = ast.Constant(False)
        return ast.dump(copy)
    return ast.dump(original) != ast.dump(mutant) and normal(original) == normal(mutant)


def storage_case_equivalents(work: Path, names: list[str]) -> dict[str, str]:
    """Which of `names` (storage mutants) are `case_only` changes, with the reason."""
    found: dict[str, str] = {}
    trees: dict[str, dict[str, ast.AST]] = {}
    for name in names:
        module, _, function = name.rpartition(".")
        if not module.startswith("storage."):
            continue
        if module not in trees:
            source = (work / "mutants" / (module.replace(".", "/") + ".py")).read_text(encoding="utf-8")
            trees[module] = {node.name: node for node in ast.walk(ast.parse(source))
                             if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)}
        original = trees[module].get(function.rsplit("__mutmut_", 1)[0] + "__mutmut_orig")
        mutant = trees[module].get(function)
        if original is not None and mutant is not None:
            one, two = ast.Module([*original.body], []), ast.Module([*mutant.body], [])
            if case_only(one, two):
                found[name] = "letter case of SQL text or of a row's column name: SQLite and sqlite3.Row ignore it"
            elif false_to_none(one, two):
                found[name] = "None for False in a flag the callee only tests for truth"
    return found


def results(work: Path, scope: str) -> dict[str, int | None]:
    spec = SCOPES[scope]
    found: dict[str, int | None] = {}
    files = set(mutated_files(scope))
    for meta in (work / "mutants").rglob("*.meta"):
        relative = str(meta.relative_to(work / "mutants"))[: -len(".meta")]
        if relative not in files:
            continue
        for name, code in json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"].items():
            if not spec.get("mutants") or any(fnmatch.fnmatch(name, glob) for glob in spec["mutants"]):
                found[name] = code
    return found


def wilson(killed: int, total: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson score interval of a kill rate measured on a random sample (sound near 100 %, where the normal
    approximation's interval would pass 1)."""
    if total == 0:
        return 0.0, 1.0
    rate = killed / total
    centre = (rate + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(rate * (1 - rate) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return max(0.0, centre - half), min(1.0, centre + half)


# A mutant name no function has: mutmut generates the scope's mutants and maps its tests, then finds nothing to run.
GENERATE_ONLY = "generate.only__mutmut_0"


def draw_sample(work: Path, scope: str, size: int, seed: int, workers: int) -> tuple[list[str], int]:
    """`size` of the scope's mutants drawn at random, equivalent ones left out (the scope's mutants are generated
    first if this snapshot has none yet)."""
    known = results(work, scope)
    if not known:
        run_mutmut(work, workers, [GENERATE_ONLY])
        known = results(work, scope)
    if not known:
        sys.exit("--sample: mutmut generated no mutants for " + scope)
    skip = {**equivalents(), **storage_case_equivalents(work, sorted(known))}
    population = sorted(name for name in known if name not in skip)
    return sorted(random.Random(seed).sample(population, min(size, len(population)))), len(population)


def report(scope: str, found: dict[str, int | None], work: Path | None = None) -> None:
    sample_file = work / "sample.json" if work is not None else None
    if sample_file is not None and sample_file.exists():
        drawn = json.loads(sample_file.read_text())
        listed = equivalents()  # a drawn mutant found equivalent later leaves the sample (it was never a break)
        left_out = [name for name in drawn["names"] if name in listed]
        report_sample(scope, {name: found.get(name) for name in drawn["names"] if name not in listed}, drawn, work)
        if left_out:
            print(f"  drawn but listed as equivalent since: {', '.join(left_out)}")
        return
    skip = equivalents()
    if work is not None:
        skip.update(storage_case_equivalents(work, [n for n, code in found.items() if code not in KILLED]))
    counted = {name: code for name, code in found.items() if name not in skip}
    statuses = Counter(KILLED.get(code, "survived" if code == 0 else "no tests" if code in (5, 33) else
                                  "not checked" if code is None else f"exit {code}") for code in counted.values())
    killed = sum(n for status, n in statuses.items() if status in ("killed", "timeout", "type check", "crash"))
    total = len(counted)
    print(f"\n{scope}: {killed}/{total} killed = {100 * killed / max(1, total):.1f}% "
          f"({', '.join(f'{s} {n}' for s, n in sorted(statuses.items()))}; "
          f"{len(found) - total} listed as equivalent)")
    for name, code in sorted(counted.items()):
        if code not in KILLED:
            print(f"  {'survived' if code == 0 else 'no tests' if code in (5, 33) else code}: {name}")


def report_sample(scope: str, found: dict[str, int | None], drawn: dict, work: Path | None) -> None:
    """The sample's score, its 95 % interval as an estimate for the whole scope, and the sample's survivors."""
    statuses = Counter(KILLED.get(code, "survived" if code == 0 else "no tests" if code in (5, 33) else
                                  "not checked" if code is None else f"exit {code}") for code in found.values())
    killed = sum(n for status, n in statuses.items() if status in ("killed", "timeout", "type check", "crash"))
    checked = len(found) - statuses.get("not checked", 0)
    low, high = wilson(killed, checked)
    print(f"\n{scope}: sample of {len(found)} (seed {drawn['seed']}) from {drawn['population']} mutants "
          f"(equivalent ones left out): {killed}/{checked} checked killed = {100 * killed / max(1, checked):.1f}% "
          f"(95 % interval for the whole scope {100 * low:.1f}–{100 * high:.1f}%; "
          f"{', '.join(f'{s} {n}' for s, n in sorted(statuses.items()))})")
    by_module = Counter(name.rsplit(".", 1)[0].split(".x")[0].split("ǁ")[0] for name in found)
    print("  drawn per module: " + ", ".join(f"{module} {n}" for module, n in sorted(by_module.items())))
    for name, code in sorted(found.items()):
        if code not in KILLED and code is not None:
            print(f"  {'survived' if code == 0 else 'no tests' if code in (5, 33) else code}: {name}")


def run_mutmut(work: Path, workers: int, names: list[str]) -> None:
    """Run mutmut, echoing its output. Once it has printed its final rate, give it a few seconds to exit: with the
    chat adapters' tests imported (bot scopes) its process can linger on threads those libraries left behind."""
    mutmut = Path(sys.executable).parent / "mutmut"
    process = subprocess.Popen([str(mutmut), "run", "--max-children", str(workers), *names], cwd=work,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert process.stdout is not None
    tail = b""
    while chunk := os.read(process.stdout.fileno(), 4096):
        sys.stdout.buffer.write(chunk)
        sys.stdout.flush()
        tail = (tail + chunk)[-200:]
        if b"mutations/second" in tail:
            break
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()  # every verdict is already saved; SIGTERM alone is not always heeded
        process.wait()
    remaining = process.stdout.read()
    sys.stdout.buffer.write(remaining)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scope", choices=sorted(SCOPES))
    parser.add_argument("--workers", type=int, default=2, help="mutmut --max-children (default 2)")
    parser.add_argument("--fresh", action="store_true", help="drop the scope's cached results first")
    parser.add_argument("--report", action="store_true", help="only print the last run's score")
    parser.add_argument("--rev", help="mutate the code and run the tests of this git revision (a before score); "
                                      "with --survivors: take the tests from this revision")
    parser.add_argument("--survivors", action="store_true",
                        help="with the current tests, rerun only what the scope's last run did not kill")
    parser.add_argument("--checked", action="store_true",
                        help="with --survivors: rerun only the survivors the last run checked, not the mutants a "
                             "stopped run never reached (an AFTER for the checked part of a partial run)")
    parser.add_argument("--only", nargs="+", metavar="GLOB",
                        help="check only the scope's mutants matching these names (e.g. 'engine.tunj.game.*') that "
                             "its last run has not checked yet: a partial run spent on the code that matters most")
    parser.add_argument("--sample", type=int, metavar="N",
                        help="check N mutants drawn at random from the whole scope and print that sample's score with "
                             "its 95%% interval (an estimate of the whole scope's score)")
    parser.add_argument("--seed", type=int, default=0, help="with --sample: the draw's seed (default 0)")
    parser.add_argument("--tests", nargs="+", metavar="FILE",
                        help="with --survivors: run only these test files (the ones added or changed since the last "
                             "run; the survivors already passed every other test)")
    args = parser.parse_args()
    work = ROOT / ".mutation" / args.scope.replace("/", "-")
    saved = work / "results.json"  # the scope's latest verdict per mutant (mutmut forgets them when tests change)
    if args.report:
        report(args.scope, json.loads(saved.read_text()) if saved.exists() else results(work, args.scope), work)
        return
    names = SCOPES[args.scope].get("mutants", [])
    if args.survivors:
        before = json.loads(saved.read_text()) if saved.exists() else results(work, args.scope)
        open_names = [name for name, code in before.items()
                      if code not in KILLED and not (args.checked and code is None)]
        skip = {**equivalents(), **storage_case_equivalents(work, open_names)}
        names = sorted(name for name in open_names if name not in skip)
        if names:
            if args.rev:  # the tests as of a revision whose code is the snapshot's (main moved on meanwhile)
                with tempfile.TemporaryDirectory() as folder:
                    prepare(args.scope, work, False, export(args.rev, Path(folder)), only_tests=True,
                            selection=args.tests)
            else:
                prepare(args.scope, work, False, only_tests=True, selection=args.tests)
            # mutmut maps tests to the functions they reach once and does not notice an edited test reaching new
            # ones: rebuild that map (one run of the scope's tests) so every rerun mutant meets every test.
            (work / "mutants" / "mutmut-stats.json").unlink(missing_ok=True)
            run_mutmut(work, args.workers, names)
        rerun = results(work, args.scope)
        # A survivor the rerun did not reach (stopped early) keeps its verdict from the last run; with --tests, a
        # mutant the last run never checked stays "not checked" unless a named test killed it (it has not met the
        # rest of the scope's tests).
        # With --tests, "no tests" (the named files never reach the mutant) keeps the mutant's last verdict too.
        found = {**before, **{name: rerun[name] for name in names if rerun.get(name) is not None
                              and (before.get(name) is not None or not args.tests or rerun[name] in KILLED)
                              and not (args.tests and rerun[name] in (5, 33))}}
    else:
        if args.rev:
            with tempfile.TemporaryDirectory() as folder:
                prepare(args.scope, work, args.fresh, export(args.rev, Path(folder)))
        else:
            prepare(args.scope, work, args.fresh)
        if args.sample:
            # A stopped sample goes on with the same draw: mutants listed as equivalent since would change the
            # population, and so every name a fresh draw picks.
            earlier = json.loads((work / "sample.json").read_text()) if (work / "sample.json").exists() else {}
            if earlier.get("seed") == args.seed and earlier.get("size", len(earlier.get("names", []))) == args.sample:
                drawn = earlier["names"]
            else:
                drawn, population = draw_sample(work, args.scope, args.sample, args.seed, args.workers)
                (work / "sample.json").write_text(json.dumps(
                    {"seed": args.seed, "size": args.sample, "population": population, "names": drawn}, indent=0))
            known = results(work, args.scope)
            names = [name for name in drawn if known.get(name) is None]  # a rerun goes on where it stopped
        elif args.only:  # mutmut reruns every named mutant: name only those without a verdict yet
            known = results(work, args.scope)  # empty before the scope's first run: mutmut matches the globs
            names = sorted(name for name, code in known.items()
                           if code is None and any(fnmatch.fnmatch(name, glob) for glob in args.only))
            names = names if known else list(args.only)
            if not names:
                sys.exit("--only: no unchecked mutant matches " + " ".join(args.only))
        if names or not args.sample:  # no names would run the whole scope
            run_mutmut(work, args.workers, names)
        found = results(work, args.scope)
        (work / "before.json").write_text(json.dumps(found, indent=0, sort_keys=True))
    saved.write_text(json.dumps(found, indent=0, sort_keys=True))
    report(args.scope, found, work)

if __name__ == "__main__":
    main()
