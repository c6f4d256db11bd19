"""Diagrams: the machine and the algorithms drawn from the model (a view layer beside
the widgets; perfmodel never draws). Each function takes model objects (a machine, a
stride, a tile) and returns a view that shows a static figure on the site and a live one
in Jupyter, with a caption and a screen-reader description (see _base.py)."""
from .basics import amdahl_split, two_budgets, vector_add_bytes
from .comm import overlap_buckets, ring_allreduce
from .chips import peak_product, sm_anatomy, transistor_bets
from .launch import branch_mask, launch_ladder
from .flash import flash_loop, softmax_merge
from .latency import latency_timeline, warp_slots
from .memory import memory_staircase, pcie_path, sectors, tile_reuse
from .waves import waves_over_sms

#: Every diagram, in the order of the gallery: (function name, chapter).
DIAGRAMS = [("transistor_bets", 1), ("amdahl_split", 2), ("vector_add_bytes", 3),
            ("two_budgets", 4), ("pcie_path", 5), ("launch_ladder", 6), ("sm_anatomy", 6),
            ("branch_mask", 6), ("latency_timeline", 7), ("warp_slots", 7),
            ("memory_staircase", 8), ("sectors", 8), ("tile_reuse", 8), ("peak_product", 9),
            ("waves_over_sms", 9), ("flash_loop", 10), ("softmax_merge", 10),
            ("ring_allreduce", 11), ("overlap_buckets", 11)]
#: The diagrams that step one move at a time (a slider with running counters).
STEPPED = ["branch_mask", "latency_timeline", "flash_loop", "softmax_merge", "ring_allreduce"]

__all__ = [name for name, _ in DIAGRAMS]
