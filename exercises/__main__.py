"""``python -m exercises``: list the exercises, build an assignment, grade one.

    python -m exercises list [--chapter 04_roofline] [--challenges]
    python -m exercises assign hw1 --chapter roofline --students roster.txt --variants
    python -m exercises assign hw2 --challenges vector_add,saxpy --students roster.txt
    python -m exercises grade _build/assignments/hw1 submissions/ --out _build/grades/hw1
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


def _assign(args) -> int:
    from .assign import assign, read_roster

    students = _split(args.student)
    if args.students:
        students += read_roster(args.students)
    out = args.out or pathlib.Path("_build") / "assignments" / args.assignment
    paths = assign(args.assignment, out, ids=_split(args.ids), chapters=_split(args.chapter),
                   students=students, use_variants=args.variants, title=args.title or "",
                   kernels=_split(args.challenges))
    print(f"wrote {paths[0]} and {len(paths) - 1} notebook(s) in {pathlib.Path(out)}")
    return 0


def _grade(args) -> int:
    from .challenges import Limits
    from .grade import grade, load_spec

    out = args.out or pathlib.Path("_build") / "grades" / load_spec(args.assignment)["assignment"]
    if args.memory_limit is not None and not args.memory_limit > 0:
        raise ValueError(f"--memory-limit must be a number of MiB > 0, got {args.memory_limit}")
    memory = None if args.memory_limit is None and args.gpu else \
        int((args.memory_limit or 4096) * 2 ** 20)
    limits = Limits(wall_s=args.time_limit, memory_bytes=memory)
    subs = grade(args.assignment, args.submissions, out, points=args.points,
                 close_points=args.close_points, limits=limits, gpu=args.gpu,
                 log=lambda line: print(line, file=sys.stderr, flush=True))
    statuses: dict[str, int] = {}
    for sub in subs:
        for r in sub.rows:
            statuses[r.status] = statuses.get(r.status, 0) + 1
    print(f"graded {len(subs)} student(s): "
          + ", ".join(f"{n} {s}" for s, n in sorted(statuses.items())))
    kernels = any(ex["kind"] == "challenge" for ex in load_spec(args.assignment)["exercises"])
    extra = ", challenges.json, kernels/<student>/" if kernels else ""
    print(f"wrote {out}/gradebook.csv, totals.csv, rubric.md{extra} and feedback/<student>.md")
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
    p.add_argument("--students", help="roster: a file of student ids, one a line (or a CSV)")
    p.add_argument("--student", action="append", help="student ids, comma-separated")
    p.add_argument("--variants", action="store_true",
                   help="give each student their own numbers where an exercise has variants")
    p.add_argument("--challenges", action="append",
                   help="kernel challenges, comma-separated (python -m exercises list "
                        "--challenges names them)")
    p.add_argument("--title", help="the notebook's title")
    p.add_argument("--out", help="folder (default _build/assignments/<assignment>)")
    p.set_defaults(run=_assign)
    p = sub.add_parser("grade", help="grade a folder of submitted notebooks")
    p.add_argument("assignment", help="the assignment.json written by assign (or its folder)")
    p.add_argument("submissions", help="folder of <student>.ipynb (or <student>/<any>.ipynb)")
    p.add_argument("--out", help="folder (default _build/grades/<assignment folder>)")
    p.add_argument("--points", type=float, default=1.0, help="points per numeric question")
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
    p.set_defaults(run=_grade)
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
