"""The softmax reference with a grid that gives every block the same number of rows
(16,384 rows: 1,024 blocks of 16 rows, not one wave of 1,056 with 15 or 16)."""
from labs.challenges.harness import resident_grid
from labs.challenges.solutions.softmax import THREADS, softmax


def launch(x, y):
    rows = x.shape[0]
    wave = resident_grid(softmax, THREADS, (x, y))
    per = -(-rows // wave)
    softmax[-(-rows // per), THREADS](x, y)
