"""The book's performance model: pure Python and numpy, no UI, no GPU.

Units are SI everywhere: FLOP/s, byte/s, seconds, bytes, hertz, watts.
Formatting for people (``"4.8 TB/s"``) lives in :mod:`perfmodel.units` and is
used only at display time.

Modules
-------
machines   the chips (datasheet figures and measured profiles)
ops        operations as (FLOPs, bytes) pairs: the kernel catalogue
roofline   attainable performance, bound, time (with the launch toll and PCIe)
little     Little's law: bytes in flight, threads needed, achieved bandwidth
parallel   Amdahl, Gustafson, efficiency
waves      tiles and waves of thread blocks on the SMs
softmax    the online-softmax state (m, l, u) and its merge
simt       warps: divergence passes, coalescing sectors
hierarchy  the memory staircase: latency plateaus by working set; attention's footprint
access     one warp's request: alignment to sectors and lines, vector loads, shared-memory banks
clocks     why the roof moves: peak from SMs x lanes x 2 x clock, power-capped clocks
comm       links between GPUs: alpha-beta messages, collectives, overlap, data parallelism
units      formatting of SI quantities for display
"""
from . import (access, clocks, comm, hierarchy, little, machines, ops, parallel, roofline, simt,
               softmax, units, waves)

__all__ = ["machines", "ops", "roofline", "little", "parallel", "waves",
           "softmax", "simt", "clocks", "units", "hierarchy", "access", "comm"]
