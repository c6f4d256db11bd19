"""``python -m exercises``: list the exercises, build an assignment, grade one.

    python -m exercises list [--chapter 04_roofline] [--challenges]
    python -m exercises assign hw1 --chapter roofline --students roster.txt --variants
    python -m exercises assign hw2 --challenges vector_add,saxpy --students roster.txt
    python -m exercises grade _build/assignments/hw1 submissions/ --out _build/grades/hw1
    python -m exercises assign hw3 --challenges saxpy --students canvas.csv \
        --id-column "SIS User ID" --variants --graded --attempts 3 --gradescope hw3.zip
    python -m exercises grade _build/assignments/hw3 submissions/ -j 2 --gpu
"""
from __future__ import annotations

import argparse
import pathlib
import sys


def _split(values: list[str] | None) -> list[str]:
    return [v.strip() for value in values or [] for v in value.split(",") if v.strip()]


def _list(args) -> int:
    from . import _catalog, variants

    if args.challenges:
        from .challenges import names

        for name in names():
            print(name)
        return 0
    from .assign import _chapter
    from .registry import all_exercises

    numeric = {e.id for e in all_exercises()}
    varied = set(variants.ids())
    chapter = _chapter(args.chapter, _catalog.ROOT) if args.chapter else None
    for d in _catalog.exercises():
        if chapter and d.chapter != chapter:
            continue
        kind = "numeric" if d.label in numeric else "written"
        print(f"{d.label:16} {d.chapter:20} {kind:8} {'variants' if d.label in varied else ''}")
    print(f"{len(numeric)} numeric exercises, {len(varied)} with per-student variants",
          file=sys.stderr)
    return 0


def _points(values: list[str] | None) -> dict[str, float]:
    """``--points roofline-4=2,fuse=3`` -> {"roofline-4": 2.0, "fuse": 3.0}."""
    out = {}
    for item in _split(values):
        id, _, value = item.partition("=")
        try:
            out[id.strip()] = float(value)
        except ValueError:
            raise ValueError(f"--points takes id=points items, got {item!r}") from None
    return out


def _scoring(args) -> dict | None:
    if args.correct_share is None and not args.share_thresholds:
        return None
    from .grade import SCORING

    scoring = dict(SCORING)
    if args.correct_share is not None:
        if not 0 <= args.correct_share <= 1:
            raise ValueError(f"--correct-share must be in [0, 1], got {args.correct_share}")
        scoring["correct"] = args.correct_share
    if args.share_thresholds:
        pairs = []
        for item in _split([args.share_thresholds]):
            t, _, f = item.partition(":")
            try:
                pairs.append([float(t), float(f)])
            except ValueError:
                raise ValueError("--share-thresholds takes share:credit items such as "
                                 f"0.25:0.5,0.5:1; got {item!r}") from None
        scoring["shares"] = pairs
    return scoring


def _assign(args) -> int:
    from . import secret
    from .assign import assign, read_roster

    students = _split(args.student)
    if args.students:
        students += read_roster(args.students, args.id_column)
    out = args.out or pathlib.Path("_build") / "assignments" / args.assignment
    key = None
    if args.variants and not args.no_key:
        path = pathlib.Path(args.key) if args.key else secret.default_path(args.course)
        key = secret.create(path)
        print(f"instructor key: {path} (keep it; grade reads it; never commit it)",
              file=sys.stderr)
    paths = assign(args.assignment, out, ids=_split(args.ids), chapters=_split(args.chapter),
                   students=students, use_variants=args.variants, title=args.title or "",
                   kernels=_split(args.challenges), key=key, course=args.course,
                   graded=args.graded, attempts=args.attempts, points=_points(args.points),
                   scoring=_scoring(args), due=args.due, id_column=args.id_column or "")
    print(f"wrote {paths[0]} and {len(paths) - 1} notebook(s) in {pathlib.Path(out)}")
    if args.gradescope:
        from .gradescope import write_zip

        zip_path = write_zip(out, args.gradescope,
                             key_path=(pathlib.Path(args.key) if args.key else
                                       secret.default_path(args.course)) if key else None)
        print(f"wrote {zip_path} (upload it as the Gradescope autograder)")
    return 0


def _grade(args) -> int:
    from . import secret
    from .challenges import Limits
    from .grade import grade, load_spec

    spec = load_spec(args.assignment)
    out = args.out or pathlib.Path("_build") / "grades" / spec["assignment"]
    if args.memory_limit is not None and not args.memory_limit > 0:
        raise ValueError(f"--memory-limit must be a number of MiB > 0, got {args.memory_limit}")
    memory = None if args.memory_limit is None and args.gpu else \
        int((args.memory_limit or 4096) * 2 ** 20)
    limits = Limits(wall_s=args.time_limit, memory_bytes=memory)
    key = secret.read(args.key) if args.key else None
    if args.no_sandbox:
        print("warning: --no-sandbox: students' code runs without the sandbox (recorded in "
              "the gradebook)", file=sys.stderr)
    subs = grade(args.assignment, args.submissions, out, points=args.points,
                 close_points=args.close_points, limits=limits, gpu=args.gpu,
                 log=lambda line: print(line, file=sys.stderr, flush=True), key=key,
                 sandboxed=not args.no_sandbox, jobs=args.jobs, only=args.only,
                 hand=args.hand, due=args.due, submitted=args.submitted,
                 machine=args.machine)
    statuses: dict[str, int] = {}
    for sub in subs:
        for r in sub.rows:
            statuses[r.status] = statuses.get(r.status, 0) + 1
    print(f"graded {len(subs)} student(s): "
          + ", ".join(f"{n} {s}" for s, n in sorted(statuses.items())))
    kernels = any(ex["kind"] == "challenge" for ex in spec["exercises"])
    extra = ", challenges.json, kernels/<student>/" if kernels else ""
    print(f"wrote {out}/gradebook.csv, totals.csv, grades_wide.csv, rubric.md{extra} and "
          "feedback/<student>.md")
    return 0


