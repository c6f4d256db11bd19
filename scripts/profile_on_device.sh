#!/usr/bin/env bash
# The device call that records labs/results/<gpu>/profile.json (issue 17): ncu's version
# and the metric names it offers (kept with the raw CSV), then the profile lab from this
# checkout. Run from the repository root on the GPU machine; OUT is where results go.
set -o pipefail
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/profile_out}
RAW=/tmp/profile_raw
mkdir -p "$OUT" "$RAW"
NCU=${NCU:-/usr/local/cuda/bin/ncu}
"$NCU" --version 2>&1 | tee "$RAW/version.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv 2>&1 | tee "$RAW/nvidia_smi.txt"
"$NCU" --query-metrics > "$RAW/query_all.txt" 2>&1
grep -E "^(smsp__thread_inst_executed|smsp__inst_executed|sm__warps_active|sm__maximum_warps|l1tex__t_(sectors|requests)_pipe_lsu_mem_global_op_ld|dram__bytes|dram__throughput|dram__cycles_elapsed|lts__t_bytes|lts__t_sectors_srcunit_tex|lts__throughput|sm__pipe_fma|sm__inst_executed_pipe_fma|smsp__sass_thread_inst_executed_op_ffma|launch__registers|gpu__time_duration|sm__cycles_elapsed) " "$RAW/query_all.txt"
t0=$(date +%s)
LABS_PROFILE_RAW=$RAW timeout 420 python3 -m labs run profile --out "$OUT" 2>&1 | tee "$RAW/run.log"
rc=$?
if [ $rc -ne 0 ]; then   # what ncu prints by hand, for the record of what went wrong
  "$NCU" --help > "$RAW/ncu_help.txt" 2>&1
  timeout 120 "$NCU" --csv --page raw --clock-control none --profile-from-start off \
    --metrics smsp__inst_executed.sum,dram__bytes_read.sum \
    python3 -m labs.profile_worker compute /tmp/manifest.json > "$RAW/by_hand.txt" 2>&1
  tail -40 "$RAW/by_hand.txt"
fi
echo "profile lab: exit $rc after $(( $(date +%s) - t0 )) s"
tar czf "$OUT/raw.tgz" -C "$RAW" .
exit $rc
