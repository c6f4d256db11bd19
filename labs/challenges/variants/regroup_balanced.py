"""The regroup reference with 1,024 blocks (2^24 elements: 64 for every thread, none with
one pair more than the rest)."""
from labs.challenges.solutions.regroup import element
from labs.challenges.spec import with_names
from labs.challenges.starters import regroup as _starter

_v = with_names(_starter, element=element)
paths = _v.paths


def launch(x, out):
    n = x.size
    per = -(-n // (1024 * _v.THREADS))
    paths[max(1, -(-n // (per * _v.THREADS))), _v.THREADS](x, out)