def _gradescope_run(args) -> int:
    from .gradescope import run

    results = run(pathlib.Path(args.root), pathlib.Path(args.source))
    print(f"wrote {results}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m exercises", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("list", help="the exercises, numeric or written, and which have variants")
    p.add_argument("--chapter", help="one chapter (04_roofline, roofline or 4)")
    p.add_argument("--challenges", action="store_true",
                   help="list the kernel challenges instead (python -m labs challenge list)")
    p.set_defaults(run=_list)
    p = sub.add_parser("assign", help="build an assignment: one notebook per student")
    p.add_argument("assignment", help="the assignment's id, e.g. hw1 (it names files)")
    p.add_argument("--ids", action="append", help="exercise ids, comma-separated")
    p.add_argument("--chapter", action="append", help="every exercise of a chapter")
    p.add_argument("--students", help="roster: a file of student ids, one a line, or an "
                                      "LMS's CSV export")
    p.add_argument("--id-column", help="the roster CSV's id column: a header name (\"SIS User "
                                       "ID\", email) or a 1-based number")
    p.add_argument("--student", action="append", help="student ids, comma-separated")
    p.add_argument("--variants", action="store_true",
                   help="give each student their own numbers where an exercise has variants")
    p.add_argument("--challenges", action="append",
                   help="kernel challenges, comma-separated (python -m exercises list "
                        "--challenges names them)")
    p.add_argument("--title", help="the notebook's title")
    p.add_argument("--out", help="folder (default _build/assignments/<assignment>)")
    p.add_argument("--course", default="gpu-perf-book",
                   help="the course whose key the variants use (default gpu-perf-book)")
    p.add_argument("--key", help="the instructor's key file (default "
                                 "~/.config/gpu-perf-book/<course>.key; made when missing)")
    p.add_argument("--no-key", action="store_true",
                   help="variants from public ids (practice only: anyone can compute them)")
    p.add_argument("--graded", action="store_true",
                   help="check cells say only right or not yet")
    p.add_argument("--attempts", type=int, help="with --graded: checks of each question")
    p.add_argument("--points", action="append",
                   help="points of questions, id=points comma-separated (others: grade's "
                        "--points)")
    p.add_argument("--correct-share", type=float,
                   help="share of a kernel challenge's points for right outputs (default 0.5)")
    p.add_argument("--share-thresholds",
                   help="with grade --gpu: share-of-reference:credit pairs for the rest of a "
                        "challenge's points (default 0.25:0.5,0.5:1)")
    p.add_argument("--due", help="due date-time (ISO, e.g. 2026-03-01T23:59+01:00)")
    p.add_argument("--gradescope", help="also write this Gradescope autograder zip")
    p.set_defaults(run=_assign)
    p = sub.add_parser("grade", help="grade a folder of submitted notebooks")
    p.add_argument("assignment", help="the assignment.json written by assign (or its folder)")
    p.add_argument("submissions", help="folder of <student>.ipynb (or <student>/<any>.ipynb)")
    p.add_argument("--out", help="folder (default _build/grades/<assignment folder>)")
    p.add_argument("--points", type=float, default=1.0,
                   help="points of each question the assignment gives none (default 1)")
    p.add_argument("--close-points", type=float, default=0.5,
                   help="share of the points for a close answer (default 0.5)")
    p.add_argument("--gpu", action="store_true",
                   help="run the kernel challenges' checks on this machine's GPU (default: "
                        "the CUDA simulator)")
    p.add_argument("--time-limit", type=float, default=60.0,
                   help="wall-clock seconds per kernel check (default 60); also its CPU limit")
    p.add_argument("--memory-limit", type=float, default=None,
                   help="address space per kernel check, MiB (default 4096 on the simulator, "
                        "none with --gpu, where CUDA reserves far more than it uses)")
    p.add_argument("--key", help="the instructor's key file (default: the course's)")
    p.add_argument("--no-sandbox", action="store_true",
                   help="run students' kernels without the bubblewrap sandbox (recorded)")
    p.add_argument("-j", "--jobs", type=int, default=1, help="students graded at once")
    p.add_argument("--only", help="regrade this one student, keeping the others' rows")
    p.add_argument("--hand", help="CSV of scores given by hand (student,exercise,points,"
                                  "comment), merged into <out>/hand_scores.csv")
    p.add_argument("--due", help="due date-time (default: the assignment's)")
    p.add_argument("--submitted", help="CSV of submission times (student and time columns)")
    p.add_argument("--machine", default="T4", help="the judge's perfmodel machine (estimate)")
    p.set_defaults(run=_grade)
    p = sub.add_parser("gradescope-run", help="(inside Gradescope) grade /autograder/submission")
    p.add_argument("--root", default="/autograder")
    p.add_argument("--source", default="/autograder/source")
    p.set_defaults(run=_gradescope_run)
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
